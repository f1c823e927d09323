// Experiment (not part of the library): when each team of algo::SubtreeParallel starts and ends in a
// mixed batch, per cell. Needs the kernel instrumented with hines_subtree_timeline.patch (a
// %globaltimer stamp at each team's start and end, its multiprocessor and the morphology of its
// first lane, written where the driver's __device__ pointer says; nothing when it is null). Times N
// neurons of each cell alone (SubtreeParallel, automatic plan, Interleaved), then the cells mixed,
// cell c on slots [c N / C, (c + 1) N / C) and then with those boundaries rounded to multiples of 32
// neurons: the teams' start, duration and end per cell, how many run every 0.05 ms, the median of 9
// and the strict ratio (the cells' times scaled to their share, summed, over the mix's time).
// A split block's unit is counted under its first lane's cell (its lanes may be another's).
// Build as hines_subtree_driver.cpp, with the patched headers. Run: ./drv_tl 25600 c5.txt c4.txt ...
// Results: docs/performance.md, "group boundaries".
#include "hines_driver_common.hpp"
#include <map>

std::vector<unsigned long long> timeline_run(const hines::Morphologies<Mem>& morph, Kokkos::View<int*, Mem> ids, index_type N, hines::algo::SubtreeParallel algo, double& ms) {
  RandomBatch<layouts::Interleaved> problem(morph, ids, N);
  Exec exec;
  const int cap = 200000;
  Kokkos::View<unsigned long long*, Mem> tl("tl", 4 * cap);
  unsigned long long* p = nullptr;
  cudaMemcpyToSymbol(hines::impl::subtree_timeline, &p, sizeof p);
  for (int r = 0; r < 3; ++r) problem.solve(exec, algo);
  exec.fence();
  p = tl.data();
  cudaMemcpyToSymbol(hines::impl::subtree_timeline, &p, sizeof p);
  auto t0 = std::chrono::steady_clock::now();
  problem.solve(exec, algo);
  exec.fence();
  ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3;
  p = nullptr;
  cudaMemcpyToSymbol(hines::impl::subtree_timeline, &p, sizeof p);
  std::vector<unsigned long long> h(4 * cap);
  Kokkos::deep_copy(Kokkos::View<unsigned long long*, Kokkos::HostSpace>(h.data(), h.size()), tl);
  return h;
}

void report(const char* what, const std::vector<unsigned long long>& h, double ms, const std::vector<int>& sizes) {
  unsigned long long t0 = ~0ull, t1 = 0;
  int teams = 0;
  for (size_t k = 0; 4 * k < h.size() && h[4 * k] != 0; ++k) { t0 = std::min(t0, h[4 * k]); t1 = std::max(t1, h[4 * k + 1]); ++teams; }
  printf("== %s: %d teams, wall %.3f ms, first start to last end %.3f ms\n", what, teams, ms, (t1 - t0) * 1e-6);
  std::map<int, std::vector<std::array<double, 2>>> by;
  std::map<int, int> persm;
  for (int k = 0; k < teams; ++k) by[int(h[4 * k + 3])].push_back({(h[4 * k] - t0) * 1e-6, (h[4 * k + 1] - t0) * 1e-6});
  for (auto& [m, v] : by) {
    std::vector<double> st, du, en;
    for (auto& e : v) { st.push_back(e[0]); du.push_back(e[1] - e[0]); en.push_back(e[1]); }
    std::sort(st.begin(), st.end()); std::sort(du.begin(), du.end()); std::sort(en.begin(), en.end());
    auto q = [](std::vector<double>& x, double f) { return x[std::min(x.size() - 1, size_t(f * x.size()))]; };
    printf("  cell %d (%d rows): %4zu teams  start min/med/max %.3f %.3f %.3f  duration min/med/max %.3f %.3f %.3f  end med/max %.3f %.3f ms\n", m, m < (int)sizes.size() ? sizes[m] : -1, v.size(), st.front(), q(st, 0.5), st.back(), du.front(), q(du, 0.5), du.back(), q(en, 0.5), en.back());
  }
  // timeline buckets: teams running per cell every 0.05 ms
  printf("  running teams per cell, every 0.05 ms:\n");
  for (double t = 0; t < (t1 - t0) * 1e-6; t += 0.05) {
    printf("   %.2f:", t);
    for (auto& [m, v] : by) { int c = 0; for (auto& e : v) c += e[0] <= t && e[1] > t; printf(" %4d", c); }
    printf("\n");
  }
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const index_type N = atoll(argv[1]);
    std::vector<std::vector<int>> parents;
    std::vector<int> sizes;
    for (int k = 2; k < argc; ++k) { parents.push_back(load(argv[k])); sizes.push_back(parents.back().size()); }
    const int C = parents.size();
    const auto morph = hines::make_morphologies<Mem>(parents);
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    std::vector<double> single(C);
    for (int c = 0; c < C; ++c) {
      const auto one = hines::make_morphologies<Mem>({parents[c]});
      char what[64];
      snprintf(what, sizeof what, "cell %d alone, N neurons", c);
      single[c] = run<layouts::Interleaved>(what, one, Kokkos::View<int*, Mem>(), N, N * sizes[c], copy, hines::algo::SubtreeParallel{0, false});
    }
    for (int aligned = 0; aligned < 2; ++aligned) {
      Kokkos::View<int*, Mem> ids("ids", N);
      auto h = Kokkos::create_mirror_view(ids);
      std::vector<index_type> start(C + 1);
      for (int c = 0; c <= C; ++c) { start[c] = c * N / C; if (aligned) start[c] = (start[c] + 16) / 32 * 32; }
      start[C] = N;
      index_type real = 0;
      double ideal = 0;
      for (int c = 0; c < C; ++c) {
        for (index_type s = start[c]; s < start[c + 1]; ++s) { h(s) = c; real += sizes[c]; }
        ideal += single[c] * double(start[c + 1] - start[c]) / N;
      }
      Kokkos::deep_copy(ids, h);
      const char* what = aligned ? "mixed, groups aligned to 32" : "mixed, groups of N/C";
      double ms;
      auto tl = timeline_run(morph, ids, N, hines::algo::SubtreeParallel{0, false}, ms);
      report(what, tl, ms, sizes);
      const double t = run<layouts::Interleaved>(what, morph, ids, N, real, copy, hines::algo::SubtreeParallel{0, false});
      const double tb = run<layouts::BlockInterleaved<32>>(what, morph, ids, N, real, copy, hines::algo::SubtreeParallel{0, false});
      printf("strict ratio (%s): %.3f / %.3f = %.3f\n", what, ideal * 1e3, std::min(t, tb) * 1e3, ideal / std::min(t, tb));
    }
  }
  Kokkos::finalize();
}
