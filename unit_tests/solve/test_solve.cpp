// tridiag::solve: every algorithm behind the one entry point, and what Algorithm::automatic picks.

#include <tridiag/algorithms/periodic/periodic_solve.hpp>
#include <tridiag/algorithms/solve.hpp>
#include <tridiag/algorithms/thomas/thomas_factorization.hpp>

#include <string>
#include <utility>

#include "allocation_counter.hpp"
#include "thomas/thomas_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class UnifiedSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Flat, layouts::Interleaved>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(UnifiedSolve, Configs, ConfigNames);

TYPED_TEST(UnifiedSolve, EveryAlgorithmSolvesTheBatch) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  for (index_type n : {1, 6, 100}) {
    const auto h = make_host_batch<S>(23, n, MatrixKind::diagonally_dominant, test_seed() + n);
    auto sys = allocate_system<L, S, M>("u", h.systems, n);
    upload(h.a, sys.matrix.lower);
    upload(h.b, sys.matrix.diag);
    upload(h.c, sys.matrix.upper);
    upload(h.d, sys.rhs);
    for (Algorithm algorithm : {Algorithm::automatic, Algorithm::thomas, Algorithm::partitioned, Algorithm::cr,
                                Algorithm::pcr, Algorithm::cr_pcr, Algorithm::pivoting}) {
      BatchVector<S, L, M> x("x", h.systems, n);
      fill_storage(x, nan_of<S>());
      StatusView<M> status("status", h.systems);
      SolveOptions options;
      options.algorithm = algorithm;
      const Algorithm used = tridiag::solve(exec, sys.matrix, sys.rhs, x, status, options);
      EXPECT_NE(used, Algorithm::automatic);
      if (algorithm != Algorithm::automatic) EXPECT_EQ(used, algorithm);
      EXPECT_NO_THROW(check(status)) << name(used);
      expect_matches_oracle(h, download(x), std::string(name(used)) + ", n = " + std::to_string(n));
    }
  }
}

