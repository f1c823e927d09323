#pragma once
// Gaussian elimination with partial (row) pivoting for one tridiagonal system, run by one thread:
// the algorithm of LAPACK ?gtsv (dgtsv.f, NRHS = 1 branch), step for step. Rows i and i+1 are
// interchanged when |A(i+1,i)| > |current U(i,i)|, which makes U upper triangular with two
// superdiagonals (U(i,i+2) != 0 only where rows i and i+1 were interchanged) and bounds the growth
// factor by 2, so any nonsingular tridiagonal matrix is solved backward stably: random
// non-dominant matrices, zero diagonal entries ([0 1; 1 0]), indefinite matrices, all of which
// break the Thomas algorithm. Costs about 1.4x Thomas' traffic (13 against 9 words per row).
//
// Differences from ?gtsv, all for non-finite input: a NaN or infinite pivot candidate (the active
// diagonal or the subdiagonal entry below it) is reported at once as a bad pivot, where ?gtsv
// would carry it on; a non-finite solution is reported (-k) and not returned.
//
// Written once against row accessors (callables r(i) returning a reference or a value), so one
// source serves every layout, fixed and variable batches, host and device.

#include <type_traits>

#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::pivoting {

namespace impl {
using tridiag::impl::poison_solution;  // core/breakdown.hpp

/// Index of the first row of x in [0, n) that is not finite, n if none.
template <class X>
KOKKOS_INLINE_FUNCTION index_type first_non_finite(index_type n, const X& x) {
  index_type first = 0;
  while (first < n && compat::isfinite(x(first))) ++first;
  return first;
}
}  // namespace impl

/// One thread solves one system of n rows with partial pivoting (LAPACK ?gtsv):
///   a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i),  i = 0..n-1  (a(0), c(n-1) never read).
/// a, b, c, d are only read: the matrix is not modified. The factor U lives in u0, u1, u2 (n rows
/// each, matrix scalar type; rows 0..n-2 are written, U(n-1,n-1) stays in a register):
///   u0(i) = U(i,i), u1(i) = U(i,i+1), u2(i) = U(i,i+2)   (?gtsv's D, DU and DL on exit),
/// and the right-hand side transformed by the elimination lives in x, which back substitution
/// then overwrites with the solution. x may be the same storage as d (in place); u0, u1, u2 must
/// not alias anything else.
/// Memory traffic per row: reads a, b, c, d; writes u0, u1, u2, x; reads u0, u1, u2, x back;
/// writes x (13 values; Thomas: 9). The multipliers are applied on the fly and not stored.
/// Returns a status code (core/status.hpp), LAPACK INFO style:
///   0    solved;
///   k>0  U(k,k) (1-based) is exactly zero (the matrix is singular, as ?gtsv's INFO = k), or a
///        pivot candidate at step k is NaN or infinite. Unlike Thomas, a tiny but nonzero pivot is
///        not an error (partial pivoting makes it the largest entry of its column); should the
///        division by it overflow, the -k check below reports it;
///   -k   the solution is not finite: row k (1-based) is the first row of the eliminated
///        right-hand side that is not finite (NaN or infinity in d, or overflow in elimination),
///        or, when elimination was finite, the first non-finite row of the solution (overflow in
///        back substitution).
/// A failed system's x is NaN in every row.
struct SerialGtsv {
  static constexpr const char* name() { return "gtsv"; }

  template <class A, class B, class C, class D, class X, class U0, class U1, class U2>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, const A& a, const B& b, const C& c, const D& d, const X& x,
                                           const U0& u0, const U1& u1, const U2& u2) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    if (n <= 0) return status_code::ok;
    // The active row i of the partly eliminated matrix: p = its diagonal, q = its superdiagonal,
    // r = its right-hand side (?gtsv's D(i), DU(i), B(i) at the start of step i). Row i+1 is still
    // untouched at step i, so it is read straight from the matrix.
    Matrix p = b(0);
    Matrix q = n > 1 ? c(0) : Matrix(0);
    Value r = Value(d(0));
    for (index_type i = 0; i + 1 < n; ++i) {
      const Matrix l = a(i + 1);                             // DL(i) = A(i+1, i)
      const Matrix bn = b(i + 1);                            // D(i+1)
      const Matrix cn = i + 2 < n ? c(i + 1) : Matrix(0);  // DU(i+1), absent in the last step
      const Value dn = Value(d(i + 1));                      // B(i+1), read before x(i) is written
      if (!compat::isfinite(p) || !compat::isfinite(l)) {
        impl::poison_solution(n, x);
        return static_cast<int>(i + 1);
      }
      if (compat::abs(p) >= compat::abs(l)) {
        // No interchange; |p| >= |l| and p == 0 means column i is zero below the diagonal too.
        if (p == Matrix(0)) {
          impl::poison_solution(n, x);
          return static_cast<int>(i + 1);
        }
        const Matrix fact = l / p;
        u0(i) = p;
        u1(i) = q;
        u2(i) = Matrix(0);
        x(i) = r;
        p = bn - fact * q;
        q = cn;
        r = dn - fact * r;
      } else {
        // Interchange rows i and i+1: U's row i is the matrix's row i+1, (l, bn, cn).
        const Matrix fact = p / l;
        u0(i) = l;
        u1(i) = bn;
        u2(i) = cn;
        x(i) = dn;
        p = q - fact * bn;
        q = -fact * cn;
        r = r - fact * dn;
      }
    }
    if (!compat::isfinite(p) || p == Matrix(0)) {  // U(n-1, n-1)
      impl::poison_solution(n, x);
      return static_cast<int>(n);
    }
    // A NaN or infinity in d (or overflow) reaches the last row whichever rows were interchanged:
    // each step's new r depends on both r and dn, and 0 * NaN = NaN. One check suffices.
    if (!compat::isfinite(r)) {
      const index_type first = impl::first_non_finite(n - 1, x);
      impl::poison_solution(n, x);
      return -static_cast<int>(first + 1);
    }
    // Back substitution, as ?gtsv: x(i) = (r(i) - U(i,i+1) x(i+1) - U(i,i+2) x(i+2)) / U(i,i).
    Value x1 = r / p;  // x(i+1)
    x(n - 1) = x1;
    bool finite = compat::isfinite(x1);
    if (n > 1) {
      Value x2 = x1;  // x(i+2)
      x1 = (x(n - 2) - u1(n - 2) * x2) / u0(n - 2);
      x(n - 2) = x1;
      finite = finite && compat::isfinite(x1);
      for (index_type i = n - 3; i >= 0; --i) {
        const Value xi = (x(i) - u1(i) * x1 - u2(i) * x2) / u0(i);
        x(i) = xi;
        finite = finite && compat::isfinite(xi);
        x2 = x1;
        x1 = xi;
      }
    }
    if (!finite) {
      const index_type first = impl::first_non_finite(n, x);
      impl::poison_solution(n, x);
      return -static_cast<int>(first + 1);
    }
    return status_code::ok;
  }
};

}  // namespace tridiag::pivoting
