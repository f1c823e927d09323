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
#include "hines_trunk_cells.hpp"

#include <cstdlib>
#include <sstream>


int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    std::vector<std::string> settings = settings_of(argc, argv, "0:0 32:1");
    const TrunkCells cells = trunk_cells(argv[1]);
    const double copy = copy_bandwidth();
    const index_type N = 25600;
    profile_if_asked(settings, cells, copy);
    for (const std::string& setting : settings) {
      const auto colon = setting.find(':');
      setenv("TRIDIAG_TRUNK_LOOKAHEAD", setting.substr(0, colon).c_str(), 1);
      setenv("TRIDIAG_TRUNK_L1", colon == std::string::npos ? "0" : setting.substr(colon + 1).c_str(), 1);
      printf("#### lookahead %s\n", setting.c_str());
      time_trunk_batches(cells, N, copy);
    }
  }
  Kokkos::finalize();
  return 0;
}
