// partitioned::solve_ragged: variable batches in offset-indexed storage (no padding), against the
// oracle system by system; empty and single-row systems mixed in; every split of the launch;
// bitwise equal to partitioned::solve when all systems have one size; failures reported per system;
// a workspace of ragged_workspace_bytes keeps the solve from allocating.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>
#include <tridiag/layouts/variable_batch.hpp>

#include "allocation_counter.hpp"
#include "partitioned/overflow_checks.hpp"
#include "thomas/thomas_checks.hpp"
#include "thomas/variable_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class PartitionedRagged : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedRagged, Configs, ConfigNames);

/// A variable batch: the first sizes[s] rows of each system of h, in ragged device storage.
template <class C>
struct RaggedBatch {
  using S = typename C::scalar;
  using V = layouts::RaggedVector<S, typename C::memory>;
  std::vector<index_type> sizes;
  index_type nmax;
  typename V::offsets_type offsets;
  V a, b, c, d, x;
  StatusView<typename C::memory> status;
  RaggedBatch(const HostBatch<S>& h, const std::vector<index_type>& sizes_)
      : sizes(sizes_), nmax(h.rows), offsets(layouts::make_offsets<typename C::memory>(sizes_)), a("a", offsets),
        b("b", offsets), c("c", offsets), d("d", offsets), x("x", offsets), status("status", h.systems) {
    upload_ragged(h.a, sizes, nmax, a);
    upload_ragged(h.b, sizes, nmax, b);
    upload_ragged(h.c, sizes, nmax, c);
    upload_ragged(h.d, sizes, nmax, d);
  }
  /// Solves with x poisoned and the status at -999 first; returns x as a padded flat host array.
  std::vector<S> solve(const partitioned::Options& opts) {
    Kokkos::deep_copy(x.storage(), std::numeric_limits<S>::quiet_NaN());
    Kokkos::deep_copy(status, -999);
    typename C::exec exec;
    partitioned::solve_ragged(exec, a, b, c, d, x, status, opts);
    exec.fence();
    return download_ragged(x, sizes, nmax);
  }
  std::vector<int> statuses() const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    return std::vector<int>(h.data(), h.data() + h.extent(0));
  }
};

