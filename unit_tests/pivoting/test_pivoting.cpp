// pivoting::solve (LAPACK ?gtsv, one thread per system) on three layouts, both real scalar types
// and every execution space, against the long-double banded LU and LAPACK ?gtsv: random
// non-dominant matrices, diagonally dominant and Poisson matrices, zero diagonals that break
// Thomas, singular systems, non-finite input, complex right-hand sides, bad shapes.

#include <algorithm>
#include <cstring>
#include <limits>

#include <tridiag/algorithms/pivoting/pivoting_solve.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>

#include "pivoting/pivoting_checks.hpp"
#include "thomas/thomas_checks.hpp"  // make_back_substitution_overflow

namespace tridiag::test {
namespace {

using PivotingLayouts = list<layouts::Interleaved, layouts::Flat, layouts::BlockInterleaved<32>>;

template <class C>
class PivotingSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, PivotingLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PivotingSolve, Configs, ConfigNames);

/// Uploads h into a fresh system of the config's layout, poisons x (padding included) with NaN,
/// solves, checks that the matrix was not modified and the padding not written, and returns x and
/// the status (flat, host).
template <class C>
SolvedBatch<typename C::scalar> solve_batch(const HostBatch<typename C::scalar>& h) {
  return solve_poisoned<C>(h, [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                 const auto& status) { pivoting::solve(exec, matrix, rhs, x, status); });
}

TYPED_TEST(PivotingSolve, MatchesOracleOnNonDominantBatches) {
  using S = typename TypeParam::scalar;
  for (index_type n : {1, 2, 3, 5, 17, 64, 100, 512}) {
    for (index_type systems : {1, 37}) {
      const auto h = make_host_batch<S>(systems, n, MatrixKind::non_dominant, test_seed() + 7 * n + systems);
      const auto r = solve_batch<TypeParam>(h);
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n;
      const index_type checked = expect_solves_like_gtsv(h, r.x, "non-dominant, n = " + std::to_string(n));
      // rcond of these matrices falls with n (median about 1e-4 at n = 512): in double nearly all
      // systems are forward-checked, in float most of the long ones are not (their bound would
      // exceed 1 anyway). Make sure the forward check bites wherever it means something.
      if (systems > 1 && (std::is_same_v<S, double> || n <= 64)) {
        EXPECT_GE(checked, systems / 4) << "n = " << n << ": too few systems forward-checked";
      }
      if (this->HasFailure()) return;
    }
  }
}

TYPED_TEST(PivotingSolve, MatchesOracleOnDiagonallyDominantAndPoissonBatches) {
  using S = typename TypeParam::scalar;
  for (index_type n : {1, 2, 17, 100, 512}) {
    const auto h = make_host_batch<S>(37, n, MatrixKind::diagonally_dominant, test_seed() + n);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) ASSERT_EQ(code, 0);
    expect_solves_like_gtsv(h, r.x, "diagonally dominant, n = " + std::to_string(n), 0.0);
  }
  for (index_type n : {2, 31, 256}) {
    const auto h = make_host_batch<S>(5, n, MatrixKind::poisson, test_seed() + n);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) ASSERT_EQ(code, 0);
    expect_solves_like_gtsv(h, r.x, "poisson, n = " + std::to_string(n), 0.0);
  }
}

