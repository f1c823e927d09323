// periodic::solve (Sherman-Morrison + two Thomas solves, one thread per system) on three layouts,
// both real scalar types and every execution space, against a dense long-double Gaussian
// elimination of the assembled periodic matrix (dense_periodic_oracle.hpp).

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>

#include <tridiag/algorithms/periodic/periodic_solve.hpp>

#include "allocation_counter.hpp"
#include "periodic/dense_periodic_oracle.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using PeriodicLayouts = list<layouts::Interleaved, layouts::Flat, layouts::BlockInterleaved<32>>;

template <class C>
class PeriodicSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, PeriodicLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PeriodicSolve, Configs, ConfigNames);

template <class R>
std::vector<long double> dense_of(const HostBatch<R>& h, index_type s) {
  return assemble_periodic(h.system(h.a, s), h.system(h.b, s), h.system(h.c, s));
}

/// ||A x - d||_inf / (||A||_inf ||x||_inf + ||d||_inf) of periodic system s, in long double.
template <class R, class X>
long double periodic_backward_error(const HostBatch<R>& h, index_type s, const std::vector<X>& x) {
  const index_type n = h.rows;
  const auto A = dense_of(h, s);
  long double res = 0, anorm = 0, xnorm = 0, dnorm = 0;
  for (index_type i = 0; i < n; ++i) {
    long double r = -static_cast<long double>(h.d[s * n + i]), row = 0;
    for (index_type j = 0; j < n; ++j) {
      r += A[i * n + j] * static_cast<long double>(x[s * n + j]);
      row += std::fabs(A[i * n + j]);
    }
    if (!(std::fabs(r) <= res)) res = std::fabs(r);  // NaN-propagating max
    anorm = std::max(anorm, row);
    xnorm = std::max(xnorm, std::fabs(static_cast<long double>(x[s * n + i])));
    dnorm = std::max(dnorm, std::fabs(static_cast<long double>(h.d[s * n + i])));
  }
  const long double denom = anorm * xnorm + dnorm;
  return denom > 0 ? res / denom : res;
}

/// Every system of h (diagonally dominant once assembled) against the dense oracle: forward error
/// <= 16 (n+1) eps kappa with kappa Varah's bound on the condition number, backward error
/// <= 8 (n+1) eps.
template <class R>
void expect_matches_dense_oracle(const HostBatch<R>& h, const std::vector<R>& x, const std::string& what) {
  const index_type n = h.rows;
  const long double eps = eps_of<R>();
  for (index_type s = 0; s < h.systems; ++s) {
    const auto A = dense_of(h, s);
    const long double kappa = dominant_condition_bound(A, static_cast<std::size_t>(n));
    ASSERT_TRUE(std::isfinite(kappa)) << what << ": system " << s << " is not diagonally dominant";
    std::vector<long double> ref;
    ASSERT_TRUE(dense_solve(A, h.system(h.d, s), ref)) << what << ": oracle found system " << s << " singular";
    const long double forward_bound = 16.0L * (n + 1) * eps * kappa;
    const long double backward_bound = 8.0L * (n + 1) * eps;
    const long double fwd = forward_error(x, s * n, ref);
    const long double bwd = periodic_backward_error(h, s, x);
    EXPECT_TRUE(fwd <= forward_bound) << what << ": system " << s << " of " << h.systems << ", n = " << n
                                      << ": forward error " << static_cast<double>(fwd) << " > bound "
                                      << static_cast<double>(forward_bound) << " (seed " << test_seed() << ")";
    EXPECT_TRUE(bwd <= backward_bound) << what << ": system " << s << ", n = " << n << ": backward error "
                                       << static_cast<double>(bwd) << " > " << static_cast<double>(backward_bound)
                                       << " (seed " << test_seed() << ")";
    if (::testing::Test::HasFailure()) return;
  }
}

/// Uploads h into a fresh system of the config's layout, poisons x (padding included) with NaN,
/// solves, checks that the matrix was not modified and the padding not written, and returns x and
/// the status (flat, host).
template <class C>
SolvedBatch<typename C::scalar> solve_batch(const HostBatch<typename C::scalar>& h) {
  return solve_poisoned<C>(h, [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                 const auto& status) { periodic::solve(exec, matrix, rhs, x, status); });
}

constexpr index_type sizes[] = {1, 2, 3, 4, 10, 64, 257, 512};

TYPED_TEST(PeriodicSolve, MatchesDenseOracleOnDiagonallyDominantBatches) {
  using S = typename TypeParam::scalar;
  for (index_type n : sizes) {
    for (index_type systems : {1, 37}) {
      // make_host_batch draws a(0) and c(n-1) too: here they are the corner entries.
      const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + 7 * n + systems);
      const auto r = solve_batch<TypeParam>(h);
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n;
      expect_matches_dense_oracle(h, r.x, "diagonally dominant, n = " + std::to_string(n));
      if (this->HasFailure()) return;
    }
  }
}

