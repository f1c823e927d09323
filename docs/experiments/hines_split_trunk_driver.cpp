// Driver of the trunk-bound and split-trunk experiments of issue 6 (not part of the library;
// results in docs/performance.md, "the trunk's path split among the groups"). Same batches as
// hines_trunk_lookahead_driver.cpp (random diagonally dominant values, median of 9 after a
// warm-up), built the same way against the library's headers with one of two patches:
// - docs/experiments/hines_trunk_bound.patch: algo::SubtreeParallel's group 0 walks only the first
//   TRIDIAG_TRUNK_PERCENT percent of each trunk (both sweeps; wrong results, timing only): what a
//   shorter trunk could give at most. Run: ./drv_bound SWC_DIR "100 50 25 0" (first lines: each
//   cell's rows, and for 4, 8 and 16 groups its trunk and longest chain).
// - docs/experiments/hines_split_trunk.patch: the trunk's longest path split among the groups
//   (the patch's kernel comment). Run: ./drv_split SWC_DIR "s0 s64 s16": sN sets
//   TRIDIAG_TRUNK_SPLIT_MIN=N (trunks whose path has at least N rows are split; 0: off), sNgM also
//   TRIDIAG_SUBTREE_MAX_GROUPS=M (the automatic plan's most groups, 8 without), sNn turns the bulk
//   L2 prefetch of the path's inputs off; each setting first compares x with PerNeuron's on the
//   device, then times AA0013 with 4, 8 and 16 warps (with team 0's phases from %globaltimer) and
//   the batches of the lookahead driver. -DTRIDIAG_SPLIT_DEPTH=4: four rows' loads in flight per
//   pass instead of two. "profile": AA0013 at 1,000 neurons only (for Nsight Compute).
#include "hines_trunk_cells.hpp"

#include <cstdlib>
#include <sstream>

namespace {
#ifdef TRIDIAG_SPLIT_DEPTH  // built with hines_split_trunk.patch
/// max |x_SP - x_PerNeuron| / max |x_PerNeuron| on the device (the same random batch).
void compare(const char* what, const hines::Morphologies<Mem>& morph, Kokkos::View<int*, Mem> ids, index_type N) {
  RandomBatch<layouts::Interleaved> p(morph, ids, N);
  const Exec exec;
  p.solve(exec, hines::algo::PerNeuron{});
  using V = BatchVector<double, layouts::Interleaved, Mem>;
  V ref("ref", layouts::Interleaved(N, morph.rows()));
  tridiag::deep_copy(ref, p.x);
  p.solve(exec, hines::algo::SubtreeParallel{0, false});
  double diff = 0, big = 0;
  const index_type rows = morph.rows();
  const V x = p.x;
  const auto sizes = morph.sizes();
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), KOKKOS_LAMBDA(index_type s, double& m) {
    const index_type n = sizes(ids.data() ? ids(s) : 0);
    for (index_type i = 0; i < n; ++i) { const double e = fabs(x(s, i) - ref(s, i)); m = e > m || e != e ? (e != e ? 1e300 : e) : m; }
  }, Kokkos::Max<double>(diff));
  Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), KOKKOS_LAMBDA(index_type s, double& m) {
    const index_type n = sizes(ids.data() ? ids(s) : 0);
    for (index_type i = 0; i < n; ++i) m = fabs(ref(s, i)) > m ? fabs(ref(s, i)) : m;
  }, Kokkos::Max<double>(big));
  printf("check %-30s N=%6lld: max|x - x_PerNeuron| / max|x_PerNeuron| = %.3g\n", what, (long long)N, diff / big);
}