// x may be rhs (in place); an x or workspace sharing storage with anything else the solve reads
// would change the solve's own inputs while it runs. Thomas wrote x(i) before reading upper(i)
// (x = upper: wrong results with status 0), and a workspace that is x was wrong too; the periodic
// solver rereads the matrix in its second sweep. Rejected before anything is written, by every
// algorithm behind tridiag::solve, and for the workspaces of Thomas, periodic and pivoting.
TYPED_TEST(UnifiedSolve, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  typename TypeParam::exec exec;
  const index_type systems = 7, n = 12;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto sys = upload_system<TypeParam>(h);
  const auto& m = sys.matrix;
  // x one scalar past rhs in one allocation: overlapping, not the same vector.
  const std::size_t span = static_cast<std::size_t>(L(systems, n).required_span());
  const typename V::storage_type both("both", span + 1);
  const V shifted_rhs(Kokkos::subview(both, std::make_pair(std::size_t(0), span)), L(systems, n));
  const V shifted_x(Kokkos::subview(both, std::make_pair(std::size_t(1), span + 1)), L(systems, n));
  for (Algorithm algorithm : {Algorithm::automatic, Algorithm::thomas, Algorithm::partitioned, Algorithm::cr,
                              Algorithm::pcr, Algorithm::cr_pcr, Algorithm::pivoting}) {
    SCOPED_TRACE(name(algorithm));
    SolveOptions options;
    options.algorithm = algorithm;
    const auto solve_into = [&](const V& rhs, const V& x) {
      return [&, rhs, x] { tridiag::solve(exec, m, rhs, x, {}, options); };
    };
    expect_invalid_argument(solve_into(sys.rhs, m.lower), "x shares storage with the matrix's lower diagonal");
    expect_invalid_argument(solve_into(sys.rhs, m.diag), "x shares storage with the matrix's diagonal");
    expect_invalid_argument(solve_into(sys.rhs, m.upper), "x shares storage with the matrix's upper diagonal");
    expect_invalid_argument(solve_into(shifted_rhs, shifted_x), "x overlaps rhs without being it");
  }
  V x("x", systems, n);
  thomas::Workspace<S, L, M> own("w", systems, n);
  expect_invalid_argument([&] { thomas::solve(exec, m, sys.rhs, x, {}, x); }, "the workspace shares storage with x");
  expect_invalid_argument([&] { thomas::solve(exec, m, sys.rhs, x, {}, sys.rhs); },
                          "the workspace shares storage with rhs");
  expect_invalid_argument([&] { thomas::solve(exec, m, sys.rhs, x, {}, m.upper); },
                          "the workspace shares storage with the matrix's upper diagonal");
  periodic::Workspace<S, L, M> correction("c", systems, n);
  auto same_z_g = correction;
  same_z_g.g = same_z_g.z;
  expect_invalid_argument([&] { periodic::solve(exec, m, sys.rhs, x, {}, same_z_g); },
                          "workspace.z shares storage with workspace.g");
  auto z_is_x = correction;
  z_is_x.z = x;
  expect_invalid_argument([&] { periodic::solve(exec, m, sys.rhs, x, {}, z_is_x); },
                          "workspace.z shares storage with x");
  expect_invalid_argument([&] { periodic::solve(exec, m, sys.rhs, m.diag, {}, correction); },
                          "x shares storage with the matrix's diagonal");
  pivoting::Workspace<S, L, M> band("b", systems, n);
  auto upper_is_x = band;
  upper_is_x.upper = x;
  expect_invalid_argument([&] { pivoting::solve(exec, m, sys.rhs, x, {}, upper_is_x); },
                          "workspace.upper shares storage with x");
  auto twice = band;
  twice.upper2 = twice.diag;
  expect_invalid_argument([&] { pivoting::solve(exec, m, sys.rhs, x, {}, twice); },
                          "workspace.diag shares storage with workspace.upper2");
  // The allowed cases still solve: a workspace of its own, and in place.
  thomas::solve(exec, m, sys.rhs, x, {}, own);
  periodic::solve(exec, m, sys.rhs, x, {}, correction);
  pivoting::solve(exec, m, sys.rhs, x, {}, band);
  V in_place("in_place", systems, n);
  Kokkos::deep_copy(in_place.storage(), sys.rhs.storage());
  for (Algorithm algorithm : {Algorithm::thomas, Algorithm::partitioned, Algorithm::cr, Algorithm::pivoting}) {
    SolveOptions options;
    options.algorithm = algorithm;
    Kokkos::deep_copy(in_place.storage(), sys.rhs.storage());
    tridiag::solve(exec, m, in_place, in_place, {}, options);
    expect_matches_oracle(h, download(in_place), std::string(name(algorithm)) + ", in place");
  }
}

// A time loop passes one SolveWorkspace to every call: each call gives the bits of a call without
// one, and a repeated call of the same shape allocates nothing (the first may, and a new shape
// does). The partitioned solver split across the device needs a buffer on every backend, the
// pivoting solver its band, Thomas its c' on GPUs.
TYPED_TEST(UnifiedSolve, WorkspaceKeepsRepeatedCallsFromAllocating) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  SolveWorkspace<S, L, M> workspace;  // one for every algorithm and shape below, as in a time loop
  for (Algorithm algorithm : {Algorithm::automatic, Algorithm::thomas, Algorithm::partitioned, Algorithm::cr,
                              Algorithm::pivoting}) {
    for (index_type n : {100, 37}) {
      const auto h = make_host_batch<S>(23, n, MatrixKind::diagonally_dominant, test_seed() + n);
      const auto sys = upload_system<TypeParam>(h);
      SolveOptions options;
      options.algorithm = algorithm;
      options.partitioned.split = partitioned::Options::Split::always;  // needs a buffer everywhere
      options.partitioned.split_chunk_rows = 4;
      auto solve_once = [&](bool with_workspace, int* allocations) {
        BatchVector<S, L, M> x("x", h.systems, n);
        fill_storage(x, nan_of<S>());
        StatusView<M> status("status", h.systems);
        {
          const AllocationCounter counter;
          if (with_workspace)
            tridiag::solve(exec, sys.matrix, sys.rhs, x, status, options, workspace);
          else
            tridiag::solve(exec, sys.matrix, sys.rhs, x, status, options);
          exec.fence();
          if (allocations != nullptr) *allocations = counter.count();
        }
        EXPECT_NO_THROW(check(status)) << name(algorithm);
        return download(x);
      };
      const std::string label = std::string(name(algorithm)) + ", n = " + std::to_string(n);
      const auto reference = solve_once(false, nullptr);
      expect_matches_oracle(h, reference, label);
      for (int call = 0; call < 3; ++call) {
        int allocations = 0;
        const auto x = solve_once(true, &allocations);
        EXPECT_EQ(std::memcmp(x.data(), reference.data(), x.size() * sizeof(S)), 0) << label << ", call " << call;
        if (call > 0) EXPECT_EQ(allocations, 0) << label << ", call " << call << " of one shape allocated";
      }
    }
  }
}

