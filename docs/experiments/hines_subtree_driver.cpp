// Driver behind algo::SubtreeParallel's per-block warps (subtree_team_plan.hpp; not part of the
// library; results in docs/performance.md, "Issue 6: SubtreeParallel warps per block"). Times
// hines::solve on a CUDA device for a batch of N neurons mixing the cells whose Hines parent arrays
// are given (one file each: the row count, then parent(i) per line, in decreasing size), grouped
// by cell (cell c on slots [c N / C, (c + 1) N / C)), then each cell alone with N neurons, and
// prints the strict mixed-batch ratio of issue 6: the time of N / C neurons of each cell on its
// fastest kernel, summed, over the mixed batch's fastest time. Random diagonally dominant values
// (not the cable equation: the same operations, other numbers); median of 9 after a warm-up.
// Build (development machine, CUDA Kokkos from scripts/deps/build_kokkos.sh --backend cuda):
//   nvcc_wrapper -std=c++17 -O3 -I<build>/include -I<kokkos>/include --expt-extended-lambda
//     -fopenmp hines_subtree_driver.cpp -o drv -L<kokkos>/lib -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv 25600 big-high.txt big-low.txt medium-high.txt medium-low.txt small.txt small.txt
// One-cell mode (the sweeps' prefetch distance, serial_hines.hpp hines_prefetch_rows; build once
// per -DTRIDIAG_HINES_PREFETCH_ROWS=D): ./drv one BG001.txt 25600 256000 times N copies of the cell,
// one thread per neuron and SubtreeParallel with 4 warps and the automatic plan on Interleaved and
// BlockInterleaved<32>, and with 1, 2, 8 and 16 warps on Interleaved, and prints a checksum of x
// (equal for every build: no variant measured changes a result).
#include <tridiag/tridiag.hpp>
#include <cstdio>
#include <fstream>
#include <chrono>
#include <string>
using namespace tridiag;
using Mem = Kokkos::CudaSpace;
using Exec = Kokkos::Cuda;

template <class V>
struct Fill {
  V a, b, d, rhs, x;
  hines::Morphologies<Mem>::parent_view parent;
  hines::Morphologies<Mem>::size_view sizes;
  Kokkos::View<int*, Mem> ids;
  index_type rows;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s) const {
    const int m = ids.data() ? ids(s) : 0;
    const index_type n = sizes(m);
    unsigned long long st = 1469598103934665603ull ^ (s * 1099511628211ull);
    auto rnd = [&]() { st = st * 6364136223846793005ull + 1442695040888963407ull; return double(st >> 11) * (1.0 / 9007199254740992.0); };
    for (index_type i = 0; i < rows; ++i) { a(s, i) = -0.1 - rnd(); b(s, i) = -0.1 - rnd(); rhs(s, i) = rnd() - 0.5; x(s, i) = 0.0 / 0.0; d(s, i) = 0.5 + rnd(); }
    for (index_type i = 1; i < n; ++i) { const int p = parent(m, i); d(s, i) += -a(s, i) + 0.1; d(s, p) += -b(s, i); }
  }
};

template <class V>
struct Checksum {
  V x;
  index_type rows;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s, double& acc) const {
    for (index_type i = 0; i < rows; ++i) acc += x(s, i) == x(s, i) ? x(s, i) * (1 + (i % 7)) : 0.0;
  }
};

template <class Layout, class Algo>
double run(const char* what, const hines::Morphologies<Mem>& morph, Kokkos::View<int*, Mem> ids, index_type N, index_type real_rows, double copy_gbs, Algo algo) {
  const index_type n = morph.rows();
  using V = BatchVector<double, Layout, Mem>;
  V a("a", Layout(N, n)), b("b", Layout(N, n)), d("d", Layout(N, n)), rhs("rhs", Layout(N, n)), x("x", Layout(N, n)), w("w", Layout(N, n));
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, N), Fill<V>{a, b, d, rhs, x, morph.parent(), morph.sizes(), ids, n});
  hines::HinesBatch<double, Layout, Mem> batch(morph, ids, a, b, d);
  StatusView<Mem> status("status", N);
  hines::Workspace<double, Layout, Mem> ws = w;
  Exec exec;
  hines::solve(exec, batch, rhs, x, status, ws, algo);
  exec.fence();
  std::vector<double> t;
  for (int r = 0; r < 9; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    hines::solve(exec, batch, rhs, x, status, ws, algo);
    exec.fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  double sum = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{x, n}, sum);
  const double useful = 5.0 * 8 * real_rows;
  printf("%-34s N=%7lld  med %.4f ms  useful %.1f%% of copy  checksum %.17g\n", what, (long long)N, t[4] * 1e3,
         useful / t[4] / 1e9 / copy_gbs * 100, sum);
  return t[4];
}

std::vector<int> load(const char* f) {
  std::ifstream in(f); size_t n; in >> n; std::vector<int> p(n); for (auto& v : p) in >> v; return p;
}

