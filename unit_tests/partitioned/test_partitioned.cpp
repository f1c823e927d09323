// partitioned::solve (chunks + interface cyclic reduction) against the oracles, with chunk coefficients in
// registers and in workspace, several chunks per system, systems of 1 to 1,000,000 rows.

#include <climits>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>

#include "partitioned/overflow_checks.hpp"
#include "thomas/thomas_checks.hpp"
#include "unreserved_mapping.hpp"

namespace tridiag::test {
namespace {

template <class C>
class PartitionedSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Flat, layouts::Interleaved, layouts::BlockInterleaved<32>>,
                                 ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedSolve, Configs, ConfigNames);

using Storage = partitioned::Options::ChunkStorage;
using Staging = partitioned::Options::Staging;

template <class C>
SolvedBatch<typename C::scalar> solve_batch(const HostBatch<typename C::scalar>& h, const partitioned::Options& opts) {
  return solve_poisoned<C>(h, [&](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                  const auto& status) { partitioned::solve(exec, matrix, rhs, x, status, opts); });
}

TYPED_TEST(PartitionedSolve, MatchesOracleForEverySplit) {
  using S = typename TypeParam::scalar;
  const int max_team = max_team_size<typename TypeParam::exec>();
  for (index_type n : {1, 2, 3, 4, 5, 7, 16, 17, 31, 64, 100, 127, 512, 1000}) {
    for (int P : {0, 1, 2, 3, 7, 16, 64}) {
      if (P > max_team || (P > 0 && P > std::max<index_type>(1, n / 2))) continue;
      for (auto [storage, staging] : {std::pair{Storage::automatic, Staging::automatic},
                                       std::pair{Storage::registers, Staging::global},
                                       std::pair{Storage::registers, Staging::scratch},
                                       std::pair{Storage::workspace, Staging::automatic}}) {
        partitioned::Options opts;
        opts.threads_per_system = P;
        opts.systems_per_team = P > 0 ? std::max(1, max_team / std::max(P, 1) / 2) : 0;
        opts.chunk_storage = storage;
        opts.staging = staging;
        const index_type chunk = P > 0 ? (n + P - 1) / P : 0;
        if (storage == Storage::registers && (P == 0 || chunk > 16)) continue;
        for (index_type systems : {1, 37}) {
          if (staging == Staging::scratch) {
            // Forced staging of P threads' chunks can exceed a host team's 32 KiB of scratch (64
            // threads, 16 rows in double): plan() rejects it by name, as documented.
            try {
              (void)partitioned::plan(typename TypeParam::exec(), systems, n, opts, sizeof(S), sizeof(S));
            } catch (const tridiag::invalid_argument&) {
              continue;
            }
          }
          const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n + P);
          const auto r = solve_batch<TypeParam>(h, opts);
          for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n;
          expect_matches_oracle(h, r.x,
                                "n = " + std::to_string(n) + ", P = " + std::to_string(P) + ", storage " +
                                    std::to_string(static_cast<int>(storage)) + ", staging " +
                                    std::to_string(static_cast<int>(staging)));
          if (this->HasFailure()) return;
        }
      }
    }
  }
}

TYPED_TEST(PartitionedSolve, PoissonSystems) {
  using S = typename TypeParam::scalar;
  for (index_type n : {2, 3, 64, 511, 4096}) {
    const auto h = make_host_batch<S>(3, n, MatrixKind::poisson, test_seed() + n);
    const auto r = solve_batch<TypeParam>(h, {});
    for (int code : r.status) ASSERT_EQ(code, 0);
    expect_matches_oracle(h, r.x, "poisson, n = " + std::to_string(n));
  }
}