TYPED_TEST(PartitionedRagged, MatchesOracleForEverySplit) {
  using S = typename TypeParam::scalar;
  const int max_team = max_team_size<typename TypeParam::exec>();
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TypeParam::memory>::accessible;
  for (index_type nmax : {5, 100, 512}) {
    const index_type systems = 77;
    const auto sizes = random_sizes(systems, 1, nmax, test_seed() + nmax);  // with an empty and a 1-row system
    const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + nmax);
    RaggedBatch<TypeParam> batch(h, sizes);
    for (int P : {0, 1, 2, 16, 64}) {
      if (P > max_team || (P > 0 && P > std::max<index_type>(1, nmax / 2))) continue;
      for (auto staging : {partitioned::Options::Staging::automatic, partitioned::Options::Staging::scratch}) {
        partitioned::Options opts;
        opts.threads_per_system = P;
        opts.staging = staging;
        if (staging == partitioned::Options::Staging::scratch) opts.chunk_storage = partitioned::Options::ChunkStorage::registers;
        // Chunks longer than 16 rows do not fit in registers; GPUs solve variable batches only so.
        const index_type threads =
            P > 0 ? P : partitioned::plan(typename TypeParam::exec(), systems, nmax, {}, sizeof(S), sizeof(S)).threads_per_system;
        const bool fits = (nmax + threads - 1) / threads <= 16;
        if ((opts.chunk_storage == partitioned::Options::ChunkStorage::registers || !host) && !fits) continue;
        const auto x = batch.solve(opts);
        const std::string what = "nmax " + std::to_string(nmax) + ", P " + std::to_string(P) + ", staging " +
                                 std::to_string(static_cast<int>(staging));
        expect_variable_solution(h, sizes, x, what);
        for (int code : batch.statuses()) ASSERT_EQ(code, 0) << what;
        if (this->HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(PartitionedRagged, OneSizeGivesTheBitsOfTheUniformSolve) {
  using S = typename TypeParam::scalar;
  const index_type systems = 50, n = 256;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  RaggedBatch<TypeParam> batch(h, std::vector<index_type>(systems, n));
  const auto ragged = batch.solve({});
  const auto uniform = solve_poisoned<TypeParam>(h, [](const auto& exec, const auto& matrix, const auto& rhs,
                                                       const auto& x, const auto& status) {
    partitioned::solve(exec, matrix, rhs, x, status);
  });
  ASSERT_EQ(ragged.size(), uniform.x.size());
  EXPECT_EQ(std::memcmp(ragged.data(), uniform.x.data(), ragged.size() * sizeof(S)), 0);
}

TYPED_TEST(PartitionedRagged, InPlaceGivesTheSameBits) {
  using S = typename TypeParam::scalar;
  const index_type systems = 40, nmax = 300;
  const auto sizes = random_sizes(systems, 100, nmax, test_seed() + 1);
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 1);
  RaggedBatch<TypeParam> batch(h, sizes);
  const auto reference = batch.solve({});
  typename TypeParam::exec exec;
  partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, batch.d);
  exec.fence();
  const auto in_place = download_ragged(batch.d, sizes, nmax);
  EXPECT_EQ(std::memcmp(in_place.data(), reference.data(), in_place.size() * sizeof(S)), 0);
}

TYPED_TEST(PartitionedRagged, FailedSystemsAreReportedAndNeighboursUntouched) {
  using S = typename TypeParam::scalar;
  const index_type systems = 30, nmax = 200;
  auto sizes = random_sizes(systems, 50, nmax, test_seed() + 2);
  sizes[5] = 120;
  sizes[9] = 80;
  auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 2);
  const auto clean = RaggedBatch<TypeParam>(h, sizes).solve({});
  h.at(h.a, 5, 60) = 0;  // a zero row: its pivot (or the interface row next to it) fails
  h.at(h.b, 5, 60) = 0;
  h.at(h.c, 5, 60) = 0;
  h.at(h.d, 9, 33) = std::numeric_limits<S>::quiet_NaN();
  RaggedBatch<TypeParam> batch(h, sizes);
  const auto x = batch.solve({});
  const auto status = batch.statuses();
  EXPECT_GT(status[5], 0);
  EXPECT_EQ(status[9], -34);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < sizes[s]; ++i) {
      if (s == 5 || s == 9) {
        EXPECT_TRUE(std::isnan(x[s * nmax + i])) << "system " << s << " row " << i;
      } else {
        ASSERT_EQ(status[s], 0) << "system " << s;
        ASSERT_EQ(x[s * nmax + i], clean[s * nmax + i]) << "neighbour " << s << " changed";
      }
    }
}

