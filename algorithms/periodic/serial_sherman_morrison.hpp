#pragma once
// Periodic (cyclic) tridiagonal systems, one thread per system, by the Sherman-Morrison formula:
// two Thomas solves on a modified tridiagonal matrix (Numerical Recipes, 3rd ed., Section 2.7.2,
// "cyclic tridiagonal systems"; Temperton, J. Comput. Phys. 19 (1975) 317). No LAPACK routine
// solves these directly; ?gtsv on the dense bordered matrix would be the reference.
//
// Convention (the difference from every other solver of tridiag): indices are taken modulo n,
//   a(i) x((i-1) mod n) + b(i) x(i) + c(i) x((i+1) mod n) = d(i),  i = 0..n-1,
// so the two corner entries ARE read: a(0) = A(0, n-1) couples row 0 to x(n-1) and
// c(n-1) = A(n-1, 0) couples row n-1 to x(0). Entries that land on the same matrix position add
// up: for n = 2, A = [b0, a0 + c0; a1 + c1, b1]; for n = 1, A = [a0 + b0 + c0].
//
// Stable for diagonally dominant matrices (the modified matrix below stays diagonally dominant);
// no pivoting, so like Thomas it is not meant for general matrices.

#include <type_traits>

#include <tridiag/core/breakdown.hpp>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::periodic {

namespace impl {
using tridiag::impl::usable_pivot;  // core/breakdown.hpp
using tridiag::impl::poison_solution;  // core/breakdown.hpp


/// Row accessor of the diagonal of T = A - u v^T: b(i), except at rows 0 and n-1.
template <class B, class Matrix>
struct ModifiedDiagonal {
  B b;
  index_type last;
  Matrix first_value, last_value;
  KOKKOS_FORCEINLINE_FUNCTION Matrix operator()(index_type i) const {
    return i == 0 ? first_value : (i == last ? last_value : Matrix(b(i)));
  }
};

/// Row accessor of u = (gamma, 0, ..., 0, c(n-1))^T.
template <class Matrix>
struct CornerColumn {
  index_type last;
  Matrix first_value, last_value;
  KOKKOS_FORCEINLINE_FUNCTION Matrix operator()(index_type i) const {
    return i == 0 ? first_value : (i == last ? last_value : Matrix(0));
  }
};

/// n = 1 or 2: Gaussian elimination with partial pivoting on the (corner-summed) dense matrix.
template <class A, class B, class C, class D, class X>
KOKKOS_INLINE_FUNCTION int solve_small(index_type n, const A& a, const B& b, const C& c, const D& d, const X& x) {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
  if (n == 1) {
    const Matrix w = a(0) + b(0) + c(0);
    if (!usable_pivot(w)) {
      poison_solution(1, x);
      return 1;
    }
    const Value x0 = Value(d(0)) / w;
    if (!compat::isfinite(x0)) {
      poison_solution(1, x);
      return -1;
    }
    x(0) = x0;
    return status_code::ok;
  }
  Matrix m00 = b(0), m01 = a(0) + c(0), m10 = a(1) + c(1), m11 = b(1);
  Value r0 = Value(d(0)), r1 = Value(d(1));
  if (compat::abs(m10) > compat::abs(m00)) {  // interchange the two rows
    Matrix t = m00;
    m00 = m10;
    m10 = t;
    t = m01;
    m01 = m11;
    m11 = t;
    const Value tr = r0;
    r0 = r1;
    r1 = tr;
  }
  if (!usable_pivot(m00) || !compat::isfinite(m10)) {
    poison_solution(2, x);
    return 1;
  }
  const Matrix fact = m10 / m00;
  const Matrix u11 = m11 - fact * m01;
  if (!usable_pivot(u11)) {
    poison_solution(2, x);
    return 2;
  }
  const Value x1 = (r1 - fact * r0) / u11;
  const Value x0 = (r0 - m01 * x1) / m00;
  if (!compat::isfinite(x0) || !compat::isfinite(x1)) {
    poison_solution(2, x);
    return compat::isfinite(x0) ? -2 : -1;
  }
  x(0) = x0;
  x(1) = x1;
  return status_code::ok;
}
}  // namespace impl