TYPED_TEST(PartitionedSolve, FailedSystemsAreReportedAndNeighboursUntouched) {
  using S = typename TypeParam::scalar;
  const int P = std::min(max_team_size<typename TypeParam::exec>(), 2);
  const index_type systems = 6;
  // Chunks in global workspace (n = 40; on a GPU the split solver, which Split::automatic takes
  // for workspace chunks), register chunks staged in team scratch (n = 16 P), and the automatic
  // plan for n = 512 (on a GPU: 8-row register chunks, 64 threads per system on paired warps in
  // double, 128 exchanging through team scratch in float; on host cores: workspace chunks).
  for (int variant : {0, 1, 2}) {
    const bool staged = variant == 1;
    const index_type n = variant == 0 ? 40 : variant == 1 ? 16 * P : 512;
    partitioned::Options opts;
    if (variant < 2) {
      opts.threads_per_system = P;
      opts.systems_per_team = 1;
    }
    if (staged) {
      opts.chunk_storage = Storage::registers;
      opts.staging = Staging::scratch;
    }
    auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
    const auto clean = solve_batch<TypeParam>(h, opts);
    const index_type zero_row = n * 3 / 4;  // a zero row: its pivot (or an interface row next to it) fails
    h.at(h.a, 1, zero_row) = 0;
    h.at(h.b, 1, zero_row) = 0;
    h.at(h.c, 1, zero_row) = 0;
    // A non-finite right-hand side in the last chunk: it spreads to every chunk's interface
    // solution, but the status must name its row, not an earlier chunk's.
    h.at(h.d, 4, n - 3) = std::numeric_limits<S>::infinity();
    const auto r = solve_batch<TypeParam>(h, opts);
    EXPECT_GT(r.status[1], 0) << "variant " << variant;
    EXPECT_EQ(r.status[4], -static_cast<int>(n - 2)) << "variant " << variant;
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < n; ++i) {
        if (s == 1 || s == 4) {
          EXPECT_TRUE(std::isnan(r.x[s * n + i])) << "system " << s << " row " << i << ", variant " << variant;
        } else {
          EXPECT_EQ(r.status[s], 0);
          EXPECT_EQ(r.x[s * n + i], clean.x[s * n + i]) << "neighbour " << s << " changed, variant " << variant;
        }
      }
  }
}

/// The first row of the second chunk of a system of n rows under plan p (the only one: row 0),
/// and that chunk's length.
inline std::pair<index_type, index_type> second_chunk(const partitioned::Plan& p, index_type n, int split_chunk_rows) {
  const index_type chunks = p.split ? (n + split_chunk_rows - 1) / split_chunk_rows : p.threads_per_system;
  if (chunks == 1) return {0, n};
  return {n / chunks, 2 * n / chunks - n / chunks};
}

// An overflow confined to a chunk's inner rows (finite input, finite interface unknowns) is
// reported as an overflow (-1) with x NaN on every row of the system, its neighbours bitwise
// untouched: register chunks staged or not, workspace chunks, 1 to 4 threads per system, the
// automatic plans (on a GPU: shuffles, paired warps, scratch exchange, the split kernel) and a
// forced split. Before, x held -Inf in that row with status 0: the inner rows were never checked.
TYPED_TEST(PartitionedSolve, OverflowInsideAChunkIsReported) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  const int max_team = max_team_size<E>();
  struct Variant {
    index_type n;
    int P;  // 0: the plan's
    Storage storage;
    Staging staging;
    int split_rows;  // > 0: Split::always with chunks of that many rows
  };
  const Variant variants[] = {
      {3, 1, Storage::workspace, Staging::automatic, 0},  {40, 1, Storage::workspace, Staging::automatic, 0},
      {12, 1, Storage::registers, Staging::global, 0},    {12, 1, Storage::registers, Staging::scratch, 0},
      {40, 2, Storage::workspace, Staging::automatic, 0}, {16, 2, Storage::registers, Staging::global, 0},
      {16, 2, Storage::registers, Staging::scratch, 0},   {30, 3, Storage::registers, Staging::global, 0},
      {30, 3, Storage::registers, Staging::scratch, 0},   {45, 3, Storage::workspace, Staging::automatic, 0},
      {64, 4, Storage::registers, Staging::scratch, 0},   {64, 4, Storage::workspace, Staging::automatic, 0},
      {64, 0, Storage::automatic, Staging::automatic, 0}, {512, 0, Storage::automatic, Staging::automatic, 0},
      {512, 64, Storage::registers, Staging::global, 0},  {1000, 0, Storage::automatic, Staging::automatic, 0},
      {5000, 0, Storage::automatic, Staging::automatic, 0}, {6, 0, Storage::automatic, Staging::automatic, 3},
      {200, 0, Storage::automatic, Staging::automatic, 8}, {1000, 0, Storage::automatic, Staging::automatic, 16}};
  const index_type systems = 5, bad = 2;
  for (const auto& v : variants) {
    if (v.P > max_team) continue;
    partitioned::Options opts;
    opts.threads_per_system = v.P;
    opts.chunk_storage = v.storage;
    opts.staging = v.staging;
    if (v.split_rows > 0) {
      opts.split = partitioned::Options::Split::always;
      opts.split_chunk_rows = v.split_rows;
    }
    const auto p = partitioned::plan(E(), systems, v.n, opts, sizeof(S), sizeof(S));
    const auto [k, m] = second_chunk(p, v.n, opts.split_chunk_rows);
    const std::string what = "n = " + std::to_string(v.n) + ", " + p.describe() + ", overflow in row " +
                             std::to_string(k + 1) + " of a " + std::to_string(m) + "-row chunk";
    ASSERT_GE(m, 3) << what;
    auto h = make_host_batch<S>(systems, v.n, MatrixKind::diagonally_dominant, test_seed() + v.n);
    const auto clean = solve_batch<TypeParam>(h, opts);
    overflow_inside_a_chunk(h, bad, k);
    const auto r = solve_batch<TypeParam>(h, opts);
    EXPECT_EQ(r.status[bad], -1) << what;
    index_type finite_rows = 0;  // of the failing system (counted: every variant is tried)
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < v.n; ++i) {
        if (s == bad) {
          finite_rows += std::isnan(r.x[s * v.n + i]) ? 0 : 1;
        } else {
          ASSERT_EQ(r.status[s], 0) << what;
          ASSERT_EQ(r.x[s * v.n + i], clean.x[s * v.n + i]) << what << ": neighbour " << s << " changed";
        }
      }
    EXPECT_EQ(finite_rows, 0) << what << ": rows of the failing system that are not NaN";
  }
}

