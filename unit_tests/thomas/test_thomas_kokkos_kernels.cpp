// Device-side checks built on Kokkos Kernels: a dense batched LU (KokkosBatched) of the same
// matrices as a second, independent oracle that runs where the solver runs, and the residual's
// norm computed with KokkosBlas.

#include <KokkosBatched_LU_Decl.hpp>
#include <KokkosBatched_LU_Serial_Impl.hpp>
#include <KokkosBatched_SolveLU_Decl.hpp>
#include <KokkosBlas1_nrminf.hpp>

#include <tridiag/algorithms/thomas/thomas_solve.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

/// Solves each system again as a dense matrix with KokkosBatched LU (one thread per system) and
/// returns max |x - x_dense| and max |x_dense|. (Device lambdas live in free functions: nvcc
/// rejects them inside gtest's private TestBody.)
template <class E, class Matrix, class Vector>
void dense_lu_difference(const Matrix& matrix, const Vector& d, const Vector& x, typename Vector::value_type& max_diff,
                         typename Vector::value_type& max_x) {
  using S = typename Vector::value_type;
  using M = typename Vector::memory_space;
  const index_type systems = matrix.systems(), n = matrix.rows();
  Kokkos::View<S***, Kokkos::LayoutRight, M> dense("dense", systems, n, n);
  Kokkos::View<S***, Kokkos::LayoutRight, M> y("y", systems, n, 1);
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  Kokkos::parallel_for(
      "test::dense_lu", Kokkos::RangePolicy<E>(0, systems), KOKKOS_LAMBDA(const int s) {
        auto A = Kokkos::subview(dense, s, Kokkos::ALL, Kokkos::ALL);
        auto B = Kokkos::subview(y, s, Kokkos::ALL, Kokkos::ALL);
        for (index_type i = 0; i < n; ++i) {
          if (i > 0) A(i, i - 1) = a(s, i);
          A(i, i) = b(s, i);
          if (i + 1 < n) A(i, i + 1) = c(s, i);
          B(i, 0) = d(s, i);
        }
        KokkosBatched::SerialLU<KokkosBatched::Algo::LU::Unblocked>::invoke(A);
        KokkosBatched::SerialSolveLU<KokkosBatched::Trans::NoTranspose,
                                     KokkosBatched::Algo::SolveLU::Unblocked>::invoke(A, B);
      });
  Kokkos::parallel_reduce(
      "test::compare", Kokkos::RangePolicy<E>(0, systems * n),
      KOKKOS_LAMBDA(const int k, S& m) {
        const int s = k / n, i = k % n;
        const S e = compat::abs(x(s, i) - y(s, i, 0));
        m = (e > m || e != e) ? e : m;
      },
      Kokkos::Max<S>(max_diff));
  Kokkos::parallel_reduce(
      "test::norm", Kokkos::RangePolicy<E>(0, systems * n),
      KOKKOS_LAMBDA(const int k, S& m) {
        const S e = compat::abs(y(k / n, k % n, 0));
        m = e > m ? e : m;
      },
      Kokkos::Max<S>(max_x));
}

/// residual = A x - d and rhs_flat = d, both flat (system-major).
template <class E, class Matrix, class Vector, class Flat>
void residual_and_rhs(const Matrix& matrix, const Vector& d, const Vector& x, const Flat& residual,
                      const Flat& rhs_flat) {
  using S = typename Vector::value_type;
  const index_type n = matrix.rows();
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  Kokkos::parallel_for(
      "test::residual", Kokkos::RangePolicy<E>(0, matrix.systems() * n), KOKKOS_LAMBDA(const int k) {
        const int s = k / n, i = k % n;
        S r = b(s, i) * x(s, i) - d(s, i);
        if (i > 0) r += a(s, i) * x(s, i - 1);
        if (i + 1 < n) r += c(s, i) * x(s, i + 1);
        residual(k) = r;
        rhs_flat(k) = d(s, i);
      });
}

template <class C>
class ThomasKokkosKernels : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Interleaved, layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasKokkosKernels, Configs, ConfigNames);

TYPED_TEST(ThomasKokkosKernels, AgreesWithBatchedDenseLuOnTheDevice) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  for (index_type n : {1, 2, 7, 16, 33}) {
    const index_type systems = 29;
    const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed() + n);
    auto sys = allocate_system<L, S, M>("k", systems, n);
    upload(h.a, sys.matrix.lower);
    upload(h.b, sys.matrix.diag);
    upload(h.c, sys.matrix.upper);
    upload(h.d, sys.rhs);
    BatchVector<S, L, M> x("x", systems, n);
    fill_storage(x, nan_of<S>());
    thomas::solve(E(), sys.matrix, sys.rhs, x);

    S max_diff = 0, max_x = 0;
    dense_lu_difference<E>(sys.matrix, sys.rhs, x, max_diff, max_x);
    // Both are backward stable on these well-conditioned (cond_inf < 6) matrices.
    const long double bound = 64.0L * (n + 1) * eps_of<S>();
    EXPECT_TRUE(max_diff <= bound * max_x) << "n = " << n << ": Thomas and batched dense LU differ by " << max_diff;
  }
}

TYPED_TEST(ThomasKokkosKernels, ResidualNormFromKokkosBlasIsAtRoundoffLevel) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  using E = typename TypeParam::exec;
  const index_type systems = 300, n = 257;
  const auto h = make_host_batch<S>(systems, n, MatrixKind::diagonally_dominant, test_seed());
  auto sys = allocate_system<L, S, M>("k", systems, n);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  upload(h.d, sys.rhs);
  BatchVector<S, L, M> x("x", systems, n);
  fill_storage(x, nan_of<S>());
  thomas::solve(E(), sys.matrix, sys.rhs, x);
  Kokkos::View<S*, M> residual("residual", systems * n), rhs_flat("rhs", systems * n);
  residual_and_rhs<E>(sys.matrix, sys.rhs, x, residual, rhs_flat);
  const auto r_norm = KokkosBlas::nrminf(residual);
  const auto d_norm = KokkosBlas::nrminf(rhs_flat);
  // ||A|| <= 5 and ||x|| <= 2 ||d|| (margin >= 0.5): ||A|| ||x|| + ||d|| <= 11 ||d||.
  EXPECT_TRUE(r_norm <= 16 * eps_of<S>() * 11 * d_norm) << "||Ax - d||_inf = " << r_norm << ", ||d||_inf = " << d_norm;
}

}  // namespace
}  // namespace tridiag::test
