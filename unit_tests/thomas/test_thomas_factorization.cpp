// Factorize once / solve many: bitwise equal to thomas::solve, several right-hand sides per system,
// failed factorizations reported at solve time too.

#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>

#include <tridiag/algorithms/thomas/thomas_factorization.hpp>

#include "thomas/thomas_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasFactorization : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Interleaved, layouts::BlockInterleaved<32>, layouts::Flat>,
                                 ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasFactorization, Configs, ConfigNames);

/// h's matrix on the config's memory space, factorized, and factorize's status codes.
template <class C>
auto factorize_host_batch(const HostBatch<typename C::scalar>& h) {
  using S = typename C::scalar;
  using L = typename C::layout;
  using M = typename C::memory;
  TridiagonalBatch<S, L, M> matrix("A", h.systems, h.rows);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  thomas::Factorization<S, L, M> factors("f", h.systems, h.rows);
  StatusView<M> status("status", h.systems);
  thomas::factorize(typename C::exec(), matrix, factors, status);
  return std::make_tuple(matrix, factors, status);
}

TYPED_TEST(ThomasFactorization, SolvesManyRightHandSidesBitwiseLikeSolve) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const index_type systems = 45, n = 70, k = 3;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  auto [matrix, factors, status] = factorize_host_batch<TypeParam>(h);
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
  auto [matrix, factors, status] = factorize_host_batch<TypeParam>(h);
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

// A factorization that succeeded but a right-hand side whose back substitution overflows: the
// solve reports -1 and NaN for that right-hand side only (before: Inf and NaN with status 0).
TYPED_TEST(ThomasFactorization, OverflowInTheBackSubstitutionIsReportedBySolve) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  typename TypeParam::exec exec;
  const index_type systems = 5, n = 9;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  make_back_substitution_overflow(h, 2);
  auto [matrix, factors, status] = factorize_host_batch<TypeParam>(h);
  EXPECT_NO_THROW(check(status));
  // Two right-hand sides per system: system 2's second one is zero, which solves fine.
  std::vector<S> d(2 * systems * n, S(0));
  std::copy(h.d.begin(), h.d.end(), d.begin());
  BatchVector<S, L, M> rhs("rhs", 2 * systems, n), x("x", 2 * systems, n);
  upload(d, rhs);
  fill_storage(x, nan_of<S>());
  StatusView<M> rhs_status("rhs_status", 2 * systems);
  thomas::solve(exec, factors, rhs, x, rhs_status);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rhs_status);
  const auto xh = download(x);
  for (index_type r = 0; r < 2 * systems; ++r) {
    EXPECT_EQ(hs(r), r == 2 ? -1 : 0) << "right-hand side " << r;
    for (index_type i = 0; i < n; ++i)
      EXPECT_EQ(std::isnan(xh[r * n + i]), r == 2) << "right-hand side " << r << " row " << i << ": " << xh[r * n + i];
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

// The factors are public members: an upper_factor or a lower (the matrix's, kept by factorize) of
// another shape assigned after factorize was read through inverse_pivot's shape by the solve
// (out-of-bounds reads, status 0). Rejected before anything is written; thomas::factorize already
// checked both factor vectors against the matrix.
TYPED_TEST(ThomasFactorization, FactorsOfAnotherShapeAreRejectedBySolve) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  typename TypeParam::exec exec;
  const index_type systems = 3, n = 8;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  auto [matrix, factors, status] = factorize_host_batch<TypeParam>(h);
  (void)matrix;
  (void)status;
  V rhs("rhs", systems, n), x("x", systems, n);
  fill_storage(x, S(42));
  auto short_factor = factors;
  short_factor.upper_factor = V("short_factor", systems, 2);
  expect_invalid_argument([&] { thomas::solve(exec, short_factor, rhs, x); },
                          "factors.upper_factor is 3 systems x 2 rows, factors.inverse_pivot is 3 systems x 8 rows");
  auto few_lower = factors;
  few_lower.lower = V("few_lower", 1, n);
  expect_invalid_argument([&] { thomas::solve(exec, few_lower, rhs, x); },
                          "factors.lower is 1 systems x 8 rows, factors.inverse_pivot is 3 systems x 8 rows");
  exec.fence();
  for (S v : download(x)) ASSERT_EQ(v, S(42));
}