/// One thread solves one periodic system of n rows (convention above: a(0) and c(n-1) are read).
///
/// Method (n >= 3): A = T + u v^T with gamma = -b(0),
///   u = (gamma, 0, ..., 0, c(n-1))^T,  v = (1, 0, ..., 0, a(0) / gamma)^T,
/// T tridiagonal with T(0,0) = b(0) - gamma = 2 b(0), T(n-1,n-1) = b(n-1) - a(0) c(n-1) / gamma and
/// A's other entries. Then T y = d and T z = u are solved by thomas::SerialThomas (through a
/// modified-diagonal row accessor: nothing is copied, the matrix is only read), and
///   x = y - (v^T y) / (1 + v^T z) z.
/// gamma = -b(0) keeps T diagonally dominant when A is (|T(n-1,n-1)| >= |b(n-1)| - |c(n-1)|, as
/// |a(0)| <= |b(0)|). n = 1 and 2 are solved directly (solve_small).
///
/// x gets y, then the solution; x may be the same storage as d (in place). z (n rows, matrix
/// scalar) holds z; g (n rows, matrix scalar) is Thomas' scratch, used by both solves.
/// Memory traffic per row: Thomas for y (9 values), Thomas for z (u is generated: 8), the update
/// (reads x, z, writes x: 3): 20 values (Thomas alone: 9).
///
/// Status codes (core/status.hpp), as Thomas:
///   k>0  a zero, tiny or non-finite pivot of T at row k (T's pivots, not A's: A is never
///        factorised), b(0) unusable (k = 1, as then T(0,0) = 0), or a zero, tiny or non-finite
///        Sherman-Morrison denominator 1 + v^T z (k = n: A is singular although T is not, since
///        det A = det T (1 + v^T z)); for n <= 2 the pivots of the direct solve;
///   -k   a non-finite value at row k: in y (Thomas' -k: NaN or infinity in d, overflow), in z, or
///        the first non-finite row of the final x.
/// A failed system's x is NaN in every row.
struct SerialShermanMorrison {
  static constexpr const char* name() { return "periodic"; }

  template <class A, class B, class C, class D, class X, class Z, class G>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, const A& a, const B& b, const C& c, const D& d, const X& x,
                                           const Z& z, const G& g) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    if (n <= 0) return status_code::ok;
    if (n <= 2) return impl::solve_small(n, a, b, c, d, x);
    const Matrix b0 = b(0);
    const Matrix gamma = -b0;
    if (!impl::usable_pivot(gamma)) {
      impl::poison_solution(n, x);
      return 1;
    }
    const Matrix corner_low = c(n - 1);    // A(n-1, 0) = u(n-1)
    const Matrix alpha = a(0) / gamma;     // v(n-1); A(0, n-1) = u(0) v(n-1)
    const impl::ModifiedDiagonal<B, Matrix> t_diag{b, n - 1, b0 - gamma, Matrix(b(n - 1)) - corner_low * alpha};
    int code = thomas::SerialThomas::invoke(n, a, t_diag, c, d, x, g);  // y, in x
    if (code != status_code::ok) return code;                           // x is NaN already
    const impl::CornerColumn<Matrix> u{n - 1, gamma, corner_low};
    code = thomas::SerialThomas::invoke(n, a, t_diag, c, u, z, g);
    if (code != status_code::ok) {
      impl::poison_solution(n, x);
      return code;
    }
    const Matrix denominator = Matrix(1) + z(0) + alpha * z(n - 1);
    if (!impl::usable_pivot(denominator)) {
      impl::poison_solution(n, x);
      return static_cast<int>(n);
    }
    const Value factor = (x(0) + alpha * x(n - 1)) / denominator;
    index_type first_bad = n;
    for (index_type i = 0; i < n; ++i) {
      const Value xi = x(i) - factor * z(i);
      x(i) = xi;
      if (first_bad == n && !compat::isfinite(xi)) first_bad = i;
    }
    if (first_bad < n) {
      impl::poison_solution(n, x);
      return -static_cast<int>(first_bad + 1);
    }
    return status_code::ok;
  }
};

}  // namespace tridiag::periodic
