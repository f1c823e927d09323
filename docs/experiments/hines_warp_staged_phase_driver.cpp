// Experiment helper (not part of the library): WarpStaged's time per phase on the device, with
// the kernel of docs/experiments/hines_warp_staged_phases.patch (clock64 per warp; switches there):
// the median of 9 timed solves by wall clock (fence) and by CUDA events, then one solve with the
// clocks on, their mean per warp. 256,000 copies of one cell, random diagonally dominant values
// (hines_driver_common.hpp), Interleaved and BlockInterleaved<8>.
// Build (development machine, CUDA Kokkos; PATCHED: 043409d's headers with the patch applied,
// laid out as PATCHED/tridiag/algorithms/hines/*.hpp):
//   nvcc_wrapper -std=c++17 -O3 -arch=sm_90 -IPATCHED -I<repo>/docs/experiments -I<build>/include
//     -I<kokkos>/include --expt-extended-lambda --expt-relaxed-constexpr -fopenmp [-DWS_...]
//     hines_warp_staged_phase_driver.cpp -o drv_VARIANT -L<kokkos>/lib -lkokkoscore
//     -lkokkoscontainers -ldl
// Run: ./drv_VARIANT 256000 c0.txt (c0.txt as in hines_warp_staged_library_driver.cpp).
#include "hines_driver_common.hpp"

template <class Layout>
void phases(const char* what, const hines::Morphologies<Mem>& morph, index_type N, double copy) {
  RandomBatch<Layout> problem(morph, {}, N);
  const Exec exec;
  const double t = median_seconds([&] { problem.solve(exec, hines::algo::WarpStaged{}); }, 9);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ev;
  for (int r = 0; r < 9; ++r) {
    cudaEventRecord(e0, exec.cuda_stream());
    problem.solve(exec, hines::algo::WarpStaged{});
    cudaEventRecord(e1, exec.cuda_stream());
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    ev.push_back(ms);
  }
  std::sort(ev.begin(), ev.end());
  const double te = ev[4] * 1e-3;
  int on = 1;
  cudaMemcpyToSymbol(tridiag::hines::impl::ws_phases_on, &on, sizeof(int));
  std::vector<long long> h(6 * 40000, 0);
  cudaMemcpyToSymbol(tridiag::hines::impl::ws_phases, h.data(), h.size() * 8);
  problem.solve(exec, hines::algo::WarpStaged{});
  Kokkos::fence();
  cudaMemcpyFromSymbol(h.data(), tridiag::hines::impl::ws_phases, h.size() * 8);
  on = 0;
  cudaMemcpyToSymbol(tridiag::hines::impl::ws_phases_on, &on, sizeof(int));
  double mean[5] = {0, 0, 0, 0, 0};
  long cnt = 0;
  for (int w = 0; w < 40000; ++w)
    if (h[6 * w + 5]) {
      ++cnt;
      for (int q = 0; q < 5; ++q) mean[q] += h[6 * w + q];
    }
  const double useful = 5.0 * 8 * N * morph.rows();
  printf("%-24s wall %.4f ms %.1f%%, events %.4f ms %.1f%%; cycles per warp (%ld warps): staging %.0f elim %.0f subst %.0f store %.0f status %.0f\n",
         what, t * 1e3, useful / t / 1e9 / copy * 100, te * 1e3, useful / te / 1e9 / copy * 100, cnt, mean[0] / cnt, mean[1] / cnt, mean[2] / cnt, mean[3] / cnt,
         mean[4] / cnt);
}

int main(int argc, char** argv) {
  return for_each_cell(argc, argv, [](const std::vector<int>&, const hines::Morphologies<Mem>& morph, index_type N, double copy) {
    phases<layouts::Interleaved>("WarpStaged Interleaved", morph, N, copy);
    phases<layouts::BlockInterleaved<8>>("WarpStaged BI8", morph, N, copy);
  });
}
