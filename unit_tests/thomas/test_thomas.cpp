// thomas::solve (one thread per system) on every layout, scalar type and execution space,
// against the long-double banded LU and LAPACK ?gtsv.

#include <climits>
#include <cstring>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/conversion.hpp>
#include <tridiag/layouts/view_adapters.hpp>

#include "reference/reference_thomas.hpp"
#include "thomas/thomas_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasSolve : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasSolve, Configs, ConfigNames);

/// Uploads h into a freshly allocated system of the config's layout, poisons x with NaN, solves,
/// and returns x (flat, host) and the status (host).
template <class C>
SolvedBatch<typename C::scalar> solve_batch(const HostBatch<typename C::scalar>& h) {
  return solve_poisoned<C>(h, [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                 const auto& status) { thomas::solve(exec, matrix, rhs, x, status); });
}

TYPED_TEST(ThomasSolve, MatchesOracleOnDiagonallyDominantBatches) {
  using S = typename TypeParam::scalar;
  for (index_type n : {1, 2, 3, 5, 17, 64, 97, 128, 512}) {
    for (index_type systems : {1, 37, 70}) {
      const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n * 1000 + systems);
      const auto r = solve_batch<TypeParam>(h);
      for (index_type s = 0; s < systems; ++s) ASSERT_EQ(r.status[s], 0) << "system " << s << ", n = " << n;
      expect_matches_oracle(h, r.x, "diagonally dominant, n = " + std::to_string(n));
      // The sequential reference Thomas: the same algorithm, so agreement to a few roundoffs.
      for (index_type s = 0; s < systems; ++s) {
        const auto cut = [&](const std::vector<S>& v) {
          return std::vector<S>(v.begin() + s * n, v.begin() + (s + 1) * n);
        };
        const auto ref = reference_thomas(cut(h.a), cut(h.b), cut(h.c), cut(h.d));
        const std::vector<long double> ref_ld(ref.begin(), ref.end());
        EXPECT_TRUE(forward_error(r.x, s * n, ref_ld) <= 8.0L * (n + 1) * eps_of<S>())
            << "system " << s << ", n = " << n << ": differs from the sequential reference Thomas";
      }
      if (this->HasFailure()) return;
    }
  }
}

TYPED_TEST(ThomasSolve, MatchesOracleOnPoissonBatches) {
  using S = typename TypeParam::scalar;
  for (index_type n : {2, 31, 256, 4096}) {
    const auto h = make_host_batch<S>(5, n, MatrixKind::poisson, test_seed() + n);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) ASSERT_EQ(code, 0);
    expect_matches_oracle(h, r.x, "poisson, n = " + std::to_string(n));
  }
}

TYPED_TEST(ThomasSolve, EmptyBatchesAndEmptySystemsAreFine) {
  using S = typename TypeParam::scalar;
  for (auto shape : {std::pair<index_type, index_type>{0, 10}, {10, 0}, {0, 0}}) {
    const auto h = make_host_batch<S>(shape.first, shape.second, MatrixKind::diagonally_dominant, 1);
    const auto r = solve_batch<TypeParam>(h);
    for (int code : r.status) EXPECT_EQ(code, 0);
  }
}

TYPED_TEST(ThomasSolve, FailedSystemsAreReportedAndLeaveTheirNeighboursExact) {
  using S = typename TypeParam::scalar;
  const index_type systems = 9, n = 12;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto clean = solve_batch<TypeParam>(h);
  // System 2: zero pivot at row 5 (b_4 - a_4 g_3 = 0 is hard to hit; zero the whole row instead).
  h.at(h.a, 2, 4) = 0;
  h.at(h.b, 2, 4) = 0;
  h.at(h.c, 2, 4) = 0;
  // System 5: NaN in the right-hand side at row 8. System 7: infinite diagonal at row 1.
  h.at(h.d, 5, 7) = std::numeric_limits<S>::quiet_NaN();
  h.at(h.b, 7, 0) = std::numeric_limits<S>::infinity();
  const auto r = solve_batch<TypeParam>(h);
  EXPECT_EQ(r.status[2], 5);
  EXPECT_EQ(r.status[5], -8);
  EXPECT_EQ(r.status[7], 1);
  for (index_type s = 0; s < systems; ++s) {
    for (index_type i = 0; i < n; ++i) {
      const S v = r.x[s * n + i];
      if (s == 2 || s == 5 || s == 7) {
        EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i << " is not NaN";
      } else {
        EXPECT_EQ(r.status[s], 0);
        EXPECT_EQ(std::memcmp(&v, &clean.x[s * n + i], sizeof(S)), 0) << "neighbour " << s << " changed";
      }
    }
  }
}

