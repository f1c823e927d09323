// Driver of the wide-team mix experiment of issue 6 (not part of the library; results in
// docs/performance.md, "the largest cells' blocks with 12 warps in a mixed batch"). Built against
// the library's headers with docs/experiments/hines_wide_mix.patch, whose TRIDIAG_EXP_WIDE="W:R"
// (read when a plan is built) gives the automatic plan's largest g (8 at 25,600 neurons) W warps
// for blocks of cells of at least R rows, W / 2 for the other blocks of that g, in teams of W
// warps: with W = 12, two teams per multiprocessor at 72 registers, so that a block of the
// largest cell gets half a multiprocessor's warps instead of a third (three teams of 8). For each
// setting of argv[2] ("off" or W:R, e.g. "off 12:1000 12:0"): the six classes and the 11 shared
// cells grouped at 25,600 neurons, SubtreeParallel without the pad rows (the 11 cells also with
// split_path 64), with issue 6's strict ratios against the single cells at 25,600 (timed once).
// Random diagonally dominant values (hines_driver_common.hpp), median of 9 after a warm-up; the
// checksums of x must not depend on the setting (no split) or differ by rounding only (split).
// Build: as hines_wide_auto_driver.cpp, against the patched headers. Run: ./drv_mix SWC_DIR "off 12:1000"
#include "hines_trunk_cells.hpp"

#include <cstdlib>

namespace {
double grouped(const char* name, const std::vector<Named>& cells, index_type N, index_type split, double copy) {
  const MixedBatch m = mixed_batch(cells, N);
  return run<layouts::Interleaved>(name, m.morph, m.ids, N, m.real, copy, hines::algo::SubtreeParallel{0, false, split, 0});
}
}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const TrunkCells cells = trunk_cells(argv[1]);
    const std::vector<std::string> settings = settings_of(argc, argv, "off 12:1000 12:0");
    const double copy = copy_bandwidth();
    printf("copy %.0f GB/s\n", copy);
    const index_type N = 25600;
    unsetenv("TRIDIAG_EXP_WIDE");
    double sum6 = 0, sum11 = 0;
    for (const auto& c : cells.classes) sum6 += alone(c, N, copy) / cells.classes.size();
    for (const auto& c : cells.shared) sum11 += alone(c, N, copy) / cells.shared.size();
    for (const std::string& setting : settings) {
      if (setting == "off")
        unsetenv("TRIDIAG_EXP_WIDE");
      else
        setenv("TRIDIAG_EXP_WIDE", setting.c_str(), 1);
      printf("#### setting %s\n", setting.c_str());
      const double t6 = grouped("six classes grouped SP", cells.classes, N, 0, copy);
      const double t11 = grouped("11 cells grouped SP", cells.shared, N, 0, copy);
      const double t11s = grouped("11 cells grouped SP split", cells.shared, N, 64, copy);
      printf("setting %s: six classes %.4f ms, strict ratio %.3f; 11 cells %.4f / split %.4f ms, strict ratio %.3f\n",
             setting.c_str(), t6 * 1e3, sum6 / t6, t11 * 1e3, t11s * 1e3, sum11 / std::min(t11, t11s));
    }
  }
  Kokkos::finalize();
  return 0;
}
