// tridiag::solve: every algorithm behind the one entry point, and what Algorithm::automatic picks.

#include <tridiag/algorithms/solve.hpp>

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

}  // namespace
}  // namespace tridiag::test