// Weakly dominant SPD systems (high-contrast diffusion): the interface system was solved by PCR,
// whose backward error grew with the conditioning: 8.5e3 eps at n = 64 with 32 threads per system
// on the H200, 5e3 eps at n = 200 with 64 on a host, status 0 (docs/numerics.md). It is solved by
// cyclic reduction now, backward stable like the chunks' elimination. Every split a space allows:
// the plan's own, 2 to 64 threads per system (on a 2-core host only up to 2, where PCR was fine
// too: a GPU, or a host of 32 threads or more, is where this test has teeth), both interface
// exchanges of two-warp systems, and split solves. In double every system must be solved within
// the bounds. In float a normalised interface row can cancel to a zero pivot on these matrices:
// such a system must be reported (status != 0, x NaN), never returned wrong with status 0
// (docs/numerics.md); at least one of each batch must be solved, except in float split solves,
// which can report all three systems failed.
template <class C>
void expect_solved_or_reported(const HostBatch<typename C::scalar>& h, const SolvedBatch<typename C::scalar>& r,
                               const std::string& what, bool some_must_be_solved) {
  using S = typename C::scalar;
  HostBatch<S> solved{0, h.rows, {}, {}, {}, {}};
  std::vector<S> x;
  for (index_type s = 0; s < h.systems; ++s) {
    const auto first = s * h.rows, last = (s + 1) * h.rows;
    if (r.status[s] != 0) {
      ASSERT_TRUE((!std::is_same_v<S, double>)) << what << ": system " << s << " failed (status " << r.status[s] << ")";
      for (auto k = first; k < last; ++k) ASSERT_TRUE(std::isnan(r.x[k])) << what << ": failed system " << s;
      continue;
    }
    ++solved.systems;
    solved.a.insert(solved.a.end(), h.a.begin() + first, h.a.begin() + last);
    solved.b.insert(solved.b.end(), h.b.begin() + first, h.b.begin() + last);
    solved.c.insert(solved.c.end(), h.c.begin() + first, h.c.begin() + last);
    solved.d.insert(solved.d.end(), h.d.begin() + first, h.d.begin() + last);
    x.insert(x.end(), r.x.begin() + first, r.x.begin() + last);
  }
  // A float solver that reported every system failed would pass the checks above. (Split
  // solves of 5,003 rows in float report most of a few systems failed, with PCR on the
  // interface too: docs/numerics.md.)
  if (some_must_be_solved) EXPECT_GE(solved.systems, 1) << what << ": none of " << h.systems << " solved";
  expect_matches_oracle(solved, x, what);
}

