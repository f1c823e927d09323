// Driver behind the Hines sweeps' prefetch distance (serial_hines.hpp hines_prefetch_rows; not
// part of the library; results in docs/performance.md). Times hines::solve on a CUDA device for N
// copies of one cell (its Hines parent array in a file: the row count, then parent(i) per line),
// one thread per neuron (PerNeuron) and SubtreeParallel with 4 warps, on Interleaved and
// BlockInterleaved<32>, pad rows skipped; random diagonally dominant values; median of 9 after a
// warm-up; a checksum of x, equal for every build (the prefetch changes no result).
// Build once per distance (-DTRIDIAG_HINES_PREFETCH_ROWS=D), as hines_subtree_driver.cpp says;
// run: ./drv BG001.txt 25600 256000
#include <tridiag/tridiag.hpp>
#include <cstdio>
#include <fstream>
#include <chrono>
using namespace tridiag;
using Mem = Kokkos::CudaSpace;
using Exec = Kokkos::Cuda;

template <class V>
struct Fill {
  V a, b, d, rhs, x;
  hines::Morphologies<Mem>::parent_view parent;
  index_type n;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s) const {
    unsigned long long st = 1469598103934665603ull ^ (s * 1099511628211ull);
    auto rnd = [&]() { st = st * 6364136223846793005ull + 1442695040888963407ull; return double(st >> 11) * (1.0 / 9007199254740992.0); };
    for (index_type i = 0; i < n; ++i) {
      a(s, i) = -0.1 - rnd(); b(s, i) = -0.1 - rnd(); rhs(s, i) = rnd() - 0.5; x(s, i) = 0.0 / 0.0;
    }
    for (index_type i = 0; i < n; ++i) d(s, i) = 0.5 + rnd();
    for (index_type i = 1; i < n; ++i) { const int p = parent(0, i); d(s, i) += -a(s, i) + 0.1; d(s, p) += -b(s, i); }
  }
};
template <class V>
struct Sum {
  V x; index_type n;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s, double& acc) const { for (index_type i = 0; i < n; ++i) acc += x(s, i) * (1 + (i % 7)); }
};

template <class Layout, class Algo>
void run(const char* what, const hines::Morphologies<Mem>& morph, index_type N, double copy_gbs, Algo algo, int reps) {
  const index_type n = morph.rows();
  using V = BatchVector<double, Layout, Mem>;
  V a("a", Layout(N, n)), b("b", Layout(N, n)), d("d", Layout(N, n)), rhs("rhs", Layout(N, n)), x("x", Layout(N, n)), w("w", Layout(N, n));
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, N), Fill<V>{a, b, d, rhs, x, morph.parent(), n});
  hines::HinesBatch<double, Layout, Mem> batch(morph, a, b, d);
  StatusView<Mem> status("status", N);
  hines::Workspace<double, Layout, Mem> ws = w;
  Exec exec;
  hines::solve(exec, batch, rhs, x, status, ws, algo);
  exec.fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    hines::solve(exec, batch, rhs, x, status, ws, algo);
    exec.fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  double sum = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Sum<V>{x, n}, sum);
  const double useful = 5.0 * 8 * n * N;
  printf("%-28s N=%7lld rows=%5lld  min %.4f ms  med %.4f ms  useful %.1f%% of copy  checksum %.17g\n", what, (long long)N,
         (long long)n, t[0] * 1e3, t[t.size() / 2] * 1e3, useful / t[t.size() / 2] / 1e9 / copy_gbs * 100, sum);
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::vector<int> parent;
    {
      std::ifstream f(argv[1]);
      size_t n; f >> n; parent.resize(n);
      for (auto& p : parent) f >> p;
    }
    const auto morph = hines::make_morphologies<Mem>({parent});
    // copy bandwidth
    Kokkos::View<double*, Mem> s("s", 1 << 27), dd("dd", 1 << 27);
    Kokkos::deep_copy(dd, s); Kokkos::fence();
    std::vector<double> t;
    for (int r = 0; r < 10; ++r) { auto t0 = std::chrono::steady_clock::now(); Kokkos::deep_copy(dd, s); Kokkos::fence(); t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()); }
    std::sort(t.begin(), t.end());
    const double copy = 2.0 * 8 * (1 << 27) / t[5] / 1e9;
    printf("copy %.0f GB/s prefetch %d\n", copy, (int)hines::impl::hines_prefetch_rows);
    for (int k = 2; k < argc; ++k) {
      const index_type N = atoll(argv[k]);
      const int reps = 9;
      run<layouts::Interleaved>("per-neuron Interleaved", morph, N, copy, hines::algo::PerNeuron{false}, reps);
      run<layouts::BlockInterleaved<32>>("per-neuron BI32", morph, N, copy, hines::algo::PerNeuron{false}, reps);
      run<layouts::Interleaved>("subtree4 Interleaved", morph, N, copy, hines::algo::SubtreeParallel{4, false}, reps);
      run<layouts::BlockInterleaved<32>>("subtree4 BI32", morph, N, copy, hines::algo::SubtreeParallel{4, false}, reps);
    }
  }
  Kokkos::finalize();
}
