// GoogleTest main for every tridiag unit-test binary: initialises Kokkos once, unless the build
// targets a GPU and this machine has none; then every test skips with the reason printed.

#include <cstdio>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {
bool kokkos_ready = false;
const char* skip_reason = "";
}  // namespace

bool kokkos_available() { return kokkos_ready; }
const char* kokkos_unavailable_reason() { return skip_reason; }

bool device_present() {
#if defined(KOKKOS_ENABLE_CUDA)
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  return true;
#endif
}
}  // namespace tridiag::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Listing tests (CTest discovery) must work on any machine: do not touch Kokkos for it.
  const bool listing = ::testing::GTEST_FLAG(list_tests);
  if (!listing) {
    if (tridiag::test::device_present()) {
      Kokkos::initialize(argc, argv);
      tridiag::test::kokkos_ready = true;
    } else {
      tridiag::test::skip_reason = "this binary was built for a CUDA GPU and this machine has none";
      std::printf("[tridiag] %s: every test skips\n", tridiag::test::skip_reason);
    }
  }
  const int result = RUN_ALL_TESTS();
  if (tridiag::test::kokkos_ready) Kokkos::finalize();
  return result;
}