// factorize only reads the matrix and the factorized solve only reads the factors: outputs that
// share storage with them are rejected before anything is written; x may be rhs (in place: each
// row of rhs is read before that row of x is written). Before the check: factors over the lower
// diagonal (factors.lower keeps it for the solves), inverse_pivot over the upper one (row i
// written before upper(i) is read), inverse_pivot = upper_factor and upper_factor one scalar past
// the diagonal gave wrong solves; x over upper_factor (read back by the backward sweep), over
// inverse_pivot or factors.lower (read by the other right-hand sides of the system) and x one
// scalar past rhs gave wrong results with status 0. Factors over diag, or upper_factor over upper,
// gave right factors but overwrote the matrix.
TYPED_TEST(ThomasFactorization, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using V = BatchVector<S, L, M>;
  using Factors = thomas::Factorization<S, L, M>;
  typename TypeParam::exec exec;
  const index_type systems = 7, n = 12, k = 2;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  TridiagonalBatch<S, L, M> matrix("A", systems, n);
  upload(h.a, matrix.lower);
  upload(h.b, matrix.diag);
  upload(h.c, matrix.upper);
  Factors factors("f", systems, n);
  const std::pair<const char*, V> diagonals[] = {{"the matrix's lower diagonal", matrix.lower},
                                                 {"the matrix's diagonal", matrix.diag},
                                                 {"the matrix's upper diagonal", matrix.upper}};
  for (const auto& diagonal : diagonals) {
    auto pivots_on = factors;
    pivots_on.inverse_pivot = diagonal.second;
    expect_invalid_argument([&] { thomas::factorize(exec, matrix, pivots_on); },
                            std::string("factors.inverse_pivot shares storage with ") + diagonal.first);
    auto upper_on = factors;
    upper_on.upper_factor = diagonal.second;
    expect_invalid_argument([&] { thomas::factorize(exec, matrix, upper_on); },
                            std::string("factors.upper_factor shares storage with ") + diagonal.first);
  }
  auto twice = factors;
  twice.upper_factor = twice.inverse_pivot;
  expect_invalid_argument([&] { thomas::factorize(exec, matrix, twice); },
                          "factors.inverse_pivot shares storage with factors.upper_factor");
  // The factorized solve, one right-hand side per system: x over each array it reads.
  thomas::factorize(exec, matrix, factors);
  BatchVector<S, L, M> rhs("rhs", systems, n);
  upload(h.d, rhs);
  expect_invalid_argument([&] { thomas::solve(exec, factors, rhs, matrix.lower); },
                          "x shares storage with factors.lower");
  expect_invalid_argument([&] { thomas::solve(exec, factors, rhs, factors.inverse_pivot); },
                          "x shares storage with factors.inverse_pivot");
  expect_invalid_argument([&] { thomas::solve(exec, factors, rhs, factors.upper_factor); },
                          "x shares storage with factors.upper_factor");
  const std::size_t span = static_cast<std::size_t>(L(k * systems, n).required_span());
  const typename V::storage_type both("both", span + 1);
  const V shifted_rhs(Kokkos::subview(both, std::make_pair(std::size_t(0), span)), L(k * systems, n));
  const V shifted_x(Kokkos::subview(both, std::make_pair(std::size_t(1), span + 1)), L(k * systems, n));
  expect_invalid_argument([&] { thomas::solve(exec, factors, shifted_rhs, shifted_x); },
                          "x overlaps rhs without being it");
  // Nothing was written: the matrix and rhs are intact.
  const auto bytes_equal = [](const std::vector<S>& u, const std::vector<S>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0;
  };
  EXPECT_TRUE(bytes_equal(download(matrix.lower), h.a)) << "lower diagonal written";
  EXPECT_TRUE(bytes_equal(download(matrix.diag), h.b)) << "diagonal written";
  EXPECT_TRUE(bytes_equal(download(matrix.upper), h.c)) << "upper diagonal written";
  EXPECT_TRUE(bytes_equal(download(rhs), h.d)) << "rhs written";
  // In place still solves, k right-hand sides per system, bitwise as into an x of its own.
  std::vector<S> d(static_cast<std::size_t>(k * systems * n));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = S(std::cos(0.29 * double(i)));
  V many("many", k * systems, n), x("x", k * systems, n);
  upload(d, many);
  thomas::solve(exec, factors, many, x);
  thomas::solve(exec, factors, many, many);
  const auto solved = download(many);
  EXPECT_TRUE(bytes_equal(solved, download(x))) << "in place differs";
  auto first = h;
  first.d.assign(d.begin(), d.begin() + systems * n);
  expect_matches_oracle(first, std::vector<S>(solved.begin(), solved.begin() + systems * n), "factorized, in place");
}

template <class C>
class ThomasFactorizationLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasFactorizationLongSystem, LongSystemConfigs, ConfigNames);

// factorize and the factorized solve of systems of more than INT_MAX rows with a status View: a
// status code (an int row number) could not name their rows (row 2^32 would read 0, "solved"),
// and both ran. Now rejected before anything is read (one system of 2^31 rows in float, storage
// mapped read-only without reserve, never touched). Device spaces skip.
TYPED_TEST(ThomasFactorizationLongSystem, StatusOfSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  with_a_system_beyond_int_max_rows<M>([](const auto& system, const auto& spare, const auto& status) {
    const auto matrix = system.matrix();
    const auto rhs = system.rhs();
    thomas::Factorization<float, layouts::Flat, M> factors;
    factors.inverse_pivot = spare.matrix().diag;
    factors.upper_factor = spare.rhs();
    expect_invalid_argument([&] { thomas::factorize(E(), matrix, factors, status); }, status_rows_rejected);
    factors.lower = matrix.lower;  // as factorize leaves it
    expect_invalid_argument([&] { thomas::solve(E(), factors, rhs, rhs, status); }, status_rows_rejected);
  });
}

}  // namespace
}  // namespace tridiag::test