// The forward sweep finite, the back substitution overflowing: status -1 (the overflow reaches
// row 1) and x all NaN, never Inf or NaN with status 0. Systems 3 and 66 of 70: in a full group
// and in the last, partial group of the host group kernel (widths 4 to 64), with and without a
// workspace (the per-thread scratch kernels on host cores, the workspace kernel).
TYPED_TEST(ThomasSolve, OverflowInTheBackSubstitutionIsReported) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const index_type systems = 70, n = 9;
  auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto clean = solve_batch<TypeParam>(h);
  make_back_substitution_overflow(h, 3);
  make_back_substitution_overflow(h, 66);
  const auto with_workspace = [](const auto& exec, const auto& matrix, const auto& rhs, const auto& x,
                                 const auto& status) {
    thomas::Workspace<S, L, M> workspace("workspace", matrix.systems(), matrix.rows());
    thomas::solve(exec, matrix, rhs, x, status, workspace);
  };
  for (const auto& r : {solve_batch<TypeParam>(h), solve_poisoned<TypeParam>(h, with_workspace)}) {
    for (index_type s = 0; s < systems; ++s) {
      const bool failed = s == 3 || s == 66;
      EXPECT_EQ(r.status[s], failed ? -1 : 0) << "system " << s;
      for (index_type i = 0; i < n; ++i) {
        const S v = r.x[s * n + i];
        if (failed) {
          EXPECT_TRUE(std::isnan(v)) << "failed system " << s << " row " << i << " is " << v;
        } else {
          EXPECT_EQ(std::memcmp(&v, &clean.x[s * n + i], sizeof(S)), 0) << "neighbour " << s << " changed";
        }
      }
    }
  }
}

TYPED_TEST(ThomasSolve, ShapeMismatchThrowsAndWritesNothing) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  auto sys = allocate_system<L, S, M>("t", 8, 16);
  BatchVector<S, L, M> wrong_systems("x", 7, 16), wrong_rows("x", 8, 15), x("x", 8, 16);
  fill_storage(wrong_systems, S(42));
  fill_storage(wrong_rows, S(42));
  typename TypeParam::exec exec;
  EXPECT_THROW(thomas::solve(exec, sys.matrix, sys.rhs, wrong_systems), tridiag::invalid_argument);
  EXPECT_THROW(thomas::solve(exec, sys.matrix, sys.rhs, wrong_rows), tridiag::invalid_argument);
  StatusView<M> short_status("status", 7);
  EXPECT_THROW(thomas::solve(exec, sys.matrix, sys.rhs, x, short_status), tridiag::invalid_argument);
  try {
    thomas::solve(exec, sys.matrix, sys.rhs, wrong_systems);
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("7 systems"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8 systems"), std::string::npos) << e.what();
  }
  for (S v : download(wrong_systems)) ASSERT_EQ(v, S(42));
  for (S v : download(wrong_rows)) ASSERT_EQ(v, S(42));
}

TYPED_TEST(ThomasSolve, InPlaceAndWithWorkspaceGiveTheSameBits) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const auto h = make_host_batch<S>(45, 33, MatrixKind::diagonally_dominant, test_seed());
  const auto reference = solve_batch<TypeParam>(h);
  auto sys = allocate_system<L, S, M>("t", h.systems, h.rows);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  upload(h.d, sys.rhs);
  thomas::Workspace<S, L, M> work("work", h.systems, h.rows);
  typename TypeParam::exec exec;
  for (int repeat = 0; repeat < 2; ++repeat) {  // in place, twice: same rhs each time
    upload(h.d, sys.rhs);
    thomas::solve(exec, sys.matrix, sys.rhs, sys.rhs, {}, work);
    exec.fence();
    const auto x = download(sys.rhs);
    ASSERT_EQ(std::memcmp(x.data(), reference.x.data(), x.size() * sizeof(S)), 0) << "repeat " << repeat;
  }
}

// ---- properties over every layout at once ----------------------------------------------------
template <class C>
class ThomasAcrossLayouts : public KokkosTest {};
using ScalarExecs = to_gtest<product<RealScalars, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasAcrossLayouts, ScalarExecs, ConfigNames);

template <class S, class E, class L>
std::vector<S> solve_in(const HostBatch<S>& h) {
  return solve_batch<Config<S, L, E>>(h).x;
}

TYPED_TEST(ThomasAcrossLayouts, ResultsAreBitwiseIdenticalAcrossLayouts) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  const auto h = make_host_batch<S>(67, 129, MatrixKind::diagonally_dominant, test_seed());
  const auto flat = solve_in<S, E, layouts::Flat>(h);
  const std::vector<std::vector<S>> others = {
      solve_in<S, E, layouts::Interleaved>(h), solve_in<S, E, layouts::BlockInterleaved<8>>(h),
      solve_in<S, E, layouts::BlockInterleaved<32>>(h), solve_in<S, E, layouts::UnifiedVector>(h)};
  for (const auto& x : others) EXPECT_EQ(std::memcmp(x.data(), flat.data(), flat.size() * sizeof(S)), 0);
}