/// Device copy bandwidth (GB/s, read + write): Kokkos::deep_copy of 1 GiB, median of 10.
double copy_bandwidth() {
  Kokkos::View<double*, Mem> s("s", 1 << 27), dd("dd", 1 << 27);
  Kokkos::deep_copy(dd, s);
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < 10; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    Kokkos::deep_copy(dd, s);
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return 2.0 * 8 * (1 << 27) / t[5] / 1e9;
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  if (argc > 2 && std::string(argv[1]) == "one") {
    const auto morph = hines::make_morphologies<Mem>({load(argv[2])});
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s, prefetch %d rows, lanes %d\n", copy, (int)hines::impl::hines_prefetch_rows,
           hines::impl::subtree_lanes<Exec>());
    using SP = hines::algo::SubtreeParallel;
    const Kokkos::View<int*, Mem> none;
    for (int k = 3; k < argc; ++k) {
      const index_type N = atoll(argv[k]), real = N * morph.rows();
      run<layouts::Interleaved>("per-neuron Interleaved", morph, none, N, real, copy, hines::algo::PerNeuron{false});
      run<layouts::BlockInterleaved<32>>("per-neuron BI32", morph, none, N, real, copy, hines::algo::PerNeuron{false});
      run<layouts::Interleaved>("subtree1 Interleaved", morph, none, N, real, copy, SP{1, false});
      run<layouts::Interleaved>("subtree2 Interleaved", morph, none, N, real, copy, SP{2, false});
      run<layouts::Interleaved>("subtree4 Interleaved", morph, none, N, real, copy, SP{4, false});
      run<layouts::BlockInterleaved<32>>("subtree4 BI32", morph, none, N, real, copy, SP{4, false});
      run<layouts::Interleaved>("subtree8 Interleaved", morph, none, N, real, copy, SP{8, false});
      run<layouts::Interleaved>("subtree auto Interleaved", morph, none, N, real, copy, SP{0, false});
      run<layouts::Interleaved>("subtree16 Interleaved", morph, none, N, real, copy, SP{16, false});
      run<layouts::BlockInterleaved<32>>("subtree auto BI32", morph, none, N, real, copy, SP{0, false});
    }
  } else {
    const index_type N = atoll(argv[1]);
    std::vector<std::vector<int>> parents;
    for (int k = 2; k < argc; ++k) parents.push_back(load(argv[k]));  // in decreasing size
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    const int C = parents.size();
    // Mixed, grouped: class c gets neurons [c N / C, (c + 1) N / C).
    const auto morph = hines::make_morphologies<Mem>(parents);
    Kokkos::View<int*, Mem> ids("ids", N);
    auto h = Kokkos::create_mirror_view(ids);
    index_type real = 0;
    for (index_type s = 0; s < N; ++s) { h(s) = int(s * C / N); real += parents[h(s)].size(); }
    Kokkos::deep_copy(ids, h);
    using SP = hines::algo::SubtreeParallel;
    double mixed_best = 1e30;
    mixed_best = std::min(mixed_best, run<layouts::Interleaved>("mixed subtree auto Interleaved", morph, ids, N, real, copy, SP{0, false}));
    mixed_best = std::min(mixed_best, run<layouts::BlockInterleaved<32>>("mixed subtree auto BI32", morph, ids, N, real, copy, SP{0, false}));
    run<layouts::Interleaved>("mixed subtree 4 Interleaved", morph, ids, N, real, copy, SP{4, false});
    run<layouts::Interleaved>("mixed subtree 8 Interleaved", morph, ids, N, real, copy, SP{8, false});
    run<layouts::Interleaved>("mixed subtree 16 Interleaved", morph, ids, N, real, copy, SP{16, false});
    run<layouts::BlockInterleaved<32>>("mixed per-neuron BI32", morph, ids, N, real, copy, hines::algo::PerNeuron{false});
    double single = 0;
    for (int c = 0; c < C; ++c) {
      const auto one = hines::make_morphologies<Mem>({parents[c]});
      const index_type r1 = N * parents[c].size();
      double best = 1e30;
      char what[64];
      for (int wps : {0, 1, 2, 4, 8, 16}) {
        snprintf(what, sizeof what, "class %d (%zu rows) subtree%d Int", c, parents[c].size(), wps);
        best = std::min(best, run<layouts::Interleaved>(what, one, Kokkos::View<int*, Mem>(), N, r1, copy, SP{wps, false}));
      }
      snprintf(what, sizeof what, "class %d per-neuron BI32", c);
      best = std::min(best, run<layouts::BlockInterleaved<32>>(what, one, Kokkos::View<int*, Mem>(), N, r1, copy, hines::algo::PerNeuron{false}));
      snprintf(what, sizeof what, "class %d subtree auto BI32", c);
      best = std::min(best, run<layouts::BlockInterleaved<32>>(what, one, Kokkos::View<int*, Mem>(), N, r1, copy, SP{0, false}));
      single += best / C;
    }
    printf("strict ratio (sum of best single-class times for N/%d neurons each / best mixed): %.3f / %.3f = %.3f\n", C, single * 1e3, mixed_best * 1e3, single / mixed_best);
  }
  Kokkos::finalize();
}
