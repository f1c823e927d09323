// Driver of the trunk look-ahead experiment (not part of the library; results in
// docs/performance.md, "the trunk's inputs fetched ahead by the idle warps"). In
// algo::SubtreeParallel one warp per block walks the trunk (subtree_parallel_kernel.hpp, step 2)
// while the block's other warps wait at the barrier: for batches too small to fill the GPU the
// trunk's chain of dependent loads sets the time (AA0013's 757-row path). With the experiment's
// patch (docs/experiments/hines_trunk_lookahead.patch) the waiting warps prefetch the trunk's
// rows a fixed number of steps ahead of the walking warp, which publishes its position in team
// scratch; TRIDIAG_TRUNK_LOOKAHEAD (steps, 0 = off) and TRIDIAG_TRUNK_L1 (1: prefetch into L1,
// else L2) are read at every hines::solve.
// Cells from the SWC files (perf_tests' discretisation: the six size classes, the 11 shared cells
// at the default settings), random diagonally dominant values (hines_driver_common.hpp), median
// of 9 after a warm-up, checksums of x (equal for every setting: no setting may change a bit).
// Build (development machine):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<build>/include -I<kokkos>/include
//     --expt-extended-lambda --expt-relaxed-constexpr -fopenmp hines_trunk_lookahead_driver.cpp
//     -o drv_trunk -L<build> -ltridiag -L<kokkos>/lib -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_trunk SWC_DIR "0:0 16:1 32:1 64:1 32:0" (settings lookahead:l1); ./drv_trunk SWC_DIR profile:
// AA0013 at 1,000 neurons only (for Nsight Compute)
#include "hines_driver_common.hpp"

#include <cstdlib>
#include <sstream>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

namespace {
std::vector<int> cell_parents(const std::string& path, double max_length_um) {
  hines::DiscretizationOptions o;
  if (max_length_um > 0) o.max_length_um = max_length_um;
  return hines::discretize(hines::load_swc(path), o).parent;
}

struct Named {
  std::string name;
  std::vector<int> parent;
};

/// Grouped batch of `cells` (largest first, as Grouping::by_morphology stores them), N / C each.
double mixed(const char* what, const std::vector<Named>& cells, index_type N, double copy) {
  std::vector<std::vector<int>> parents;
  for (const auto& c : cells) parents.push_back(c.parent);
  const int C = static_cast<int>(parents.size());
  const auto morph = hines::make_morphologies<Mem>(parents);
  Kokkos::View<int*, Mem> ids("ids", N);
  auto h = Kokkos::create_mirror_view(ids);
  index_type real = 0;
  for (index_type s = 0; s < N; ++s) {
    h(s) = int(s * C / N);
    real += parents[h(s)].size();
  }
  Kokkos::deep_copy(ids, h);
  using SP = hines::algo::SubtreeParallel;
  return run<layouts::Interleaved>(what, morph, ids, N, real, copy, SP{0, false});
}

double alone(const Named& c, index_type N, double copy) {
  const auto morph = hines::make_morphologies<Mem>({c.parent});
  const Kokkos::View<int*, Mem> none;
  const index_type real = N * morph.rows();
  const std::string a = c.name + " SP auto Interleaved", b = c.name + " Automatic Interleaved";
  const double t1 = run<layouts::Interleaved>(a.c_str(), morph, none, N, real, copy, hines::algo::SubtreeParallel{0, false});
  const double t2 = run<layouts::Interleaved>(b.c_str(), morph, none, N, real, copy, hines::algo::Automatic{false});
  return std::min(t1, t2);
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const std::string dir = argv[1];
    std::vector<std::string> settings;
    {
      std::istringstream in(argc > 2 ? argv[2] : "0:0 32:1");
      for (std::string s; in >> s;) settings.push_back(s);
    }
    std::vector<Named> classes;  // largest first
    for (int k = 5; k >= 0; --k) {
      const auto& c = hines::seed_size_classes[k];
      classes.push_back({c.name, cell_parents(dir + "/" + c.shared_file, c.max_length_um)});
    }
    const char* shared_files[] = {"10-2012-02-09-001.CNG.swc", "AA0013.swc", "BG001.CNG.swc",
                                  "C080400A3.CNG.swc", "C220498B-I4.CNG.swc", "HSN-fluoro01.CNG.swc",
                                  "HSN-fluoro02.CNG.swc", "control-1-wt.CNG.swc", "mp_ma_40984_gc2.CNG.swc",
                                  "nrn_ordering.swc", "tc200.CNG.swc"};
    std::vector<Named> shared;
    for (const char* f : shared_files) shared.push_back({f, cell_parents(dir + "/" + f, 0)});
    std::stable_sort(shared.begin(), shared.end(),
                     [](const Named& u, const Named& v) { return u.parent.size() > v.parent.size(); });
    Named aa0013;
    for (const auto& c : shared)
      if (c.name == "AA0013.swc") aa0013 = c;
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    const index_type N = 25600;
    if (settings.size() == 1 && settings[0] == "profile") {  // for Nsight Compute: AA0013, 1,000 neurons
      alone(aa0013, 1000, copy);
      settings.clear();
    }
    for (const std::string& setting : settings) {
      const auto colon = setting.find(':');
      setenv("TRIDIAG_TRUNK_LOOKAHEAD", setting.substr(0, colon).c_str(), 1);
      setenv("TRIDIAG_TRUNK_L1", colon == std::string::npos ? "0" : setting.substr(colon + 1).c_str(), 1);
      printf("#### lookahead %s\n", setting.c_str());
      alone(aa0013, 2327, copy);
      alone(aa0013, 1000, copy);
      alone(classes[0], 4267, copy);  // big-high, its share of the six classes' mix
      double sum6 = 0, sum11 = 0;
      for (const auto& c : classes) sum6 += alone(c, N, copy) / classes.size();
      const double mix6 = mixed("mixed6 grouped SP auto Interleaved", classes, N, copy);
      printf("six classes at %lld: alone %.4f ms, mixed %.4f ms, ratio %.3f (SubtreeParallel/Automatic singles)\n",
             (long long)N, sum6 * 1e3, mix6 * 1e3, sum6 / mix6);
      for (const auto& c : shared) sum11 += alone(c, N, copy) / shared.size();
      const double mix11 = mixed("shared11 grouped SP auto Interleaved", shared, N, copy);
      printf("11 shared cells at %lld: alone %.4f ms, mixed %.4f ms, ratio %.3f\n", (long long)N, sum11 * 1e3,
             mix11 * 1e3, sum11 / mix11);
    }
  }
  Kokkos::finalize();
  return 0;
}
