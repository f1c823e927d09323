// tridiag::compat: what the library asks of the execution space it runs on.

#include <tridiag/core/kokkos_compat.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

class GpuFacts : public KokkosTest {};

void expect_unknown(const compat::GpuFacts& facts) {
  EXPECT_EQ(facts.multiprocessors, 0);
  EXPECT_EQ(facts.threads_per_multiprocessor, 0);
  EXPECT_EQ(facts.blocks_per_multiprocessor, 0);
  EXPECT_EQ(facts.shared_per_multiprocessor, 0u);
  EXPECT_EQ(facts.shared_reserved_per_block, 0u);
}

TEST_F(GpuFacts, AreUnknownOnHostSpaces) {
  expect_unknown(compat::gpu_facts(Kokkos::Serial()));
#if defined(KOKKOS_ENABLE_OPENMP)
  expect_unknown(compat::gpu_facts(Kokkos::OpenMP()));
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
TEST_F(GpuFacts, AreTheRuntimesAndStayTheSameAcrossCalls) {
  int device = -1;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  int multiprocessors = 0, threads = 0, blocks = 0, shared = 0, reserved = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), cudaSuccess);
  // The first call asks the runtime, the later ones answer from the per-device cache.
  for (int call = 0; call < 3; ++call) {
    const compat::GpuFacts facts = compat::gpu_facts(Kokkos::Cuda());
    EXPECT_EQ(facts.multiprocessors, multiprocessors) << "call " << call;
    EXPECT_EQ(facts.threads_per_multiprocessor, threads) << "call " << call;
    EXPECT_EQ(facts.blocks_per_multiprocessor, blocks) << "call " << call;
    EXPECT_EQ(facts.shared_per_multiprocessor, static_cast<std::size_t>(shared)) << "call " << call;
    EXPECT_EQ(facts.shared_reserved_per_block, static_cast<std::size_t>(reserved)) << "call " << call;
  }
  EXPECT_GT(multiprocessors, 0);
  EXPECT_GT(shared, 0);
}
#endif

}  // namespace
}  // namespace tridiag::test
