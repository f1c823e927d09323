#pragma once
// Factorize once, solve many: the Thomas (LU without pivoting) factorization of a batch, kept for
// the many right-hand sides of a time loop (LAPACK equivalent: ?gttrf without pivoting + ?gttrs,
// or ?pttrf/?pttrs).
//
//   factorize: w_i = b_i - a_i g_{i-1},  g_i = c_i / w_i;  stores 1/w_i and g_i
//   solve:     y_i = (d_i - a_i y_{i-1}) / w_i  (forward),  x_i = y_i - g_i x_{i+1}  (backward)
//
// The solve does the same floating-point operations as thomas::solve, so its results are bitwise
// identical to it, with no division. Traffic of one solve: reads a, 1/w, g, d and writes x, then
// reads x, g and writes x (8 values per unknown). The factorization keeps a shallow copy of the
// matrix's lower diagonal (a View sharing its memory and keeping it alive): do not change the matrix while the
// factorization is in use.
//
// Several right-hand sides per system: solve() accepts a right-hand-side batch of k * systems
// systems; right-hand side r is solved with the matrix of system r % systems.

#include <string>

#include <tridiag/algorithms/thomas/thomas_solve.hpp>

namespace tridiag::thomas {

template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct Factorization {
  using vector_type = BatchVector<Scalar, Layout, MemorySpace>;
  BatchVector<const Scalar, Layout, MemorySpace> lower;  ///< a_i of the factorized matrix (shares its storage)
  vector_type inverse_pivot;  ///< 1 / w_i
  vector_type upper_factor;   ///< g_i = c_i / w_i

  Factorization() = default;
  /// Allocates storage for the factors of a batch of `systems` x `rows`.
  Factorization(const std::string& label, index_type systems, index_type rows)
      : inverse_pivot(label + "_inverse_pivot", systems, rows), upper_factor(label + "_upper_factor", systems, rows) {}

  index_type systems() const { return inverse_pivot.systems(); }
  index_type rows() const { return inverse_pivot.rows(); }
  /// Bytes the factors occupy (the shared lower diagonal not counted).
  index_type bytes() const { return 2 * inverse_pivot.mapping().required_span() * index_type(sizeof(Scalar)); }
};

/// One thread: the factors of one system. Returns a status code (bad pivot at row k: k).
struct SerialThomasFactorize {
  template <class A, class B, class C, class InvW, class G>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, const A& a, const B& b, const C& c, const InvW& inv_w,
                                           const G& g) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
    Matrix g_prev = Matrix(0);
    for (index_type i = 0; i < n; ++i) {
      const Matrix w = i == 0 ? Matrix(b(0)) : Matrix(b(i)) - a(i) * g_prev;
      if (!impl::usable_pivot(w)) {
        for (index_type k = i; k < n; ++k) inv_w(k) = compat::quiet_nan<Matrix>();
        return static_cast<int>(i + 1);
      }
      const Matrix inv = Matrix(1) / w;
      inv_w(i) = inv;
      g_prev = i + 1 < n ? c(i) * inv : Matrix(0);
      g(i) = g_prev;
    }
    return status_code::ok;
  }
};

/// One thread: solve one right-hand side with the factors of its system.
struct SerialThomasSolveFactored {
  template <class A, class InvW, class G, class D, class X>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, const A& a, const InvW& inv_w, const G& g, const D& d,
                                           const X& x) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(inv_w(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    if (n <= 0) return status_code::ok;
    if (!compat::isfinite(inv_w(0))) {  // the factorization of this system failed
      impl::poison_solution(n, x);
      return 1;
    }
    Value x_prev = Value(d(0)) * inv_w(0);
    x(0) = x_prev;
    for (index_type i = 1; i < n; ++i) {
      const Matrix inv = inv_w(i);
      x_prev = (Value(d(i)) - a(i) * x_prev) * inv;
      x(i) = x_prev;
    }
    if (!compat::isfinite(x_prev)) {
      index_type first = 0;
      while (first < n && compat::isfinite(x(first))) ++first;
      impl::poison_solution(n, x);
      // A failed factorization (NaN factors) reads as a bad pivot, anything else as bad input.
      for (index_type i = 0; i < n; ++i)
        if (!compat::isfinite(inv_w(i))) return static_cast<int>(i + 1);
      return -static_cast<int>(first + 1);
    }
    for (index_type i = n - 2; i >= 0; --i) {
      x_prev = x(i) - g(i) * x_prev;
      x(i) = x_prev;
    }
    return impl::back_substitution_status(n, x, x_prev);
  }
};