// An overflow confined to a chunk's inner rows (finite input, finite interface unknowns):
// status -1 (an overflow), x NaN on every row of the system, the others bitwise untouched. The
// failing system is the longest, so that it is cut into the plan's P chunks. Before, x held -Inf
// in that row with status 0.
TYPED_TEST(PartitionedRagged, OverflowInsideAChunkIsReported) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using Storage = partitioned::Options::ChunkStorage;
  using Staging = partitioned::Options::Staging;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename TypeParam::memory>::accessible;
  const int max_team = max_team_size<E>();
  struct Variant {
    index_type nmax;
    int P;  // 0: the plan's
    Storage storage;
    Staging staging;
  };
  const Variant variants[] = {{16, 1, Storage::registers, Staging::global},  {16, 1, Storage::registers, Staging::scratch},
                              {16, 1, Storage::workspace, Staging::automatic}, {16, 2, Storage::registers, Staging::global},
                              {16, 2, Storage::registers, Staging::scratch}, {16, 2, Storage::workspace, Staging::automatic},
                              {16, 3, Storage::registers, Staging::scratch}, {16, 4, Storage::registers, Staging::global},
                              {16, 4, Storage::workspace, Staging::automatic}, {100, 0, Storage::automatic, Staging::automatic},
                              {512, 0, Storage::automatic, Staging::automatic}, {512, 64, Storage::registers, Staging::global}};
  const index_type systems = 7, bad = 2;
  for (const auto& v : variants) {
    if (v.P > max_team || (!host && v.storage == Storage::workspace)) continue;
    partitioned::Options opts;
    opts.threads_per_system = v.P;
    opts.chunk_storage = v.storage;
    opts.staging = v.staging;
    const auto p = partitioned::plan(E(), systems, v.nmax, opts, sizeof(S), sizeof(S));
    if (!host && p.register_rows == 0) continue;
    const int P = p.threads_per_system;
    const index_type k = P > 1 ? v.nmax / P : 0, m = (P > 1 ? 2 * v.nmax / P : v.nmax) - k;
    const std::string what = "nmax " + std::to_string(v.nmax) + ", " + p.describe() + ", overflow in row " +
                             std::to_string(k + 1) + " of a " + std::to_string(m) + "-row chunk";
    ASSERT_GE(m, 3) << what;
    // An empty and a single-row system among them; the failing one is the longest.
    const std::vector<index_type> sizes{v.nmax - 3, 0, v.nmax, 1, v.nmax / 2, v.nmax, 5};
    auto h = make_host_batch<S>(systems, v.nmax, MatrixKind::diagonally_dominant, test_seed() + 7);
    const auto clean = RaggedBatch<TypeParam>(h, sizes).solve(opts);
    overflow_inside_a_chunk(h, bad, k);
    RaggedBatch<TypeParam> batch(h, sizes);
    const auto x = batch.solve(opts);
    const auto status = batch.statuses();
    EXPECT_EQ(status[bad], -1) << what;
    index_type finite_rows = 0;  // of the failing system (counted: every variant is tried)
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < sizes[s]; ++i) {
        if (s == bad) {
          finite_rows += std::isnan(x[s * v.nmax + i]) ? 0 : 1;
        } else {
          ASSERT_EQ(status[s], 0) << what << ", system " << s;
          ASSERT_EQ(x[s * v.nmax + i], clean[s * v.nmax + i]) << what << ": neighbour " << s << " changed";
        }
      }
    EXPECT_EQ(finite_rows, 0) << what << ": rows of the failing system that are not NaN";
  }
}

TYPED_TEST(PartitionedRagged, MismatchesAndSplitsAreRejected) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  auto offsets = layouts::make_offsets<M>({3, 4, 5});
  auto other = layouts::make_offsets<M>({3, 4, 5});
  // y: an x of its own (an x that is the matrix would be rejected for that instead).
  layouts::RaggedVector<S, M> a("a", offsets), x("x", other), y("y", offsets);
  typename TypeParam::exec exec;
  EXPECT_THROW(partitioned::solve_ragged(exec, a, a, a, a, x), tridiag::invalid_argument);
  StatusView<M> short_status("status", 2);
  expect_invalid_argument([&] { partitioned::solve_ragged(exec, a, a, a, a, y, short_status); }, "status has 2");
  partitioned::Options opts;
  opts.split = partitioned::Options::Split::always;
  expect_invalid_argument([&] { partitioned::solve_ragged(exec, a, a, a, a, y, {}, opts); }, "not split");
  // On a GPU a variable batch is solved with chunks in registers only: 100-row chunks are refused.
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    auto long_offsets = layouts::make_offsets<M>({100, 50});
    layouts::RaggedVector<S, M> l("l", long_offsets), lx("lx", long_offsets);
    opts = {};
    opts.threads_per_system = 1;
    EXPECT_THROW(partitioned::solve_ragged(exec, l, l, l, l, lx, {}, opts), tridiag::invalid_argument);
  }
}