// Thomas on host cores keeps c' in per-thread scratch, except for systems whose scratch passes
// the limit (64 MiB: 2^23 rows in double), which take the workspace kernel: there the
// SolveWorkspace kept nothing for Thomas (it kept one on GPUs only), and every call allocated the
// 64 MiB workspace. One system of 2^23 + 1 rows in double. Compiled for the host backends only
// (a GPU has no per-thread scratch path; the plain workspace test covers it).
#if !defined(TRIDIAG_TEST_BACKEND_CUDA)
template <class C>
class UnifiedSolveLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<double>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(UnifiedSolveLongSystem, LongSystemConfigs, ConfigNames);
TYPED_TEST(UnifiedSolveLongSystem, WorkspaceKeepsThomasPastTheHostScratchLimitFromAllocating) {
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename E::memory_space>::accessible);
  const E exec;
  const index_type n = (index_type(1) << 23) + 1;
  TridiagonalBatch<double, L, M> matrix("A", 1, n);
  Kokkos::deep_copy(matrix.lower.storage(), -1.0);
  Kokkos::deep_copy(matrix.diag.storage(), 4.0);
  Kokkos::deep_copy(matrix.upper.storage(), -1.0);
  BatchVector<double, L, M> rhs("rhs", 1, n), x("x", 1, n), reference("reference", 1, n);
  Kokkos::deep_copy(rhs.storage(), 1.0);
  thomas::solve(exec, matrix, rhs, reference);
  SolveWorkspace<double, L, M> workspace;
  SolveOptions options;
  options.algorithm = Algorithm::thomas;
  StatusView<M> status("status", 1);
  for (int call = 0; call < 3; ++call) {
    int allocations = 0;
    {
      const AllocationCounter counter;
      tridiag::solve(exec, matrix, rhs, x, status, options, workspace);
      exec.fence();
      allocations = counter.count();
    }
    if (call > 0) EXPECT_EQ(allocations, 0) << "call " << call << " of one shape allocated";
    EXPECT_EQ(status(0), 0);
    EXPECT_EQ(std::memcmp(x.data(), reference.data(), sizeof(double) * std::size_t(n)), 0) << "call " << call;
  }
}
#endif

TYPED_TEST(UnifiedSolve, AutomaticChoiceFollowsTheDocumentedRules) {
  using L = typename TypeParam::layout;
  using E = typename TypeParam::exec;
  const E exec;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename E::memory_space>::accessible;
  if (host) {
    EXPECT_EQ((automatic_algorithm<E, L>(exec, 100000, 512)), Algorithm::thomas);
    EXPECT_EQ((automatic_algorithm<E, L>(exec, 1, 1000000)),
              exec.concurrency() > 1 ? Algorithm::partitioned : Algorithm::thomas);
  } else {
    EXPECT_EQ((automatic_algorithm<E, L>(exec, 1, 1000000)), Algorithm::partitioned);
    EXPECT_EQ((automatic_algorithm<E, L>(exec, 256, 512)), Algorithm::partitioned);
    EXPECT_EQ((automatic_algorithm<E, layouts::Interleaved>(exec, 256000, 512)), Algorithm::thomas);
  }
}

constexpr Algorithm every_algorithm[] = {Algorithm::automatic, Algorithm::thomas, Algorithm::partitioned, Algorithm::cr,
                                        Algorithm::pcr, Algorithm::cr_pcr, Algorithm::pivoting};