TYPED_TEST(PivotingSolve, ZeroDiagonalsThatBreakThomas) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  {  // [0 1; 1 0] x = (1, 2): x = (2, 1) exactly; Thomas stops at its first pivot.
    HostBatch<S> h{3, 2, {0, 1, 0, 1, 0, 1}, {0, 0, 0, 0, 0, 0}, {1, 0, 1, 0, 1, 0}, {1, 2, 1, 2, 1, 2}};
    const auto r = solve_batch<TypeParam>(h);
    for (index_type s = 0; s < 3; ++s) {
      EXPECT_EQ(r.status[s], 0);
      EXPECT_EQ(r.x[2 * s], S(2));
      EXPECT_EQ(r.x[2 * s + 1], S(1));
    }
    auto sys = allocate_system<L, S, M>("t", h.systems, h.rows);
    upload(h.a, sys.matrix.lower);
    upload(h.b, sys.matrix.diag);
    upload(h.c, sys.matrix.upper);
    upload(h.d, sys.rhs);
    BatchVector<S, L, M> x("x", h.systems, h.rows);
    StatusView<M> status("status", h.systems);
    thomas::solve(typename TypeParam::exec(), sys.matrix, sys.rhs, x, status);
    auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
    EXPECT_EQ(st(0), 1) << "Thomas was expected to break down on [0 1; 1 0]";
  }
  // Whole zero diagonal, random off-diagonals: nonsingular for even n, singular for odd n (the
  // determinant recurrence f_k = -a_k c_{k-1} f_{k-2} starts from f_1 = 0). The zeros propagate
  // exactly, so U(n,n) = 0 and both ?gtsv and the solver report INFO = n.
  for (index_type n : {2, 3, 4, 10, 17, 64}) {
    auto h = make_host_batch<S>(37, n, MatrixKind::non_dominant, test_seed() + 31 * n);
    std::fill(h.b.begin(), h.b.end(), S(0));
    const auto r = solve_batch<TypeParam>(h);
    if (n % 2 == 0) {
      for (int code : r.status) ASSERT_EQ(code, 0) << "n = " << n;
      expect_solves_like_gtsv(h, r.x, "zero diagonal, n = " + std::to_string(n));
    } else {
      for (index_type s = 0; s < h.systems; ++s) {
        std::vector<S> xl;
        const int info = lapack_gtsv(std::vector<S>(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
                                     std::vector<S>(h.b.begin() + s * n, h.b.begin() + (s + 1) * n),
                                     std::vector<S>(h.c.begin() + s * n, h.c.begin() + (s + 1) * n),
                                     std::vector<S>(h.d.begin() + s * n, h.d.begin() + (s + 1) * n), xl);
        EXPECT_EQ(info, n);
        EXPECT_EQ(r.status[s], info) << "system " << s << ", n = " << n;
        for (index_type i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(r.x[s * n + i]));
      }
    }
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(PivotingSolve, TinyDiagonalsNeedInterchanges) {
  using S = typename TypeParam::scalar;
  // Diagonal entries scaled down to delta: elimination without interchanges has multipliers and
  // pivots of size 1/delta and a backward error of about eps/delta, far above the bound; with
  // partial pivoting the backward error stays at O(eps).
  const S delta = std::is_same_v<S, float> ? S(1e-4) : S(1e-9);
  for (index_type n : {4, 17, 64, 100}) {
    auto h = make_host_batch<S>(37, n, MatrixKind::non_dominant, test_seed() + 101 * n);
    for (S& v : h.b) v *= delta;
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) ASSERT_EQ(code, 0) << "n = " << n;
    expect_solves_like_gtsv(h, r.x, "tiny diagonal, n = " + std::to_string(n));
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(PivotingSolve, FailedSystemsAreReportedAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  const index_type systems = 37, n = 12;  // 37: the last block of BlockInterleaved<32> is partial
  auto h = make_host_batch<S>(systems, n, MatrixKind::non_dominant, test_seed());
  const auto clean = solve_batch<TypeParam>(h);
  const auto zero_column = [&](index_type s, index_type j) {
    h.at(h.b, s, j) = 0;
    if (j + 1 < n) h.at(h.a, s, j + 1) = 0;
    if (j > 0) h.at(h.c, s, j - 1) = 0;
  };
  zero_column(2, 4);       // singular: U(5,5) = 0 exactly, as ?gtsv's INFO
  zero_column(9, n - 1);   // singular in the last column: INFO = n
  zero_column(36, 0);      // singular in the first column: INFO = 1
  h.at(h.d, 5, 7) = std::numeric_limits<S>::quiet_NaN();  // NaN right-hand side at row 8
  h.at(h.b, 7, 0) = std::numeric_limits<S>::infinity();   // infinite pivot candidate at step 1
  h.at(h.a, 11, 3) = std::numeric_limits<S>::quiet_NaN(); // NaN pivot candidate at step 3
  make_back_substitution_overflow(h, 13);  // finite elimination, x(0) overflows in back substitution
  const auto r = solve_batch<TypeParam>(h);
  const std::vector<index_type> failed = {2, 5, 7, 9, 11, 13, 36};
  EXPECT_EQ(r.status[2], 5);
  EXPECT_EQ(r.status[9], static_cast<int>(n));
  EXPECT_EQ(r.status[36], 1);
  for (index_type s : {index_type(2), index_type(9), index_type(36)}) {  // LAPACK agrees on the singular ones
    std::vector<S> xl;
    EXPECT_EQ(lapack_gtsv(std::vector<S>(h.a.begin() + s * n, h.a.begin() + (s + 1) * n),
                          std::vector<S>(h.b.begin() + s * n, h.b.begin() + (s + 1) * n),
                          std::vector<S>(h.c.begin() + s * n, h.c.begin() + (s + 1) * n),
                          std::vector<S>(h.d.begin() + s * n, h.d.begin() + (s + 1) * n), xl),
              r.status[s])
        << "system " << s;
  }
  // The NaN enters the eliminated right-hand side at row 7 or 8 (or later while rows keep being
  // interchanged): -k with k >= 7.
  EXPECT_LT(r.status[5], 0);
  EXPECT_GE(-r.status[5], 7);
  EXPECT_EQ(r.status[7], 1);
  EXPECT_EQ(r.status[11], 3);
  EXPECT_EQ(r.status[13], -1);
  for (index_type s = 0; s < systems; ++s) {
    const bool is_failed = std::find(failed.begin(), failed.end(), s) != failed.end();
    for (index_type i = 0; i < n; ++i) {
      const S v = r.x[s * n + i];
      if (is_failed) {
        EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i << " is not NaN";
      } else {
        EXPECT_EQ(r.status[s], 0);
        EXPECT_EQ(std::memcmp(&v, &clean.x[s * n + i], sizeof(S)), 0) << "neighbour " << s << " changed";
      }
    }
  }
}

TYPED_TEST(PivotingSolve, EmptyBatchesAndEmptySystemsAreFine) {
  using S = typename TypeParam::scalar;
  for (auto shape : {std::pair<index_type, index_type>{0, 10}, {10, 0}, {0, 0}}) {
    const auto h = make_host_batch<S>(shape.first, shape.second, MatrixKind::non_dominant, 1);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) EXPECT_EQ(code, 0);
  }
}

TYPED_TEST(PivotingSolve, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  auto sys = allocate_system<L, S, M>("t", 8, 16);
  BatchVector<S, L, M> wrong_systems("x", 7, 16), wrong_rows("x", 8, 15), x("x", 8, 16), rhs_short("d", 8, 15);
  fill_storage(wrong_systems, S(42));
  fill_storage(wrong_rows, S(42));
  fill_storage(x, S(42));
  typename TypeParam::exec exec;
  EXPECT_THROW(pivoting::solve(exec, sys.matrix, sys.rhs, wrong_systems), tridiag::invalid_argument);
  EXPECT_THROW(pivoting::solve(exec, sys.matrix, sys.rhs, wrong_rows), tridiag::invalid_argument);
  EXPECT_THROW(pivoting::solve(exec, sys.matrix, rhs_short, x), tridiag::invalid_argument);
  StatusView<M> short_status("status", 7);
  EXPECT_THROW(pivoting::solve(exec, sys.matrix, sys.rhs, x, short_status), tridiag::invalid_argument);
  pivoting::Workspace<S, L, M> small_work("work", 8, 15);
  EXPECT_THROW(pivoting::solve(exec, sys.matrix, sys.rhs, x, {}, small_work), tridiag::invalid_argument);
  try {
    pivoting::solve(exec, sys.matrix, sys.rhs, wrong_systems);
    ADD_FAILURE() << "no exception";
  } catch (const tridiag::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pivoting::solve"), std::string::npos) << what;
    EXPECT_NE(what.find("7 systems"), std::string::npos) << what;
    EXPECT_NE(what.find("8 systems"), std::string::npos) << what;
  }
  exec.fence();
  for (S v : download(wrong_systems)) ASSERT_EQ(v, S(42));
  for (S v : download(wrong_rows)) ASSERT_EQ(v, S(42));
  for (S v : download(x)) ASSERT_EQ(v, S(42));
}

TYPED_TEST(PivotingSolve, InPlaceAndWithWorkspaceGiveTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto h = make_host_batch<S>(45, 33, MatrixKind::non_dominant, test_seed());
  const auto reference = solve_batch<TypeParam>(h);
  auto sys = allocate_system<L, S, M>("t", h.systems, h.rows);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  pivoting::Workspace<const S, L, M> work("work", h.systems, h.rows);  // const and non-const: one type
  EXPECT_EQ((pivoting::workspace_bytes<S, L>(h.systems, h.rows)),
            3 * work.diag.mapping().required_span() * static_cast<index_type>(sizeof(S)));
  const TridiagonalBatch<const S, L, M> const_matrix(sys.matrix);
  typename TypeParam::exec exec;
  for (int repeat = 0; repeat < 2; ++repeat) {  // in place, twice: same rhs each time
    upload(h.d, sys.rhs);
    pivoting::solve(exec, const_matrix, sys.rhs, sys.rhs, {}, work);
    exec.fence();
    const auto x = download(sys.rhs);
    ASSERT_EQ(std::memcmp(x.data(), reference.x.data(), x.size() * sizeof(S)), 0) << "repeat " << repeat;
  }
}

// ---- complex right-hand sides (one layout: the kernel is the same source) --------------------
template <class C>
class PivotingComplex : public KokkosTest {};
using ComplexConfigs = to_gtest<product<RealScalars, list<layouts::BlockInterleaved<32>>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PivotingComplex, ComplexConfigs, ConfigNames);

TYPED_TEST(PivotingComplex, ComplexRightHandSideWithRealMatrix) {
  using R = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  for (index_type n : {1, 2, 17, 100}) {
    const index_type systems = 37;
    const auto h = make_host_batch<R>(systems, n, MatrixKind::non_dominant, test_seed() + n);
    const auto h_im = make_host_batch<R>(systems, n, MatrixKind::non_dominant, test_seed() + n + 1);
    const auto r = solve_complex_rhs<L, M>(h, h_im, [](const auto& matrix, const auto& d, const auto& x, const auto& status) {
      pivoting::solve(typename TypeParam::exec(), matrix, d, x, status);
      typename TypeParam::exec().fence();
      expect_padding_untouched(x);
    });
    for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0);
    // The real matrix acts on real and imaginary parts separately: two real solves.
    expect_solves_like_gtsv(r.real_part, r.re, "complex rhs, real part, n = " + std::to_string(n));
    expect_solves_like_gtsv(r.imaginary_part, r.im, "complex rhs, imaginary part, n = " + std::to_string(n));
    if (this->HasFailure()) return;
  }
}

}  // namespace
}  // namespace tridiag::test