TYPED_TEST(PartitionedSolve, BackwardStableOnHighContrastDiffusion) {
  using S = typename TypeParam::scalar;
  const int max_team = max_team_size<typename TypeParam::exec>();
  for (index_type n : {64, 200, 1000}) {
    for (int P : {0, 2, 8, 32, 64}) {
      if (P > max_team || P > n / 2) continue;
      for (bool paired : {true, false}) {
        if (!paired && P != 64) continue;
        partitioned::Options opts;
        opts.threads_per_system = P;
        opts.paired_warps = paired;
        const auto h = make_high_contrast_diffusion<S>(16, n, test_seed() + n + P);
        expect_solved_or_reported<TypeParam>(h, solve_batch<TypeParam>(h, opts),
                                             "high-contrast diffusion, n = " + std::to_string(n) + ", P = " +
                                                 std::to_string(P) + (paired ? "" : ", scratch exchange"),
                                             true);
        if (this->HasFailure()) return;
      }
    }
  }
  partitioned::Options split;
  split.split = partitioned::Options::Split::always;
  for (index_type n : {64, 5003}) {
    const auto h = make_high_contrast_diffusion<S>(3, n, test_seed() + n);
    expect_solved_or_reported<TypeParam>(h, solve_batch<TypeParam>(h, split),
                                         "high-contrast diffusion, split, n = " + std::to_string(n), false);
  }
}

// Systems of two warps on a GPU (P = 64): the interface solved by the lower warp
// (paired_warps_interface.hpp) and, for comparison, through team scratch; on host spaces both
// options run the scratch exchange. Oracle, failure codes, untouched neighbours.
TYPED_TEST(PartitionedSolve, TwoWarpSystemsBothInterfaceExchanges) {
  using S = typename TypeParam::scalar;
  if (max_team_size<typename TypeParam::exec>() < 64) GTEST_SKIP() << "teams of 64 threads are not available";
  for (bool paired : {true, false}) {
    for (index_type n : {128, 300, 512, 1000}) {
      for (auto staging : {Staging::automatic, Staging::global}) {
        partitioned::Options opts;
        opts.threads_per_system = 64;
        opts.paired_warps = paired;
        opts.staging = staging;
        if (n <= 64 * 16) opts.chunk_storage = Storage::registers;
        const std::string what = "n = " + std::to_string(n) + (paired ? ", paired warps" : ", scratch exchange") +
                                 ", staging " + std::to_string(static_cast<int>(staging));
        auto h = make_host_batch<S>(37, n, MatrixKind::diagonally_dominant, test_seed() + n);
        const auto clean = solve_batch<TypeParam>(h, opts);
        for (int code : clean.status) ASSERT_EQ(code, 0) << what;
        expect_matches_oracle(h, clean.x, what);
        h.at(h.a, 5, n / 2) = 0;  // a zero row in system 5
        h.at(h.b, 5, n / 2) = 0;
        h.at(h.c, 5, n / 2) = 0;
        h.at(h.d, 9, n - 1) = std::numeric_limits<S>::quiet_NaN();  // in the last chunk of system 9
        const auto r = solve_batch<TypeParam>(h, opts);
        EXPECT_GT(r.status[5], 0) << what;
        EXPECT_EQ(r.status[9], -static_cast<int>(n)) << what;
        for (index_type s = 0; s < 37; ++s) {
          if (s == 5 || s == 9) {
            for (index_type i = 0; i < n; ++i) ASSERT_TRUE(std::isnan(r.x[s * n + i])) << what << ", system " << s;
          } else {
            ASSERT_EQ(r.status[s], 0) << what;
            for (index_type i = 0; i < n; ++i) ASSERT_EQ(r.x[s * n + i], clean.x[s * n + i]) << what;
          }
        }
      }
    }
  }
}

template <class C>
class PartitionedLong : public KokkosTest {};
using LongConfigs = to_gtest<product<list<double>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedLong, LongConfigs, ConfigNames);

TYPED_TEST(PartitionedLong, OneSystemOfAMillionRowsAndAFewLongOnes) {
  for (auto shape : {std::pair<index_type, index_type>{1, 1000000}, {3, 100003}}) {
    const auto h = make_host_batch<double>(shape.first, shape.second, MatrixKind::diagonally_dominant, test_seed());
    // Automatic (on a GPU: split across the device, one team per system elsewhere), and split.
    for (auto split : {partitioned::Options::Split::automatic, partitioned::Options::Split::always}) {
      partitioned::Options opts;
      opts.split = split;
      const auto r = solve_batch<TypeParam>(h, opts);
      for (int code : r.status) ASSERT_EQ(code, 0);
      expect_matches_oracle(h, r.x, "n = " + std::to_string(shape.second) + ", split " +
                                        std::to_string(static_cast<int>(split)));
    }
  }
}