// x may be rhs (in place: a chunk reads its rows of rhs before it writes them of x); an x that
// shares storage with a diagonal or overlaps rhs otherwise is rejected before anything is
// written. Before the check, x one scalar past rhs gave wrong results with status 0, and an x on
// a diagonal overwrote the matrix.
TYPED_TEST(PartitionedRagged, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using V = layouts::RaggedVector<S, typename TypeParam::memory>;
  const index_type systems = 20, nmax = 60;
  const auto sizes = random_sizes(systems, 10, nmax, test_seed() + 5);
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 5);
  RaggedBatch<TypeParam> batch(h, sizes);
  typename TypeParam::exec exec;
  const index_type total = batch.d.required_span();
  const typename V::storage_type both("both", total + 1);
  const V shifted_rhs(Kokkos::subview(both, std::make_pair(index_type(0), total)), batch.offsets);
  const V shifted_x(Kokkos::subview(both, std::make_pair(index_type(1), total + 1)), batch.offsets);
  const auto ragged = [&](const V& rhs, const V& out) {
    return [&, rhs, out] { partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, rhs, out); };
  };
  expect_invalid_argument(ragged(batch.d, batch.a), "x shares storage with the matrix's lower diagonal");
  expect_invalid_argument(ragged(batch.d, batch.b), "x shares storage with the matrix's diagonal");
  expect_invalid_argument(ragged(batch.d, batch.c), "x shares storage with the matrix's upper diagonal");
  expect_invalid_argument(ragged(shifted_rhs, shifted_x), "x overlaps rhs without being it");
  const auto expect_intact = [&](const V& v, const std::vector<S>& flat, const char* name) {
    const auto now = download_ragged(v, sizes, nmax);
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < sizes[s]; ++i) ASSERT_EQ(now[s * nmax + i], flat[s * nmax + i]) << name << " written";
  };
  expect_intact(batch.a, h.a, "lower");
  expect_intact(batch.b, h.b, "diag");
  expect_intact(batch.c, h.c, "upper");
  expect_intact(batch.d, h.d, "rhs");
  // In place still solves.
  partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, batch.d);
  expect_variable_solution(h, sizes, download_ragged(batch.d, sizes, nmax), "in place");
}

