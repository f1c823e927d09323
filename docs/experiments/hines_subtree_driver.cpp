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
#include "hines_driver_common.hpp"

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