TYPED_TEST(PartitionedSolve, SplitAcrossTheDeviceMatchesOracle) {
  using S = typename TypeParam::scalar;
  for (int chunk_rows : {3, 4, 13, 16}) {
    for (index_type n : {6, 7, 64, 101, 1000, 5003}) {
      if (n < 2 * chunk_rows) continue;
      for (index_type systems : {1, 3}) {
        partitioned::Options opts;
        opts.split = partitioned::Options::Split::always;  // recursively, down to n < 2 chunk_rows
        opts.split_chunk_rows = chunk_rows;
        const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n + chunk_rows);
        const auto r = solve_batch<TypeParam>(h, opts);
        for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n;
        expect_matches_oracle(h, r.x, "split, n = " + std::to_string(n) + ", chunks of " + std::to_string(chunk_rows));
        if (this->HasFailure()) return;
      }
    }
  }
  const auto poisson = make_host_batch<S>(2, 4096, MatrixKind::poisson, test_seed());
  partitioned::Options opts;
  opts.split = partitioned::Options::Split::always;
  const auto r = solve_batch<TypeParam>(poisson, opts);
  for (int code : r.status) ASSERT_EQ(code, 0);
  expect_matches_oracle(poisson, r.x, "split, poisson n = 4096");
}

// x may be the right-hand side: a group of threads (staged loads) or a thread reads its rows of d
// before anything is written there, in the team kernel and in both passes of the split one.
TYPED_TEST(PartitionedSolve, InPlaceGivesTheSameBits) {
  using S = typename TypeParam::scalar;
  for (auto split : {partitioned::Options::Split::never, partitioned::Options::Split::always}) {
    for (index_type n : {64, 1000}) {
      partitioned::Options opts;
      opts.split = split;
      const auto h = make_host_batch<S>(37, n, MatrixKind::diagonally_dominant, test_seed() + n);
      const auto reference = solve_batch<TypeParam>(h, opts);
      const auto x = solve_in_place<TypeParam>(h, [&](const auto& exec, const auto& matrix, const auto& rhs, const auto& out) {
        partitioned::solve(exec, matrix, rhs, out, {}, opts);
      });
      ASSERT_EQ(x.size(), reference.x.size());
      EXPECT_EQ(std::memcmp(x.data(), reference.x.data(), x.size() * sizeof(S)), 0)
          << "n = " << n << ", split " << static_cast<int>(split);
    }
  }
}

TYPED_TEST(PartitionedSolve, SplitReportsFailedSystemsAndLeavesNeighboursExact) {
  using S = typename TypeParam::scalar;
  const index_type systems = 5, n = 200;
  partitioned::Options opts;
  opts.split = partitioned::Options::Split::always;
  opts.split_chunk_rows = 8;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto clean = solve_batch<TypeParam>(h, opts);
  h.at(h.a, 1, 150) = 0;  // a zero row: its pivot (or the interface row next to it) fails
  h.at(h.b, 1, 150) = 0;
  h.at(h.c, 1, 150) = 0;
  h.at(h.d, 3, 12) = std::numeric_limits<S>::quiet_NaN();
  const auto r = solve_batch<TypeParam>(h, opts);
  EXPECT_GT(r.status[1], 0);
  EXPECT_EQ(r.status[3], -13);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < n; ++i) {
      if (s == 1 || s == 3) {
        EXPECT_TRUE(std::isnan(r.x[s * n + i])) << "system " << s << " row " << i;
      } else {
        EXPECT_EQ(r.status[s], 0);
        EXPECT_EQ(r.x[s * n + i], clean.x[s * n + i]) << "neighbour " << s << " changed";
      }
    }
}