namespace impl {
/// Throws unless `written` (x of a factorized solve) shares no storage with the factorization's
/// arrays (Factorization or ConstantFactorization): right-hand side r reads the factors of system
/// r % systems, which the other right-hand sides of that system read too, and the backward sweep
/// reads upper_factor(i) after x(i) was written.
template <class W, class Factors>
void check_apart_from_factors(const char* where, const char* name, const W& written, const Factors& factors) {
  using tridiag::impl::require_apart;
  require_apart(where, name, written, "factors.lower", factors.lower);
  require_apart(where, name, written, "factors.inverse_pivot", factors.inverse_pivot);
  require_apart(where, name, written, "factors.upper_factor", factors.upper_factor);
}

/// Kernel of thomas::factorize (a functor, see "Kernels are functors" in core/kokkos_compat.hpp).
template <class A, class B, class C, class InvW, class G, class Status>
struct FactorizeKernel {
  index_type n;
  A a;
  B b;
  C c;
  InvW inv_w;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int code = SerialThomasFactorize::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(inv_w, s),
                                                   rows_of(g, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
/// Kernel of the factorized thomas::solve: right-hand side r uses the factors of system r % nsys.
template <class A, class InvW, class G, class D, class X, class Status>
struct SolveFactoredKernel {
  index_type n, nsys;
  A a;
  InvW inv_w;
  G g;
  D d;
  X x;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type r) const {
    const index_type s = r % nsys;
    const int code = SerialThomasSolveFactored::invoke(n, rows_of(a, s), rows_of(inv_w, s), rows_of(g, s),
                                                       rows_of(d, r), rows_of(x, r));
    if (status.data() != nullptr) status(r) = code;
  }
};
}  // namespace impl

/// Computes the factors of every system. Systems with a bad pivot get status k > 0 and NaN
/// factors (their later solves give NaN and the same status). The matrix is only read:
/// factors.inverse_pivot and factors.upper_factor may share no storage with its diagonals or with
/// each other (tridiag::invalid_argument). Factors over the lower diagonal (which factors.lower
/// keeps for the solves), inverse_pivot over the upper one (row i written before upper(i) is
/// read) and factors shifted against a diagonal gave wrong solves with status 0.
template <class ExecSpace, class MatrixScalar, class Layout, class MemorySpace>
void factorize(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
               Factorization<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>& factors,
               const StatusView<MemorySpace>& status = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::factorize: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::factorize";
  tridiag::impl::check_diagonal_shapes(where, matrix);
  require_same_shape(where, "factors.inverse_pivot", factors.inverse_pivot, "matrix", matrix.diag);
  require_same_shape(where, "factors.upper_factor", factors.upper_factor, "matrix", matrix.diag);
  tridiag::impl::check_status(where, status, matrix.systems());
  tridiag::impl::check_status_rows(where, status, matrix.rows());
  tridiag::impl::check_apart_from_matrix(where, "factors.inverse_pivot", factors.inverse_pivot, matrix);
  tridiag::impl::check_apart_from_matrix(where, "factors.upper_factor", factors.upper_factor, matrix);
  tridiag::impl::require_apart(where, "factors.inverse_pivot", factors.inverse_pivot, "factors.upper_factor",
                               factors.upper_factor);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  const auto inv_w = factors.inverse_pivot, g = factors.upper_factor;
  factors.lower = a;
  if (nsys == 0) return;
  Kokkos::parallel_for(
      "tridiag::thomas::factorize", compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
      impl::FactorizeKernel<decltype(a), decltype(b), decltype(c), decltype(inv_w), decltype(g), StatusView<MemorySpace>>{
          n, a, b, c, inv_w, g, status});
}

/// Solves with precomputed factors; rhs and x hold k * systems right-hand sides (k >= 1),
/// right-hand side r using the factors of system r % systems. x may be rhs (in place); an x that
/// shares storage with the factors (factors.lower, the matrix's lower diagonal, included) or
/// overlaps rhs without being it is rejected (tridiag::invalid_argument).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const Factorization<MatrixScalar, Layout, MemorySpace>& factors,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve (factorized)";
  const index_type nsys = factors.systems(), n = factors.rows();
  require(factors.lower.storage().data() != nullptr || nsys == 0 || n == 0, where,
          "the factorization has not been computed (call thomas::factorize first)");
  // The factors are public members: one assigned after factorize with another shape was read
  // through inverse_pivot's shape (out-of-bounds reads, no error).
  require_same_shape(where, "factors.upper_factor", factors.upper_factor, "factors.inverse_pivot",
                     factors.inverse_pivot);
  if (nsys > 0 && n > 0)
    require_same_shape(where, "factors.lower", factors.lower, "factors.inverse_pivot", factors.inverse_pivot);
  require_same_shape(where, "rhs", rhs, "x", x);
  require(rhs.rows() == n, where, "rhs has ", rhs.rows(), " rows, the factorization ", n);
  require((nsys == 0 && rhs.systems() == 0) || (nsys > 0 && rhs.systems() % nsys == 0), where, "rhs has ",
          rhs.systems(), " systems, not a multiple of the factorization's ", nsys);
  tridiag::impl::check_status(where, status, rhs.systems());
  tridiag::impl::check_status_rows(where, status, n);
  impl::check_apart_from_factors(where, "x", x, factors);
  tridiag::impl::require_in_place_or_apart(where, x, rhs);
  const index_type nrhs = rhs.systems();
  if (nrhs == 0) return;
  const auto a = factors.lower;
  const auto inv_w = factors.inverse_pivot, g = factors.upper_factor;
  Kokkos::parallel_for(
      "tridiag::thomas::solve_factored",
      compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nrhs)),
      impl::SolveFactoredKernel<decltype(a), decltype(inv_w), decltype(g), BatchVector<RhsScalar, Layout, MemorySpace>,
                                BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>, StatusView<MemorySpace>>{
          n, nsys, a, inv_w, g, rhs, x, status});
}

}  // namespace tridiag::thomas
