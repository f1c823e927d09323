// Factorize once / solve many: bitwise equal to thomas::solve, several right-hand sides per system,
// failed factorizations reported at solve time too.

#include <cstring>

#include <tridiag/algorithms/thomas/thomas_factorization.hpp>

#include "thomas/thomas_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasFactorization : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Interleaved, layouts::BlockInterleaved<32>, layouts::Flat>,
                                 ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasFactorization, Configs, ConfigNames);

TYPED_TEST(ThomasFactorization, SolvesManyRightHandSidesBitwiseLikeSolve) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const index_type systems = 45, n = 70, k = 3;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  TridiagonalBatch<S, L, M> matrix("A", systems, n);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  thomas::Factorization<S, L, M> factors("f", systems, n);
  StatusView<M> status("status", systems);
  thomas::factorize(exec, matrix, factors, status);
  EXPECT_NO_THROW(check(status));
  // k right-hand sides per system: rhs system r belongs to matrix system r % systems.
  std::vector<S> d(k * systems * n);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = S(std::sin(0.37 * double(i)) + 0.1);
  BatchVector<S, L, M> rhs("rhs", k * systems, n), x("x", k * systems, n);
  upload(d, rhs);
  fill_storage(x, nan_of<S>());
  StatusView<M> rhs_status("rhs_status", k * systems);
  thomas::solve(exec, factors, rhs, x, rhs_status);
  EXPECT_NO_THROW(check(rhs_status));
  const auto all = download(x);
  for (index_type j = 0; j < k; ++j) {
    // Reference: the plain solver on the j-th group of right-hand sides.
    auto hj = h;
    hj.d.assign(d.begin() + j * systems * n, d.begin() + (j + 1) * systems * n);
    BatchVector<S, L, M> dj("dj", systems, n), xj("xj", systems, n);
    upload(hj.d, dj);
    thomas::solve(exec, matrix, dj, xj);
    const auto ref = download(xj);
    EXPECT_EQ(std::memcmp(ref.data(), all.data() + j * systems * n, ref.size() * sizeof(S)), 0)
        << "right-hand side group " << j << " differs from thomas::solve";
    expect_matches_oracle(hj, ref, "factorized, group " + std::to_string(j));
  }
}

TYPED_TEST(ThomasFactorization, BadPivotIsReportedByFactorizeAndBySolve) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const index_type systems = 5, n = 9;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  h.at(h.a, 3, 6) = 0;
  h.at(h.b, 3, 6) = 0;
  TridiagonalBatch<S, L, M> matrix("A", systems, n);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  thomas::Factorization<S, L, M> factors("f", systems, n);
  StatusView<M> status("status", systems);
  thomas::factorize(exec, matrix, factors, status);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  EXPECT_EQ(hs(3), 7);
  BatchVector<S, L, M> rhs("rhs", systems, n), x("x", systems, n);
  upload(h.d, rhs);
  thomas::solve(exec, factors, rhs, x, status);
  Kokkos::deep_copy(hs, status);
  EXPECT_EQ(hs(3), 7);
  const auto xh = download(x);
  for (index_type s = 0; s < systems; ++s) {
    if (s != 3) EXPECT_EQ(hs(s), 0);
    for (index_type i = 0; i < n; ++i) EXPECT_EQ(std::isnan(xh[s * n + i]), s == 3);
  }
}

TYPED_TEST(ThomasFactorization, WrongRightHandSideCountsAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  TridiagonalBatch<S, L, M> matrix("A", 4, 6);
  thomas::Factorization<S, L, M> factors("f", 4, 6);
  BatchVector<S, L, M> rhs("rhs", 8, 6), x6("x", 6, 6);
  EXPECT_THROW(thomas::solve(exec, factors, rhs, rhs), tridiag::invalid_argument);  // not factorized yet
  thomas::factorize(exec, matrix, factors);
  BatchVector<S, L, M> rhs6("rhs6", 6, 6);
  EXPECT_THROW(thomas::solve(exec, factors, rhs6, x6), tridiag::invalid_argument);  // 6 is not a multiple of 4
  EXPECT_THROW(thomas::solve(exec, factors, rhs, x6), tridiag::invalid_argument);   // rhs and x differ
  thomas::Factorization<S, L, M> wrong("w", 4, 7);
  EXPECT_THROW(thomas::factorize(exec, matrix, wrong), tridiag::invalid_argument);
}

}  // namespace
}  // namespace tridiag::test