TYPED_TEST(PartitionedSolve, BadOptionsAndShapesAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  auto sys = allocate_system<L, S, M>("p", 4, 100);
  BatchVector<S, L, M> x("x", 4, 99);
  EXPECT_THROW(partitioned::solve(typename TypeParam::exec(), sys.matrix, sys.rhs, x), tridiag::invalid_argument);
  partitioned::Options opts;
  opts.threads_per_system = 1;
  opts.chunk_storage = Storage::registers;  // 100-row chunks cannot live in registers
  EXPECT_THROW(partitioned::solve(typename TypeParam::exec(), sys.matrix, sys.rhs, sys.rhs, {}, opts),
               tridiag::invalid_argument);
  opts = {};
  opts.split_chunk_rows = 2;  // chunks of 2 rows would not shorten the interface system
  EXPECT_THROW(partitioned::solve(typename TypeParam::exec(), sys.matrix, sys.rhs, sys.rhs, {}, opts),
               tridiag::invalid_argument);
  opts = {};
  opts.threads_per_system = 50;
  opts.systems_per_team = 100;  // 5,000 threads per team
  EXPECT_THROW(partitioned::solve(typename TypeParam::exec(), sys.matrix, sys.rhs, sys.rhs, {}, opts),
               tridiag::invalid_argument);
}

// ---- complex right-hand side with a real matrix (Flat only: one more kernel per scalar) ---------
template <class C>
class PartitionedComplexRhs : public KokkosTest {};
using FlatConfigs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PartitionedComplexRhs, FlatConfigs, ConfigNames);

TYPED_TEST(PartitionedComplexRhs, ComplexRightHandSideWithRealMatrix) {
  using R = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  const index_type systems = 37;
  // Automatic (registers, staged, on a GPU) and chunks in workspace; n = 64 gives P = 16
  // (shuffles on a GPU), n = 512 P = 64 (the lower of two warps solves the interface), n = 1000
  // P = 256 (team scratch exchange, 4-row chunks).
  for (auto storage : {Storage::automatic, Storage::workspace}) {
    for (index_type n : {7, 64, 512, 1000}) {
      const auto h = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n);
      const auto h_im = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n + 1);
      partitioned::Options opts;
      opts.chunk_storage = storage;
      const auto r = solve_complex_rhs<layouts::Flat, M>(h, h_im, [&](const auto& matrix, const auto& d, const auto& x,
                                                                        const auto& status) {
        partitioned::solve(E(), matrix, d, x, status, opts);
      });
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "n = " << n;
      const std::string what = "complex rhs, n = " + std::to_string(n) + ", storage " +
                               std::to_string(static_cast<int>(storage));
      expect_matches_oracle(r.real_part, r.re, what + ", real part");
      expect_matches_oracle(r.imaginary_part, r.im, what + ", imaginary part");
      if (this->HasFailure()) return;
    }
  }
}

// Host threads per system: never more than a team can have. On a host of more threads than that
// (65 or 128 OpenMP threads: 64 in Kokkos 3.4) the plan for one system asked for all of them and
// the default solve threw; tridiag::solve's Automatic sends such batches here.
TYPED_TEST(PartitionedLong, HostThreadsPerSystemStayWithinATeam) {
  EXPECT_EQ(partitioned::impl::host_threads_per_system(128, 1, 64), 64);
  EXPECT_EQ(partitioned::impl::host_threads_per_system(65, 1, 64), 64);
  EXPECT_EQ(partitioned::impl::host_threads_per_system(64, 1, 64), 64);
  EXPECT_EQ(partitioned::impl::host_threads_per_system(16, 1, 64), 16);
  EXPECT_EQ(partitioned::impl::host_threads_per_system(16, 3, 64), 6);
  EXPECT_EQ(partitioned::impl::host_threads_per_system(16, 20, 64), 1);
}

// A batch of more teams than an int league holds (host: one system per team, register chunks so
// that no workspace is allocated): rejected before anything runs. Before, the league was cast to
// int and wrapped (2^32 + 3 systems ran 3 teams: the rest unsolved, no error). The storage is
// mapped read-only without reserve and never touched. Device spaces skip.
TYPED_TEST(PartitionedLong, MoreTeamsThanAnIntHoldsAreRejected) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    GTEST_SKIP() << "host execution spaces only";
  } else {
    const index_type systems = index_type(INT_MAX) + 2, n = 2;
    const MappedFlatSystem<float, M> sys(systems, n, Access::read_only);
    if (!sys.ok()) GTEST_SKIP() << "cannot map 2 x 16 GiB";
    partitioned::Options opts;
    opts.chunk_storage = partitioned::Options::ChunkStorage::registers;
    opts.split = partitioned::Options::Split::never;
    try {
      partitioned::solve(E(), sys.matrix(), sys.rhs(), sys.rhs(), {}, opts);
      ADD_FAILURE() << systems << " systems were accepted";
    } catch (const tridiag::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("league size limit"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tridiag::test