// The diagonals are public members: one assigned after construction with another shape was read
// through the diagonal's shape (out-of-bounds reads, no error). Every solver checks all three, and
// thomas::factorize checks both factor vectors too.
TYPED_TEST(UnifiedSolve, DiagonalsOfAnotherShapeAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  const typename TypeParam::exec exec;
  const index_type systems = 6, n = 9;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto sys = upload_system<TypeParam>(h);
  TridiagonalBatch<S, L, M> short_lower = sys.matrix, few_upper = sys.matrix;
  short_lower.lower = V("short_lower", systems, n - 1);
  few_upper.upper = V("few_upper", systems - 1, n);
  V x("x", systems, n);
  fill_storage(x, nan_of<S>());
  for (const auto* bad : {&short_lower, &few_upper}) {
    for (Algorithm algorithm : every_algorithm) {
      SolveOptions options;
      options.algorithm = algorithm;
      EXPECT_THROW(tridiag::solve(exec, *bad, sys.rhs, x, {}, options), tridiag::invalid_argument) << name(algorithm);
    }
    EXPECT_THROW(periodic::solve(exec, *bad, sys.rhs, x), tridiag::invalid_argument);
    thomas::Factorization<S, L, M> factors("factors", systems, n);
    EXPECT_THROW(thomas::factorize(exec, *bad, factors), tridiag::invalid_argument);
  }
  thomas::Factorization<S, L, M> wrong_factors("wrong", systems, n);
  wrong_factors.upper_factor = V("short_factor", systems, n - 1);
  EXPECT_THROW(thomas::factorize(exec, sys.matrix, wrong_factors), tridiag::invalid_argument);
  for (const S value : download(x)) EXPECT_TRUE(value != value) << "x written";  // still NaN
}

// Two Unified-Vector mappings of one buffer that differ in width both start at element 0: an x of
// width 1 over the buffer of an rhs of width 4 passed as "in place" and gave 30 to 42 of 48
// elements wrong with status 0. Rejected; the same vector stays allowed.
TYPED_TEST(UnifiedSolve, UnifiedVectorsOfOneBufferWithOtherWidthsAreNotInPlace) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  using U = layouts::UnifiedVector;
  using V = BatchVector<S, U, M>;
  const typename TypeParam::exec exec;
  const index_type systems = 8, n = 6;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  auto sys = upload_system<Config<S, U, typename TypeParam::exec>>(h);
  const typename V::storage_type buffer("buffer", U(systems, n, 4).required_span());
  const V rhs(buffer, U(systems, n, 4, 0));
  const V x(buffer, U(systems, n, 1, 0));
  tridiag::deep_copy(rhs, sys.rhs);
  for (Algorithm algorithm : every_algorithm) {
    SolveOptions options;
    options.algorithm = algorithm;
    EXPECT_THROW(tridiag::solve(exec, sys.matrix, rhs, x, {}, options), tridiag::invalid_argument) << name(algorithm);
    tridiag::solve(exec, sys.matrix, rhs, rhs, {}, options);  // in place: the same vector
    exec.fence();
    expect_matches_oracle(h, download(rhs), std::string(name(algorithm)) + ", in place");
    tridiag::deep_copy(rhs, sys.rhs);
  }
}

// Systems of no rows: every solver writes status 0 (partitioned returned early and left the
// status as it was; Automatic picks partitioned for n = 0 on a GPU).
TYPED_TEST(UnifiedSolve, SystemsOfNoRowsGetStatusZero) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const typename TypeParam::exec exec;
  auto sys = allocate_system<L, S, M>("empty", 5, 0);
  BatchVector<S, L, M> x("x", 5, 0);
  StatusView<M> status("status", 5);
  for (Algorithm algorithm : every_algorithm) {
    Kokkos::deep_copy(status, 12345);
    SolveOptions options;
    options.algorithm = algorithm;
    tridiag::solve(exec, sys.matrix, sys.rhs, x, status, options);
    exec.fence();
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    for (index_type s = 0; s < 5; ++s) EXPECT_EQ(host(s), 0) << name(algorithm) << " system " << s;
  }
}

// An Algorithm value outside the enumeration (an integer from a configuration file, cast) solved
// nothing and returned as if it had run: x kept whatever it held.
TYPED_TEST(UnifiedSolve, AnUnknownAlgorithmIsRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const typename TypeParam::exec exec;
  auto sys = allocate_system<L, S, M>("sys", 4, 8);
  BatchVector<S, L, M> x("x", 4, 8);
  SolveOptions options;
  options.algorithm = static_cast<Algorithm>(97);
  try {
    tridiag::solve(exec, sys.matrix, sys.rhs, x, {}, options);
    FAIL() << "accepted";
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("97"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tridiag::test