TYPED_TEST(ThomasAcrossLayouts, PlainKokkosViewsWork) {
  using S = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  const index_type systems = 50, n = 40;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  // Interleaved = LayoutLeft (systems, rows)
  Kokkos::View<S**, Kokkos::LayoutLeft, M> a("a", systems, n), b("b", systems, n), c("c", systems, n),
      d("d", systems, n), x("x", systems, n);
  auto ha = Kokkos::create_mirror_view(a), hb = Kokkos::create_mirror_view(b), hc = Kokkos::create_mirror_view(c),
       hd = Kokkos::create_mirror_view(d);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < n; ++i) {
      ha(s, i) = h.a[s * n + i];
      hb(s, i) = h.b[s * n + i];
      hc(s, i) = h.c[s * n + i];
      hd(s, i) = h.d[s * n + i];
    }
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);
  Kokkos::deep_copy(c, hc);
  Kokkos::deep_copy(d, hd);
  Kokkos::deep_copy(x, nan_of<S>());
  using layouts::as_batch_vector;
  TridiagonalBatch<S, layouts::Interleaved, M> matrix(as_batch_vector(a), as_batch_vector(b), as_batch_vector(c));
  thomas::solve(E(), matrix, as_batch_vector(d), as_batch_vector(x));
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  std::vector<S> flat(systems * n);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < n; ++i) flat[s * n + i] = hx(s, i);
  expect_matches_oracle(h, flat, "LayoutLeft Views");
}

TYPED_TEST(ThomasAcrossLayouts, ComplexRightHandSideWithRealMatrix) {
  using R = typename TypeParam::scalar;
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  const index_type systems = 20, n = 50;
  const auto h = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  const auto h_im = make_host_batch<R>(systems, n, MatrixKind::diagonally_dominant, test_seed() + 1);
  const auto r = solve_complex_rhs<layouts::Interleaved, M>(
      h, h_im, [](const auto& matrix, const auto& d, const auto& x, const auto&) { thomas::solve(E(), matrix, d, x); });
  expect_matches_oracle(r.real_part, r.re, "complex rhs, real part");
  expect_matches_oracle(r.imaginary_part, r.im, "complex rhs, imaginary part");
}

// One system of 2^28 + 1 rows in double on a host space: its per-thread scratch (8 n bytes) is
// over INT_MAX, which Kokkos 3.4's PerTeam (an int) wrapped (an abort or a segfault); such
// systems now take the workspace kernel. The storage is mapped without reserve so that only the
// rows touched cost memory: rows 0-1 are [1 1; 1 1] (zero pivot at row 2), so the solve stops
// there and poisons x (2 GiB written). a = b = c share one vector. Device spaces skip.
template <class C>
class ThomasLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<double>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasLongSystem, LongSystemConfigs, ConfigNames);
TYPED_TEST(ThomasLongSystem, ScratchBeyondIntMaxTakesTheWorkspace) {
  using E = typename TypeParam::exec;
  using M = typename TypeParam::memory;
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    GTEST_SKIP() << "host execution spaces only";
  } else {
    const index_type n = (index_type(1) << 28) + 1;
    ASSERT_GT(n * index_type(sizeof(double)), index_type(INT_MAX));
    const MappedFlatSystem<double, M> sys(1, n);
    if (!sys.ok()) GTEST_SKIP() << "cannot map 2 x 2 GiB";
    double* const matrix_data = sys.matrix_data();
    double* const rhs_data = sys.rhs_data();
    matrix_data[0] = matrix_data[1] = 1;
    rhs_data[0] = 1;
    StatusView<M> status("status", 1);
    E exec;
    thomas::solve(exec, sys.matrix(), sys.rhs(), sys.rhs(), status);
    exec.fence();
    EXPECT_EQ(status(0), 2);
    EXPECT_TRUE(std::isnan(rhs_data[0]) && std::isnan(rhs_data[n / 2]) && std::isnan(rhs_data[n - 1]));
  }
}

// Systems of more than INT_MAX rows with a status View: a status code (an int row number) could
// not name their rows (row 2^32 would read 0, "solved"), so the solve is rejected before it
// reads anything (one system of 2^31 rows in float, storage mapped read-only without reserve, never
// touched). Device spaces skip.
TYPED_TEST(ThomasLongSystem, StatusOfSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  with_a_system_beyond_int_max_rows<typename TypeParam::memory>(
      [](const auto& system, const auto&, const auto& status) {
        expect_invalid_argument([&] { thomas::solve(E(), system.matrix(), system.rhs(), system.rhs(), status); },
                                status_rows_rejected);
      });
}

}  // namespace
}  // namespace tridiag::test
