#pragma once
// What the Hines drivers of docs/experiments share (not part of the library): random diagonally
// dominant batches on a CUDA device, the timing of one hines::solve configuration (median of 9
// after a warm-up, % of copy bandwidth in useful bytes, a checksum of x) and the device copy
// bandwidth. Included by hines_subtree_driver.cpp, hines_staged_driver.cpp, hines_lean_driver.cpp
// and hines_warp_staged_library_driver.cpp (and the other Kokkos drivers here).
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

/// Seconds `launch` (asynchronous work on the device) takes, fence included: element reps / 2 of
/// `reps` sorted timings after one warm-up call.
template <class Launch>
double median_seconds(const Launch& launch, int reps) {
  launch();
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    launch();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

/// N neurons of random diagonally dominant values (Fill) on Layout, with the batch, status and
/// workspace a hines::solve of them needs.
template <class Layout>
struct RandomBatch {
  using V = BatchVector<double, Layout, Mem>;
  V a, b, d, rhs, x, w;
  hines::HinesBatch<double, Layout, Mem> batch;
  StatusView<Mem> status;
  hines::Workspace<double, Layout, Mem> ws;
  RandomBatch(const hines::Morphologies<Mem>& morph, Kokkos::View<int*, Mem> ids, index_type N)
      : a("a", Layout(N, morph.rows())), b("b", Layout(N, morph.rows())), d("d", Layout(N, morph.rows())),
        rhs("rhs", Layout(N, morph.rows())), x("x", Layout(N, morph.rows())), w("w", Layout(N, morph.rows())),
        status("status", N) {
    Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(0, N), Fill<V>{a, b, d, rhs, x, morph.parent(), morph.sizes(), ids, morph.rows()});
    batch = hines::HinesBatch<double, Layout, Mem>(morph, ids, a, b, d);
    ws = w;
  }
  template <class Algo>
  void solve(const Exec& exec, Algo algo) { hines::solve(exec, batch, rhs, x, status, ws, algo); }
};

template <class Layout, class Algo>
double run(const char* what, const hines::Morphologies<Mem>& morph, Kokkos::View<int*, Mem> ids, index_type N, index_type real_rows, double copy_gbs, Algo algo) {
  const index_type n = morph.rows();
  using V = BatchVector<double, Layout, Mem>;
  RandomBatch<Layout> problem(morph, ids, N);
  const V& x = problem.x;
  const Exec exec;
  const double t = median_seconds([&] { problem.solve(exec, algo); }, 9);
  double sum = 0;
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<V>{x, n}, sum);
  const double useful = 5.0 * 8 * real_rows;
  printf("%-34s N=%7lld  med %.4f ms  useful %.1f%% of copy  checksum %.17g\n", what, (long long)N, t * 1e3,
         useful / t / 1e9 / copy_gbs * 100, sum);
  return t;
}

std::vector<int> load(const char* f) {
  std::ifstream in(f); size_t n; in >> n; std::vector<int> p(n); for (auto& v : p) in >> v; return p;
}

/// Device copy bandwidth (GB/s, read + write): Kokkos::deep_copy of 1 GiB, median of 10.
double copy_bandwidth() {
  Kokkos::View<double*, Mem> s("s", 1 << 27), dd("dd", 1 << 27);
  return 2.0 * 8 * (1 << 27) / median_seconds([&] { Kokkos::deep_copy(dd, s); }, 10) / 1e9;
}

/// The main of the drivers run as `driver N CELL...`: Kokkos initialised, the copy bandwidth
/// printed, then for each parent file (load) its header line and cell(parent, morphologies, N,
/// copy bandwidth).
template <class Cell>
int for_each_cell(int argc, char** argv, const Cell& cell) {
  Kokkos::initialize(argc, argv);
  {
    const index_type N = atoll(argv[1]);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    for (int f = 2; f < argc; ++f) {
      const std::vector<int> parent = load(argv[f]);
      const auto morph = hines::make_morphologies<Mem>({parent});
      printf("== %s, %lld rows\n", argv[f], (long long)morph.rows());
      cell(parent, morph, N, copy);
    }
  }
  Kokkos::finalize();
  return 0;
}