#endif

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::vector<std::string> settings = settings_of(argc, argv, "100 0");
    const TrunkCells cells = trunk_cells(argv[1]);
    const auto& classes = cells.classes;  // largest first
    const auto& shared = cells.shared;
    const Named& aa0013 = cells.aa0013;
    for (const auto* list : {&classes, &shared})
      for (const auto& c : *list) {
        const auto morph = hines::make_morphologies<Mem>({c.parent});
        printf("%-28s rows %5zu", c.name.c_str(), c.parent.size());
        for (int g : {4, 8, 16}) {
          const auto& part = morph.subtree_partition(g);
          printf("  g=%2d: trunk %4lld, chain %4lld", g, (long long)part.longest_trunk, (long long)part.critical_rows);
        }
        printf("\n");
      }
    const double copy = copy_bandwidth();
    const index_type N = 25600;
    profile_if_asked(settings, cells, copy);
    for (const std::string& setting : settings) {
#ifdef TRIDIAG_SPLIT_DEPTH
      if (setting[0] == 's') {
        const auto gpos = setting.find('g');
        std::string split = setting.substr(1, gpos == std::string::npos ? std::string::npos : gpos - 1);
        if (!split.empty() && split.back() == 'n') split.pop_back();
        const std::string most = gpos == std::string::npos ? "8" : setting.substr(gpos + 1);
        setenv("TRIDIAG_TRUNK_SPLIT_MIN", split.c_str(), 1);
        setenv("TRIDIAG_SUBTREE_MAX_GROUPS", most.c_str(), 1);
        const bool no_prefetch = setting.find('n') != std::string::npos;  // sNn: no bulk L2 prefetch
        setenv("TRIDIAG_SPLIT_PREFETCH", no_prefetch ? "0" : "1", 1);
        printf("#### split trunk paths of at least %s rows (0: off), automatic plan's most groups %s, bulk L2 prefetch %s, pipeline depth %d\n",
               split.c_str(), most.c_str(), no_prefetch ? "off" : "on", TRIDIAG_SPLIT_DEPTH);
        const auto m1 = hines::make_morphologies<Mem>({aa0013.parent});
        compare("AA0013", m1, {}, 2327);
        std::vector<std::vector<int>> ps;
        for (const auto& c : shared) ps.push_back(c.parent);
        const auto m11 = hines::make_morphologies<Mem>(ps);
        Kokkos::View<int*, Mem> ids("ids", N);
        auto h = Kokkos::create_mirror_view(ids);
        for (index_type s = 0; s < N; ++s) h(s) = int(s * ps.size() / N);
        Kokkos::deep_copy(ids, h);
        compare("shared11 grouped", m11, ids, N);
        Kokkos::View<long long*, Mem> timing("timing", 16);
        hines::impl::experiment_timing = timing.data();
        for (int warps : {4, 8, 16}) {
          const std::string what = "AA0013.swc SP " + std::to_string(warps) + " warps";
          for (index_type n : {1000, 2327}) {
            run<layouts::Interleaved>(what.c_str(), m1, {}, n, n * m1.rows(), copy, hines::algo::SubtreeParallel{warps, false});
            auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), timing);
            // 0 start, 13 levels done, 1 P0, 2 twigs, 3 A, 4 combine, 5 B, 6 combine, 7 C, 8 D, 9 combine,
            // 10 E, 11 trunk done, 12 substitution done (team 0, the last call)
            printf("  team 0 (us): levels %.1f", (t(13) - t(0)) * 1e-3);
            if (t(1) > 0) {
              const char* names[] = {"", "P0", "twigs", "A", "cA", "B", "cB", "C", "D", "cD", "E", "twigs+sync"};
              long long prev = t(13);
              for (int k = 1; k <= 11; ++k) {
                printf(", %s %.1f", names[k], (t(k) - prev) * 1e-3);
                prev = t(k);
              }
            } else {
              printf(", trunk %.1f", (t(11) - t(13)) * 1e-3);
            }
            printf(", substitution %.1f, total %.1f\n", (t(12) - t(11)) * 1e-3, (t(12) - t(0)) * 1e-3);
            Kokkos::deep_copy(timing, 0);
          }
        }
        hines::impl::experiment_timing = nullptr;
      } else
#endif
      {
        setenv("TRIDIAG_TRUNK_PERCENT", setting.c_str(), 1);
        printf("#### trunk walked: %s%%\n", setting.c_str());
      }
      time_trunk_batches(cells, N, copy);
    }
  }
  Kokkos::finalize();
  return 0;
}
