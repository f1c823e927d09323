// Probe of tridiag::deep_copy between scalar types across memory spaces (a review, 2026-11-27),
// run on the H100 at 8fb655a: output in docs/results/h100_deep_copy_probe_8fb655a.txt. Built with
//   .deps/install-cuda-sm_90/bin/nvcc_wrapper -std=c++17 -O2 -arch=sm_90 -Ibuild-cuda-local-sm_90/include \
//     -isystem .deps/install-cuda-sm_90/include --expt-extended-lambda -Xcompiler -fopenmp \
//     docs/experiments/deep_copy_probe.cpp -L.deps/install-cuda-sm_90/lib -lkokkoscore -ldl
#include <tridiag/core/tridiagonal_batch.hpp>
#include <cstdio>
using namespace tridiag;
#define TRY(label, expr) do { try { expr; std::printf("%s: no throw\n", label); } catch (const tridiag::invalid_argument& e) { std::printf("%s: threw tridiag::invalid_argument: %s\n", label, e.what()); } catch (const std::exception& e) { std::printf("%s: threw (not tridiag::invalid_argument) %s\n", label, e.what()); } } while (0)
int main(int argc, char** argv) {
  Kokkos::ScopeGuard g(argc, argv);
  using H = Kokkos::HostSpace;
  using D = Kokkos::CudaSpace;
  BatchVector<double, layouts::Flat, H> hd("hd", 3, 4);
  hd(2, 3) = 7.5;
  BatchVector<float, layouts::Flat, D> df("df", 3, 4);
  BatchVector<double, layouts::Flat, D> dd("dd", 3, 4);
  TRY("deep_copy(device double <- host double), Flat", tridiag::deep_copy(dd, hd));
  TRY("deep_copy(device float <- host double), Flat", tridiag::deep_copy(df, hd));
  auto back = create_host_copy(df);
  std::printf("  df(2,3) on host = %g\n", back(2, 3));
  BatchVector<float, layouts::Flat, H> hf("hf", 3, 4);
  TRY("deep_copy(host float <- device double), Flat", tridiag::deep_copy(hf, dd));
  std::printf("  hf(2,3) = %g\n", hf(2, 3));
  // Packed Unified-Vector: the element path converts.
  auto hs = allocate_system<layouts::UnifiedVector, double, H>("hs", 3, 4);
  hs.rhs(2, 3) = 7.5;
  auto ds = allocate_system<layouts::UnifiedVector, float, D>("ds", 3, 4);
  TRY("deep_copy(device float packed rhs <- host double packed rhs)", tridiag::deep_copy(ds.rhs, hs.rhs));
  std::printf("  ds.rhs(2,3) on host = %g\n", create_host_copy(ds.rhs)(2, 3));
  return 0;
}
