// Experiment helper (not part of the library): times the library's algo::WarpStaged against
// PerNeuron on copies of one cell, random diagonally dominant values (hines_driver_common.hpp),
// Interleaved and BlockInterleaved<8>; with Nsight Compute, the kernel's instruction counts
// (docs/performance.md, "the 107-row cells at 256,000 and 25,600 neurons").
// Build (development machine, CUDA Kokkos from scripts/deps/build_kokkos.sh --backend cuda):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -I<build>/include -I<kokkos>/include
//     --expt-extended-lambda --expt-relaxed-constexpr -fopenmp hines_warp_staged_library_driver.cpp
//     -o drv_lib -L<kokkos>/lib -lkokkoscore -lkokkoscontainers -ldl
// Run: ./drv_lib 256000 c0.txt (a parent file: the row count, then parent(i) per line; c0.txt is
// the 107-row size class, the first 108 lines of `cell_dump mp_ma_40984_gc2.CNG.swc 32.0 4`,
// git show a9acf97:docs/experiments/hines_cell_dump.cpp).
#include "hines_driver_common.hpp"

int main(int argc, char** argv) {
  return for_each_cell(argc, argv, [](const std::vector<int>&, const hines::Morphologies<Mem>& morph, index_type N,
                                      double copy) {
    const index_type n = morph.rows();
    run<layouts::Interleaved>("PerNeuron Interleaved", morph, {}, N, N * n, copy, hines::algo::PerNeuron{});
    run<layouts::Interleaved>("WarpStaged Interleaved", morph, {}, N, N * n, copy, hines::algo::WarpStaged{});
    run<layouts::BlockInterleaved<8>>("WarpStaged BI8", morph, {}, N, N * n, copy, hines::algo::WarpStaged{});
  });
}
