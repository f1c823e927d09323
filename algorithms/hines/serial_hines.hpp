#pragma once
// The Hines algorithm for one tree-shaped system, run by one thread (Valero-Lara et al.,
// cuHinesBatch, ICCS 2017, Algorithm 1; M. Hines, "Efficient computation of branched nerve
// equations", 1984). No LAPACK equivalent: it is Gaussian elimination without pivoting in the
// order leaves-to-root, which for a tree numbered parent-before-child (parent(i) < i) creates no
// fill-in, so it costs O(n) like Thomas (Thomas is the special case parent(i) = i - 1).
//
// Stable without pivoting for the matrices the cable equation gives (symmetric, diagonally
// dominant M-matrices) and for any diagonally dominant tree matrix. Breakdown is reported, never
// silent: see SerialHines::invoke.
//
// Written once against row accessors (callables r(i) returning a reference, tridiag::rows_of),
// so one source serves every layout, the per-thread kernel and the Block-Shared kernel (whose x
// accessor points into team scratch), on host and device.

#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines {

namespace impl {
using tridiag::impl::usable_pivot;  // core/breakdown.hpp
using tridiag::impl::poison_solution;  // core/breakdown.hpp

}  // namespace impl

/// One thread solves one Hines system. Row i (0 <= i < n) reads
///   d(i) x(i) + a(i) x(parent(i)) + sum over children c of i: b(c) x(c) = rhs(i),
/// i.e. a(i) = A(i, parent(i)) (lower) and b(i) = A(parent(i), i) (upper), the convention of
/// HinesSystem (backward_euler.hpp); a(i), b(i) are not read where parent(i) = -1. parent(i) < i;
/// every row with parent -1 is the root of its own tree (row 0 always is; several roots make a
/// forest, solved tree by tree in the same sweeps). Rows n <= i < rows are padding: diagonal
/// rows d(i) x(i) = rhs(i), whose parent, a and b are not read.
///
/// x may be the same storage as rhs (in place); w is scratch of n rows (matrix scalar) for the
/// eliminated diagonal, so a, b, d and rhs are never written. Returns a status code
/// (core/status.hpp): k > 0 when the pivot of row k-1 was zero, tiny or non-finite, rows being
/// eliminated from the last to the first (so k is the highest failing row); -k when rhs(k-1) is
/// non-finite (the first such row), else when x(k-1) is (overflow). x is then NaN on all rows.
/// Memory traffic per row: reads parent, a, b, d, rhs once; w and x are written, read and
/// written again (the parent's entries once more per child).
struct SerialHines {
  static constexpr const char* name() { return "hines"; }

  template <class P, class A, class B, class D, class R, class X, class W>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, index_type rows, const P& parent, const A& a, const B& b,
                                           const D& d, const R& rhs, const X& x, const W& w) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(d(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    // The backward sweep adds each child's contribution to its parent's row before that row is
    // reached, so the eliminated diagonal and right-hand side start as copies of the input.
    index_type bad_rhs = -1;
    for (index_type i = 0; i < n; ++i) {
      w(i) = d(i);
      const Value ri = rhs(i);
      if (bad_rhs < 0 && !compat::isfinite(ri)) bad_rhs = i;
      x(i) = ri;
    }
    // Backward sweep (leaves to root): row i, fully reduced by its children, eliminates its
    // entry b(i) in its parent's row.
    for (index_type i = n - 1; i >= 0; --i) {
      const Matrix wi = w(i);
      if (!impl::usable_pivot(wi)) {
        impl::poison_solution(rows, x);
        return static_cast<int>(i + 1);
      }
      const int p = parent(i);
      if (p >= 0) {
        const Matrix factor = b(i) / wi;
        w(p) -= factor * a(i);
        x(p) -= factor * x(i);
      }
    }
    // Forward substitution (root to leaves): the parent's unknown is known before its children's.
    index_type bad_x = -1;
    for (index_type i = 0; i < n; ++i) {
      const int p = parent(i);
      Value xi = x(i);
      if (p >= 0) xi -= a(i) * x(p);
      xi /= w(i);
      if (bad_x < 0 && !compat::isfinite(xi)) bad_x = i;
      x(i) = xi;
    }
    // Padding: identity-like diagonal rows, so a padded batch needs no special case anywhere.
    for (index_type i = n; i < rows; ++i) {
      const Matrix di = d(i);
      if (!impl::usable_pivot(di)) {
        impl::poison_solution(rows, x);
        return static_cast<int>(i + 1);
      }
      const Value ri = rhs(i);
      if (bad_rhs < 0 && !compat::isfinite(ri)) bad_rhs = i;
      const Value xi = ri / di;
      if (bad_x < 0 && !compat::isfinite(xi)) bad_x = i;
      x(i) = xi;
    }
    if (bad_rhs >= 0 || bad_x >= 0) {
      impl::poison_solution(rows, x);
      return -static_cast<int>((bad_rhs >= 0 ? bad_rhs : bad_x) + 1);
    }
    return status_code::ok;
  }
};

}  // namespace tridiag::hines