// A workspace of ragged_workspace_bytes (host spaces: the chunk coefficients; GPUs: none): the
// bits of a solve without one, no Kokkos allocation during the solve, reused across calls; one
// byte short, or over x, it is rejected before anything is written.
TYPED_TEST(PartitionedRagged, WorkspaceGivesTheSameBitsAndAllocatesNothing) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  const index_type systems = 60, nmax = 200;
  const auto sizes = random_sizes(systems, 1, nmax, test_seed() + 7);
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 7);
  RaggedBatch<TypeParam> batch(h, sizes);
  typename TypeParam::exec exec;
  std::vector<partitioned::Options> variants(1);
  const int threads = std::min(4, max_team_size<typename TypeParam::exec>());
  if (host && threads > 1) {  // chunks of 50-100 rows in the workspace (GPUs take register chunks only)
    variants.emplace_back();
    variants.back().threads_per_system = threads;
  }
  for (const auto& opts : variants) {
    const std::string what = "P " + std::to_string(opts.threads_per_system);
    const auto reference = batch.solve(opts);
    for (int code : batch.statuses()) ASSERT_EQ(code, 0) << what;
    expect_variable_solution(h, sizes, reference, what);
    int allocations_without = 0;
    {  // the second solve without a workspace (allocation_counter.hpp); no download counted
      const AllocationCounter without;
      partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, batch.x, batch.status, opts);
      exec.fence();
      allocations_without = without.count();
    }
    const std::size_t bytes = partitioned::ragged_workspace_bytes(exec, batch.b, batch.d, opts);
    EXPECT_EQ(bytes > 0, host) << what << ": " << bytes << " bytes";
    EXPECT_EQ(allocations_without, bytes > 0 ? 1 : 0) << what << ": one buffer per call without a workspace";
    // Any alignment: one byte off the allocation's start.
    const partitioned::Workspace<M> buffer("buffer", bytes + 1);
    const partitioned::Workspace<M> workspace(
        Kokkos::subview(buffer.storage(), std::make_pair<std::size_t>(1, bytes + 1)));
    for (int call = 0; call < 2; ++call) {
      Kokkos::deep_copy(batch.x.storage(), std::numeric_limits<S>::quiet_NaN());
      Kokkos::deep_copy(batch.status, -999);
      {
        const AllocationCounter counter;
        partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, batch.x, batch.status, opts, workspace);
        exec.fence();
        EXPECT_EQ(counter.count(), 0) << what << ": the solve allocated with a workspace of " << bytes << " bytes";
      }
      for (int code : batch.statuses()) ASSERT_EQ(code, 0) << what;
      const auto x = download_ragged(batch.x, sizes, nmax);
      ASSERT_EQ(x.size(), reference.size());
      EXPECT_EQ(std::memcmp(x.data(), reference.data(), x.size() * sizeof(S)), 0) << what << ", call " << call;
    }
    if (bytes == 0) continue;
    Kokkos::deep_copy(batch.x.storage(), std::numeric_limits<S>::quiet_NaN());
    Kokkos::deep_copy(batch.status, -999);
    const partitioned::Workspace<M> small("small", bytes - 1);
    expect_invalid_argument(
        [&] {
          partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, batch.x, batch.status, opts, small);
        },
        "(partitioned::ragged_workspace_bytes)");
    for (S v : download_ragged(batch.x, sizes, nmax)) ASSERT_TRUE(v != v) << what << ": x written";
    for (int code : batch.statuses()) ASSERT_EQ(code, -999) << what << ": status written";
    // Large enough, but x lies in its first bytes.
    using V = layouts::RaggedVector<S, M>;
    const index_type total = batch.x.required_span();
    const partitioned::Workspace<M> pool("pool", static_cast<std::size_t>(total) * sizeof(S) + bytes);
    const V x_on_pool(typename V::storage_type(reinterpret_cast<S*>(pool.data()), total), batch.offsets);
    Kokkos::deep_copy(x_on_pool.storage(), std::numeric_limits<S>::quiet_NaN());
    expect_invalid_argument(
        [&] {
          partitioned::solve_ragged(exec, batch.a, batch.b, batch.c, batch.d, x_on_pool, batch.status, opts, pool);
        },
        "workspace shares storage with x");
    for (S v : download_ragged(x_on_pool, sizes, nmax)) ASSERT_TRUE(v != v) << what << ": x written";
    for (int code : batch.statuses()) ASSERT_EQ(code, -999) << what << ": status written";
  }
}

template <class C>
class PartitionedRaggedLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedRaggedLongSystem, LongSystemConfigs, ConfigNames);

// A ragged batch whose longest system has more than INT_MAX rows, with a status View: a status
// code (an int row number) could not name its rows, and the solve went on (to allocate a workspace
// of 8 GiB on a host). Now rejected once the longest system is known, before any row is read (one
// system of 2^31 rows in float, storage mapped read-only without reserve, never touched). Device spaces skip
// (their register chunks take systems of up to 4,096 rows).
TYPED_TEST(PartitionedRaggedLongSystem, StatusOfSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  expect_ragged_status_beyond_int_max_rejected<typename TypeParam::memory>(
      [](const auto& matrix, const auto& rhs, const auto& status) {
        partitioned::solve_ragged(E(), matrix, matrix, matrix, rhs, rhs, status);
      });
}

}  // namespace
}  // namespace tridiag::test
