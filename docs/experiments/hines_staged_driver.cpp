// Driver behind issue 6's on-chip staging study (docs/performance.md, "Issue 6: keeping the
// eliminated entries on chip"; not part of the library). Needs the library's headers with
// docs/experiments/hines_staged_per_neuron.patch applied (algo::StagedPerNeuron; a software-
// pipelined sweep under -DTRIDIAG_STAGED_PIPELINE=D; SubtreeParallel staging its first K rows under
// -DTRIDIAG_SUBTREE_STAGED_ROWS=K). Times hines::solve on a CUDA device for N copies of each cell
// whose Hines parent array is given (one file each: the row count, then parent(i) per line), random
// diagonally dominant values, median of 9 after a warm-up; prints % of copy bandwidth in useful
// bytes (5 values per row) and a checksum of x, equal for every kernel and build (bitwise results).
// Build as docs/experiments/hines_subtree_driver.cpp (hines_driver_common.hpp beside it). Modes (the configurations of each run):
//   ./drv staged N cells...     PerNeuron; StagedPerNeuron, teams of 32/64/128, 0/16/32/48 rows
//   ./drv pipelined N cells...  PerNeuron; StagedPerNeuron with the configurations of the pipelined run
//   ./drv subtree N cells...    PerNeuron; SubtreeParallel with 1, 2, 4, 8 warps and automatic
#include "hines_driver_common.hpp"

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