TYPED_TEST(PeriodicSolve, MatchesDenseOracleOnShiftedPeriodicLaplacian) {
  using S = typename TypeParam::scalar;
  for (index_type n : sizes) {
    // (-1, 2.5, -1) with both corners -1: the periodic Laplacian shifted by 0.5 (kappa <= 9).
    auto h = make_host_batch<S>(5, n, MatrixKind::poisson, test_seed() + n);
    std::fill(h.b.begin(), h.b.end(), S(2.5));
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) ASSERT_EQ(code, 0) << "n = " << n;
    expect_matches_dense_oracle(h, r.x, "shifted periodic Laplacian, n = " + std::to_string(n));
    if (this->HasFailure()) return;
  }
}

// Ring diffusion with k in 10^[-3, 3] and mass m = 1e-4: weakly dominant, condition up to ~1e7.
// Sherman-Morrison's update x = y - (v^T y) / (1 + v^T z) z could cancel on nearly singular rings;
// with gamma = -b(0) it does not: double solves every system within the backward bound (the
// probe: at most 1.4 eps). Float may report a system failed (a stored ring singular in float),
// never return a wrong one with status 0.
TYPED_TEST(PeriodicSolve, BackwardStableOnHighContrastRingDiffusion) {
  using S = typename TypeParam::scalar;
  const long double bound_per_row = 8.0L * eps_of<S>();
  for (index_type n : {3, 10, 64, 257}) {
    const auto h = make_high_contrast_diffusion<S>(16, n, test_seed() + 3 * n, DiffusionBoundary::ring, 1e-4);
    const auto r = solve_batch<TypeParam>(h);
    int solved = 0;
    for (index_type s = 0; s < h.systems; ++s) {
      if (r.status[s] != 0 && std::is_same_v<S, float>) {
        for (index_type i = 0; i < n; ++i) ASSERT_TRUE(std::isnan(r.x[s * n + i])) << "reported system " << s;
        continue;
      }
      ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n << " (seed " << test_seed() << ")";
      const long double bwd = periodic_backward_error(h, s, r.x);
      EXPECT_TRUE(bwd <= bound_per_row * (n + 1))
          << "system " << s << ", n = " << n << ": backward error " << static_cast<double>(bwd) << " > "
          << static_cast<double>(bound_per_row * (n + 1)) << " (seed " << test_seed() << ")";
      ++solved;
    }
    EXPECT_GT(solved, 0) << "n = " << n << ": every system reported failed (seed " << test_seed() << ")";
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(PeriodicSolve, CornersAreRead) {
  using S = typename TypeParam::scalar;
  // The same matrix with and without its corners must give different solutions (and each its own
  // oracle's).
  for (index_type n : {3, 10}) {
    auto h = make_host_batch<S>(4, n, MatrixKind::diagonally_dominant, test_seed() + n);
    auto h_open = h;
    for (index_type s = 0; s < h.systems; ++s) {
      h_open.at(h_open.a, s, 0) = 0;
      h_open.at(h_open.c, s, n - 1) = 0;
    }
    const auto r = solve_batch<TypeParam>(h), r_open = solve_batch<TypeParam>(h_open);
    expect_matches_dense_oracle(h, r.x, "with corners");
    expect_matches_dense_oracle(h_open, r_open.x, "without corners");
    EXPECT_NE(std::memcmp(r.x.data(), r_open.x.data(), r.x.size() * sizeof(S)), 0);
  }
}

TYPED_TEST(PeriodicSolve, FailedSystemsAreReportedAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  const index_type systems = 37, n = 12;  // 37: the last block of BlockInterleaved<32> is partial
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto clean = solve_batch<TypeParam>(h);
  // System 2: zero row 5: Thomas pivot of the modified matrix at row 5.
  h.at(h.a, 2, 4) = 0;
  h.at(h.b, 2, 4) = 0;
  h.at(h.c, 2, 4) = 0;
  // System 5: NaN in the right-hand side at row 8. System 7: infinite b(0), so gamma is unusable.
  h.at(h.d, 5, 7) = std::numeric_limits<S>::quiet_NaN();
  h.at(h.b, 7, 0) = std::numeric_limits<S>::infinity();
  // System 9: A = I except rows 0 and n-1 = e_0 + e_{n-1} (singular), T = diag(2, 1, ..., 1, 2)
  // is not: z = (-1/2, 0, ..., 0, 1/2) exactly, and the Sherman-Morrison denominator
  // 1 + z(0) - z(n-1) is exactly zero: status n.
  for (index_type i = 0; i < n; ++i) {
    h.at(h.a, 9, i) = 0;
    h.at(h.b, 9, i) = 1;
    h.at(h.c, 9, i) = 0;
  }
  h.at(h.a, 9, 0) = 1;
  h.at(h.c, 9, n - 1) = 1;
  // System 11: A = I except a(0) = 1/2, c(n-1) = 1, d(0) = max/2, d(n-1) = -max/2: y, z and the
  // denominator (1/6) are finite, the Sherman-Morrison factor (y(0) - y(n-1)/2) / (1/6) = 2.5 max
  // is not: the check of the final x reports row 1.
  const S max = std::numeric_limits<S>::max();
  for (index_type i = 0; i < n; ++i) {
    h.at(h.a, 11, i) = 0;
    h.at(h.b, 11, i) = 1;
    h.at(h.c, 11, i) = 0;
    h.at(h.d, 11, i) = 0;
  }
  h.at(h.a, 11, 0) = S(0.5);
  h.at(h.c, 11, n - 1) = 1;
  h.at(h.d, 11, 0) = max / 2;
  h.at(h.d, 11, n - 1) = -max / 2;
  // System 36 (in the partial block): NaN corner a(0): T(n-1,n-1) is NaN, Thomas pivot at row n.
  h.at(h.a, 36, 0) = std::numeric_limits<S>::quiet_NaN();
  const auto r = solve_batch<TypeParam>(h);
  EXPECT_EQ(r.status[2], 5);
  EXPECT_EQ(r.status[5], -8);
  EXPECT_EQ(r.status[7], 1);
  EXPECT_EQ(r.status[9], static_cast<int>(n));
  EXPECT_EQ(r.status[11], -1);
  EXPECT_EQ(r.status[36], static_cast<int>(n));
  const std::vector<index_type> failed = {2, 5, 7, 9, 11, 36};
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

TYPED_TEST(PeriodicSolve, SmallSystemsAreSolvedDirectly) {
  using S = typename TypeParam::scalar;
  // n = 1: (a + b + c) x = d. System 0: 1 + 2 + 1 = 4, x = 2 exactly. System 1: singular.
  {
    HostBatch<S> h{2, 1, {1, 1}, {2, -2}, {1, 1}, {8, 1}};
    const auto r = solve_batch<TypeParam>(h);
    EXPECT_EQ(r.status[0], 0);
    EXPECT_EQ(r.x[0], S(2));
    EXPECT_EQ(r.status[1], 1);
    EXPECT_TRUE(std::isnan(r.x[1]));
  }
  // n = 2: [b0, a0 + c0; a1 + c1, b1]. System 0: [0, 2; 4, 0] x = (2, 4): needs the interchange,
  // x = (1, 1) exactly. System 1: [1, 1; 1, 1] singular: status 2. System 2: [1, 0; 0, 1] with the
  // off-diagonal entries cancelling (a0 = -c0): x = d.
  {
    HostBatch<S> h{3, 2, {1, 3, 0.5, 0.5, 5, 7}, {0, 0, 1, 1, 1, 1}, {1, 1, 0.5, 0.5, -5, -7}, {2, 4, 1, 1, 3, -6}};
    const auto r = solve_batch<TypeParam>(h);
    EXPECT_EQ(r.status[0], 0);
    EXPECT_EQ(r.x[0], S(1));
    EXPECT_EQ(r.x[1], S(1));
    EXPECT_EQ(r.status[1], 2);
    EXPECT_TRUE(std::isnan(r.x[2]) && std::isnan(r.x[3]));
    EXPECT_EQ(r.status[2], 0);
    EXPECT_EQ(r.x[4], S(3));
    EXPECT_EQ(r.x[5], S(-6));
  }
}

TYPED_TEST(PeriodicSolve, EmptyBatchesAndEmptySystemsAreFine) {
  using S = typename TypeParam::scalar;
  for (auto shape : {std::pair<index_type, index_type>{0, 10}, {10, 0}, {0, 0}}) {
    const auto h = make_host_batch<S>(shape.first, shape.second, MatrixKind::diagonally_dominant, 1);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) EXPECT_EQ(code, 0);
  }
}

TYPED_TEST(PeriodicSolve, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  auto sys = allocate_system<L, S, M>("t", 8, 16);
  BatchVector<S, L, M> wrong_systems("x", 7, 16), wrong_rows("x", 8, 15), x("x", 8, 16), rhs_short("d", 8, 15);
  fill_storage(wrong_systems, S(42));
  fill_storage(wrong_rows, S(42));
  fill_storage(x, S(42));
  typename TypeParam::exec exec;
  EXPECT_THROW(periodic::solve(exec, sys.matrix, sys.rhs, wrong_systems), tridiag::invalid_argument);
  EXPECT_THROW(periodic::solve(exec, sys.matrix, sys.rhs, wrong_rows), tridiag::invalid_argument);
  EXPECT_THROW(periodic::solve(exec, sys.matrix, rhs_short, x), tridiag::invalid_argument);
  StatusView<M> short_status("status", 7);
  EXPECT_THROW(periodic::solve(exec, sys.matrix, sys.rhs, x, short_status), tridiag::invalid_argument);
  periodic::Workspace<S, L, M> small_work("work", 7, 16);
  EXPECT_THROW(periodic::solve(exec, sys.matrix, sys.rhs, x, {}, small_work), tridiag::invalid_argument);
  try {
    periodic::solve(exec, sys.matrix, sys.rhs, wrong_rows);
    ADD_FAILURE() << "no exception";
  } catch (const tridiag::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("periodic::solve"), std::string::npos) << what;
    EXPECT_NE(what.find("15 rows"), std::string::npos) << what;
    EXPECT_NE(what.find("16 rows"), std::string::npos) << what;
  }
  exec.fence();
  for (S v : download(wrong_systems)) ASSERT_EQ(v, S(42));
  for (S v : download(wrong_rows)) ASSERT_EQ(v, S(42));
  for (S v : download(x)) ASSERT_EQ(v, S(42));
}

TYPED_TEST(PeriodicSolve, InPlaceAndWithWorkspaceGiveTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto h = make_host_batch<S>(45, 33, MatrixKind::diagonally_dominant, test_seed());
  const auto reference = solve_batch<TypeParam>(h);
  auto sys = allocate_system<L, S, M>("t", h.systems, h.rows);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  periodic::Workspace<const S, L, M> work("work", h.systems, h.rows);  // const and non-const: one type
  EXPECT_EQ((periodic::workspace_bytes<S, L>(h.systems, h.rows)),
            2 * work.z.mapping().required_span() * static_cast<index_type>(sizeof(S)));
  const TridiagonalBatch<const S, L, M> const_matrix(sys.matrix);
  typename TypeParam::exec exec;
  for (int repeat = 0; repeat < 2; ++repeat) {  // in place, twice: same rhs each time
    upload(h.d, sys.rhs);
    int allocations = -1;
    {
      const AllocationCounter counter;  // a solve that ignored the workspace would allocate its own
      periodic::solve(exec, const_matrix, sys.rhs, sys.rhs, {}, work);
      exec.fence();
      allocations = counter.count();
    }
    EXPECT_EQ(allocations, 0) << "repeat " << repeat << ": the solve allocated despite its workspace";
    const auto x = download(sys.rhs);
    ASSERT_EQ(std::memcmp(x.data(), reference.x.data(), x.size() * sizeof(S)), 0) << "repeat " << repeat;
  }
}

// ---- complex right-hand sides (one layout: the kernel is the same source) --------------------
template <class C>
class PeriodicComplex : public KokkosTest {};
using ComplexConfigs = to_gtest<product<RealScalars, list<layouts::Interleaved>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(PeriodicComplex, ComplexConfigs, ConfigNames);

TYPED_TEST(PeriodicComplex, ComplexRightHandSideWithRealMatrix) {
  using R = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  for (index_type n : {1, 2, 3, 64}) {
    const index_type systems = 20;
    const auto h = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n);
    const auto h_im = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n + 1);
    const auto r = solve_complex_rhs<L, M>(h, h_im, [](const auto& matrix, const auto& d, const auto& x, const auto& status) {
      periodic::solve(typename TypeParam::exec(), matrix, d, x, status);
    });
    for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0);
    expect_matches_dense_oracle(r.real_part, r.re, "complex rhs, real part, n = " + std::to_string(n));
    expect_matches_dense_oracle(r.imaginary_part, r.im, "complex rhs, imaginary part, n = " + std::to_string(n));
    // The complex oracle directly, on system 0.
    std::vector<std::complex<long double>> d0(n), ref;
    for (index_type i = 0; i < n; ++i) d0[i] = {static_cast<long double>(h.d[i]), static_cast<long double>(h_im.d[i])};
    ASSERT_TRUE(dense_solve(dense_of(h, 0), d0, ref));
    for (index_type i = 0; i < n; ++i) {
      const long double err = std::abs(std::complex<long double>(r.re[i], r.im[i]) - ref[i]);
      EXPECT_LE(err, 1e3L * eps_of<R>() * (1 + std::abs(ref[i]))) << "n = " << n << ", row " << i;
    }
    if (this->HasFailure()) return;
  }
}

}  // namespace
}  // namespace tridiag::test
