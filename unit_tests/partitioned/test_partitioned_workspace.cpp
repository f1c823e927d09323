// partitioned::Workspace and partitioned::workspace_bytes: a solve given a workspace of the size
// workspace_bytes names allocates nothing and gives the bits of a solve without one; a workspace
// that is too small or overlaps the solve's vectors is rejected before anything is written.

#include <cstring>
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>

#include "allocation_counter.hpp"
#include "thomas/thomas_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class PartitionedWorkspace : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Flat, layouts::BlockInterleaved<32>>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedWorkspace, Configs, ConfigNames);

/// The three kinds of solve that need a workspace: split across the device (recursively, in
/// chunks of 8 rows, down to a team solve), split in chunks of 3 rows (more levels), and the team
/// kernel with its chunks in a global workspace; and the automatic plan.
std::vector<std::pair<std::string, partitioned::Options>> workspace_variants() {
  std::vector<std::pair<std::string, partitioned::Options>> v;
  partitioned::Options split;
  split.split = partitioned::Options::Split::always;
  v.emplace_back("split, chunks of 8", split);
  split.split_chunk_rows = 3;
  v.emplace_back("split, chunks of 3", split);
  partitioned::Options chunks;
  chunks.split = partitioned::Options::Split::never;
  chunks.chunk_storage = partitioned::Options::ChunkStorage::workspace;
  v.emplace_back("chunks in workspace", chunks);
  v.emplace_back("automatic", partitioned::Options{});
  return v;
}

TYPED_TEST(PartitionedWorkspace, GivesTheSameBitsAndAllocatesNothing) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  for (const auto& variant : workspace_variants()) {
    const std::string& name = variant.first;  // (no structured bindings: lambdas capture them only from C++20)
    const partitioned::Options& opts = variant.second;
    for (index_type n : {40, 1000, 5003}) {
      const auto h = make_host_batch<S>(3, n, MatrixKind::diagonally_dominant, test_seed() + n);
      const auto label = name + ", n = " + std::to_string(n);
      SolvedBatch<S> reference;
      int allocations_without = 0;
      {
        reference = solve_poisoned<TypeParam>(h, [&](const auto& e, const auto& matrix, const auto& rhs, const auto& x,
                                                     const auto& status) {
          // The second of two solves (allocation_counter.hpp).
          partitioned::solve(e, matrix, rhs, x, status, opts);
          e.fence();
          const AllocationCounter inner;
          partitioned::solve(e, matrix, rhs, x, status, opts);
          e.fence();
          allocations_without = inner.count();
        });
      }
      for (int code : reference.status) ASSERT_EQ(code, 0) << label;
      expect_matches_oracle(h, reference.x, label);

      auto sys = upload_system<TypeParam>(h);
      const std::size_t bytes = partitioned::workspace_bytes(exec, sys.matrix, sys.rhs, opts);
      // One buffer when the solve needs any (not one per level), none when it needs none.
      EXPECT_EQ(allocations_without, bytes > 0 ? 1 : 0) << label << ", " << bytes << " bytes";
      // Any alignment: a buffer one byte off the allocation's start.
      const partitioned::Workspace<M> buffer("buffer", bytes + 1);
      const partitioned::Workspace<M> workspace(Kokkos::subview(buffer.storage(), std::make_pair<std::size_t>(1, bytes + 1)));
      for (int call = 0; call < 2; ++call) {  // reused: nothing of one call is read by the next
        const auto r = solve_poisoned<TypeParam>(h, [&](const auto& e, const auto& matrix, const auto& rhs,
                                                        const auto& x, const auto& status) {
          const AllocationCounter counter;
          partitioned::solve(e, matrix, rhs, x, status, opts, workspace);
          e.fence();
          EXPECT_EQ(counter.count(), 0) << label << ": the solve allocated with a workspace of " << bytes << " bytes";
        });
        EXPECT_EQ(r.status, reference.status) << label;
        ASSERT_EQ(r.x.size(), reference.x.size());
        EXPECT_EQ(std::memcmp(r.x.data(), reference.x.data(), r.x.size() * sizeof(S)), 0) << label << ", call " << call;
      }
      if (this->HasFailure()) return;
    }
  }
}

TYPED_TEST(PartitionedWorkspace, TooSmallOrOverlappingIsRejectedBeforeWriting) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using Vector = BatchVector<S, L, M>;
  typename TypeParam::exec exec;
  const index_type systems = 3, n = 1000;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const index_type span = L(systems, n).required_span();
  for (const auto& variant : workspace_variants()) {
    const std::string& name = variant.first;  // (no structured bindings: lambdas capture them only from C++20)
    const partitioned::Options& opts = variant.second;
    const auto probe = upload_system<TypeParam>(h);
    const std::size_t bytes = partitioned::workspace_bytes(exec, probe.matrix, probe.rhs, opts);
    if (bytes == 0) continue;  // the automatic plan on a GPU: register chunks, nothing to reject
    // A workspace one byte short, then a large enough one whose first bytes hold x, the
    // right-hand side, the diagonal or the status: each is written by the solve or read after the
    // workspace is.
    for (const std::string victim : {"", "x", "rhs", "the matrix's diagonal", "status"}) {
      const partitioned::Workspace<M> pool("pool", static_cast<std::size_t>(span) * sizeof(S) + bytes);
      const auto on_pool = [&] {
        return Vector(typename Vector::storage_type(reinterpret_cast<S*>(pool.data()), span), L(systems, n));
      };
      auto sys = upload_system<TypeParam>(h);
      Vector x("x", systems, n);
      StatusView<M> status("status", systems);
      if (victim == "x") x = on_pool();
      if (victim == "rhs") upload(h.d, sys.rhs = on_pool());
      if (victim == "the matrix's diagonal") upload(h.b, sys.matrix.diag = on_pool());
      if (victim == "status") status = StatusView<M>(reinterpret_cast<int*>(pool.data()), systems);
      fill_storage(x, nan_of<S>());
      Kokkos::deep_copy(status, -999);
      const auto workspace = victim.empty() ? partitioned::Workspace<M>("small", bytes - 1) : pool;
      const std::string label = name + (victim.empty() ? ", one byte short" : ", over " + victim);
      expect_invalid_argument([&] { partitioned::solve(exec, sys.matrix, sys.rhs, x, status, opts, workspace); },
                              victim.empty() ? "(partitioned::workspace_bytes)" : "workspace shares storage with " + victim);
      for (S v : download(x)) ASSERT_TRUE(v != v) << label << ": x written";
      auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(st(s), -999) << label << ": status written";
    }
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(PartitionedWorkspace, EmptyBatchesNeedNone) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  for (auto [systems, n] : {std::pair<index_type, index_type>{0, 1000}, {3, 0}}) {
    auto sys = allocate_system<L, S, M>("e", systems, n);
    for (const auto& variant : workspace_variants())
      EXPECT_EQ(partitioned::workspace_bytes(exec, sys.matrix, sys.rhs, variant.second), 0u)
          << variant.first << ", " << systems << " x " << n;
  }
}

}  // namespace
}  // namespace tridiag::test
