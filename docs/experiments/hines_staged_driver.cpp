// Driver behind issue 6's on-chip staging study (docs/performance.md, "Issue 6: keeping the
// eliminated entries on chip"; not part of the library). Needs the library's headers with
// docs/experiments/hines_staged_per_neuron.patch applied (algo::StagedPerNeuron; a software-
// pipelined sweep under -DTRIDIAG_STAGED_PIPELINE=D; SubtreeParallel staging its first K rows under
// -DTRIDIAG_SUBTREE_STAGED_ROWS=K). Times hines::solve on a CUDA device for N copies of each cell
// whose Hines parent array is given (one file each: the row count, then parent(i) per line), random
// diagonally dominant values, median of 9 after a warm-up; prints % of copy bandwidth in useful
// bytes (5 values per row) and a checksum of x, equal for every kernel and build (bitwise results).
// Build as docs/experiments/hines_subtree_driver.cpp. Modes (the configurations of each run):
//   ./drv staged N cells...     PerNeuron; StagedPerNeuron, teams of 32/64/128, 0/16/32/48 rows
//   ./drv pipelined N cells...  PerNeuron; StagedPerNeuron with the configurations of the pipelined run
//   ./drv subtree N cells...    PerNeuron; SubtreeParallel with 1, 2, 4, 8 warps and automatic
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
  {
    const std::string mode = argv[1];
    const index_type N = atoll(argv[2]);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s, prefetch %d rows\n", copy, (int)hines::impl::hines_prefetch_rows);
    using SPN = hines::algo::StagedPerNeuron;
    using SP = hines::algo::SubtreeParallel;
    const Kokkos::View<int*, Mem> none;
    char what[64];
    for (int k = 3; k < argc; ++k) {
      const auto morph = hines::make_morphologies<Mem>({load(argv[k])});
      const index_type real = N * morph.rows();
      printf("== %s (%lld rows)\n", argv[k], (long long)morph.rows());
      run<layouts::Interleaved>("per-neuron Interleaved", morph, none, N, real, copy, hines::algo::PerNeuron{false});
      run<layouts::BlockInterleaved<32>>("per-neuron BI32", morph, none, N, real, copy, hines::algo::PerNeuron{false});
      if (mode == "staged") {
        for (int team : {32, 64, 128}) {
          for (index_type staged : {index_type(0), index_type(16), index_type(32), index_type(48)}) {
            if (staged * team * 16 > 40 * 1024) continue;
            snprintf(what, sizeof what, "staged team %d rows %lld Int", team, (long long)staged);
            run<layouts::Interleaved>(what, morph, none, N, real, copy, SPN{team, staged, false});
          }
        }
        run<layouts::BlockInterleaved<32>>("staged team 32 auto BI32", morph, none, N, real, copy, SPN{32, 0, false});
      } else if (mode == "pipelined") {
        const std::pair<int, index_type> configs[] = {{16, 0},  {16, 96}, {32, 0},  {32, 48}, {32, 24},
                                                      {64, 0},  {64, 16}, {128, 1}, {256, 1}};
        for (const auto& [team, staged] : configs) {
          snprintf(what, sizeof what, "staged team %d rows %lld Int", team, (long long)staged);
          run<layouts::Interleaved>(what, morph, none, N, real, copy, SPN{team, staged, false});
        }
      } else {
        for (int g : {1, 2, 4, 8}) {
          snprintf(what, sizeof what, "subtree %d warps Int", g);
          run<layouts::Interleaved>(what, morph, none, N, real, copy, SP{g, false});
        }
        run<layouts::Interleaved>("subtree auto Int", morph, none, N, real, copy, SP{0, false});
      }
    }
  }
  Kokkos::finalize();
}
