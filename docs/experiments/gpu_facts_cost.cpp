// What compat::gpu_facts costs per call (not part of the library; docs/performance.md, "the GPU's
// facts asked once per device"). algo::Automatic on a flat Hines batch asks for them on every
// solve; before 4529bad that was cudaGetDevice and five cudaDeviceGetAttribute calls each time,
// now a lookup in a per-device cache. Times both, median of 9 rounds of 100,000 calls.
// Build (development machine):
//   nvcc_wrapper -std=c++17 -O2 -arch=sm_90 -I<build>/include -I<kokkos>/include
//     --expt-extended-lambda --expt-relaxed-constexpr -fopenmp gpu_facts_cost.cpp -o gpu_facts_cost
//     -L<kokkos>/lib -lkokkoscore -ldl
#include <tridiag/core/kokkos_compat.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

template <class F>
double median_ns_per_call(F f) {
  constexpr int calls = 100000;
  std::vector<double> rounds;
  for (int r = 0; r < 9; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f();
    rounds.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[4];
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    volatile int sink = 0;
    const Kokkos::Cuda exec;
    const double cached = median_ns_per_call([&] { sink = sink + tridiag::compat::gpu_facts(exec).multiprocessors; });
    const double asked = median_ns_per_call([&] {
      int device = 0;
      cudaGetDevice(&device);
      sink = sink + tridiag::compat::detail::query_gpu_facts(device).multiprocessors;
    });
    const auto f = tridiag::compat::gpu_facts(exec);
    printf("facts: %d multiprocessors, %d threads and %d blocks each, %zu bytes shared, %zu reserved per block\n",
           f.multiprocessors, f.threads_per_multiprocessor, f.blocks_per_multiprocessor, f.shared_per_multiprocessor,
           f.shared_reserved_per_block);
    printf("gpu_facts, per-device cache: %.1f ns per call\n", cached);
    printf("cudaGetDevice + five cudaDeviceGetAttribute (before 4529bad): %.1f ns per call\n", asked);
  }
  Kokkos::finalize();
  return 0;
}
