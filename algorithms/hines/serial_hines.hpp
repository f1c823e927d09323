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

#include <tridiag/algorithms/hines/hines_quotients.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/streaming_access.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines {

namespace impl {
using tridiag::impl::usable_pivot;  // core/breakdown.hpp
using tridiag::impl::poison_solution;  // core/breakdown.hpp
using tridiag::impl::prefetch;  // core/streaming_access.hpp

}  // namespace impl

/// Row i's place in its tree, packed into one int per row of a morphology so that the sweeps
/// read it with one load: its parent and two facts the backward sweep needs, derived once per
/// morphology on the host when Morphologies is built (Morphologies::links(), hines_batch.hpp;
/// every neuron of the morphology shares them, so they stay in cache):
///   has_children  some row has parent i (else i is a leaf: its entries start as d(i), rhs(i));
///   first_child   i is the highest-numbered child of its parent, the first one the backward
///                 sweep (last row to first) reaches: it starts the parent's entries from
///                 d(parent), rhs(parent), the others subtract from the partial ones.
/// link = (parent + 1) * 4 + flags >= 0; a pad row's is 0 (encode(-1, 0)).
struct TreeLinks {
  static constexpr int has_children = 1;
  static constexpr int first_child = 2;
  /// The most rows a morphology may have: (max_rows - 1 + 1) * 4 + 3 is INT_MAX.
  static constexpr int max_rows = (2147483647 - 3) / 4;
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int encode(int parent, int flags) { return (parent + 1) * 4 + flags; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int parent(int link) { return link / 4 - 1; }
};

namespace impl {
/// How many rows ahead of the one it works on a sweep asks the memory system for (prefetch into
/// L2, core/streaming_access.hpp; on a CUDA device only): one thread per neuron walks its rows one
/// after the other, and its loads of a row cannot be issued before the stores of the rows before
/// it (the compiler cannot tell them apart), so without this every row waits a whole memory
/// latency when the device is not full. Measured on the H100 (double, docs/performance.md): 1 row
/// ahead, AA0013 at 25,600 neurons, SubtreeParallel on BlockInterleaved<32>, 4.64 -> 3.62 ms; BG001
/// at 256,000, PerNeuron, 5.81 -> 5.58 ms; 2, 3, 4 and 8 rows ahead gained less at 25,600 and lost
/// up to 38% at 256,000 (lines fetched early and evicted before use).
/// TRIDIAG_HINES_PREFETCH_ROWS (a compile definition, >= 1) overrides it.
#ifndef TRIDIAG_HINES_PREFETCH_ROWS
#define TRIDIAG_HINES_PREFETCH_ROWS 1
#endif
inline constexpr index_type hines_prefetch_rows = TRIDIAG_HINES_PREFETCH_ROWS;

/// One thread's backward sweep (leaves to root) over a sequence of rows in decreasing order, one
/// row per step(): the per-row code of SerialHines::invoke, for it and for kernels that walk a
/// neuron's rows as several such sequences (algo::SubtreeParallel, subtree_parallel_kernel.hpp).
/// (wc, xc): the reduced entries of the next row of the sequence when the row just eliminated is
/// its last child and left them in registers (carried). bad_rhs: the lowest row whose rhs was seen
/// non-finite (`none` if none): a parent's rhs is read at its first child, out of row order, hence
/// a minimum rather than the first found. OneReciprocal: the row's two quotients through
/// impl::quotients (hines_quotients.hpp: one reciprocal on a CUDA device in double, the same bits
/// as `/`). Measured on the H100 (docs/performance.md, 2026-11-26): SubtreeParallel 3-4% faster on
/// latency-bound batches (AA0013, 1,000 and 2,327 neurons), so it uses it; PerNeuron on
/// Interleaved 11-13% slower at 256,000 neurons (small-low 0.737 -> 0.825 ms, big-high 7.31 ->
/// 8.21), so it does not.
template <class Matrix, class Value, bool OneReciprocal = false>
struct HinesElimination {
  Matrix wc{};
  Value xc{};
  bool carried = false;
  index_type bad_rhs;

  KOKKOS_FORCEINLINE_FUNCTION explicit HinesElimination(index_type none) : bad_rhs(none) {}

  /// Row i (links(i) = link), fully reduced by its children, eliminates its entry b(i) in its
  /// parent's row. `next`: the row the sequence reaches next (a negative value if none): the
  /// parent's entries stay in registers only when the parent is that row, else they are stored in
  /// w and x. Returns false, having written nothing, when row i's pivot is zero, tiny or
  /// non-finite.
  template <class A, class B, class D, class R, class X, class W>
  KOKKOS_FORCEINLINE_FUNCTION bool step(index_type i, int link, index_type next, const A& a, const B& b, const D& d,
                                        const R& rhs, const X& x, const W& w) {
    if (i >= hines_prefetch_rows) {  // the inputs of the row this sweep is likely to reach later
      const index_type ahead = i - hines_prefetch_rows;
      prefetch(a(ahead));
      prefetch(b(ahead));
      prefetch(d(ahead));
      prefetch(rhs(ahead));
    }
    const bool leaf = (link & TreeLinks::has_children) == 0;
    const bool first_child = (link & TreeLinks::first_child) != 0;
    const int p = TreeLinks::parent(link);
    // Every load of the row is issued before its first store: the compiler may not move a load
    // above a store it cannot tell apart from it, so a row whose coefficients were loaded after
    // its x(i) store waited on memory twice. (Measured on the H100, docs/performance.md: PerNeuron
    // 4-7% faster at 256,000 neurons, 19% on Interleaved at 25,600, although it takes 74 registers
    // instead of 62 on BlockInterleaved<32>; SubtreeParallel within 2.5% either way.)
    Matrix wi;
    Value xi;
    if (carried) {
      wi = wc;
      xi = xc;
    } else if (leaf) {
      wi = d(i);
      xi = rhs(i);
    } else {  // reduced by its children, the last of which stored the entries
      wi = w(i);
      xi = x(i);
    }
    Matrix ai{}, bi{}, wp{};
    Value xp{};
    if (p >= 0) {
      ai = a(i);
      bi = b(i);
      if (first_child) {  // the parent's entries start here, from its input
        wp = d(p);
        xp = rhs(p);
      } else {
        wp = w(p);
        xp = x(p);
      }
    }
    if (!carried && leaf && !compat::isfinite(xi) && i < bad_rhs) bad_rhs = i;
    if (!impl::usable_pivot(wi)) return false;
    carried = false;
    // Row i is final: what the forward sweep needs of it is stored scaled by its pivot, so that
    // the substitution reads two values and divides by nothing (hines_substitute).
    Value ri;
    Matrix ci{};
    if constexpr (OneReciprocal) {
      quotients(xi, ai, wi, ri, ci);  // (a root's ai is 0)
    } else {
      ri = xi / wi;
    }
    x(i) = ri;
    if (p >= 0) {
      if (first_child && !compat::isfinite(xp) && p < bad_rhs) bad_rhs = p;
      if constexpr (!OneReciprocal) ci = ai / wi;
      w(i) = ci;
      wp -= bi * ci;
      xp -= bi * ri;
      if (p == next) {  // i is p's last child: p is reduced, and the next row
        wc = wp;
        xc = xp;
        carried = true;
      } else {
        w(p) = wp;
        x(p) = xp;
      }
    }
    return true;
  }
};

/// The forward substitution (root to leaves) at row i with parent p (-1: a root), once x(p) is
/// final: x(i) = x(i) - w(i) x(p), x(i) and w(i) holding what the backward sweep left there, the
/// eliminated right-hand side and lower entry a(i) divided by the row's pivot. x(p) is read from
/// `previous` when p is `previous_row`, the row substituted just before (registers), else from x:
/// the same value either way.
template <class Value, class X, class W>
KOKKOS_FORCEINLINE_FUNCTION Value hines_substitute(index_type i, int p, index_type previous_row, const Value& previous,
                                                   const X& x, const W& w, index_type rows) {
  if (i + hines_prefetch_rows < rows) {  // the inputs of the row this sweep is likely to reach later
    const index_type ahead = i + hines_prefetch_rows;
    prefetch(x(ahead));
    prefetch(w(ahead));
  }
  Value xi = x(i);
  if (p >= 0) xi -= w(i) * (p == previous_row ? previous : x(p));
  return xi;
}
}  // namespace impl

/// One thread solves one Hines system. Row i (0 <= i < n) reads
///   d(i) x(i) + a(i) x(parent(i)) + sum over children c of i: b(c) x(c) = rhs(i),
/// i.e. a(i) = A(i, parent(i)) (lower) and b(i) = A(parent(i), i) (upper), the convention of
/// HinesSystem (backward_euler.hpp); a(i), b(i) are not read where parent(i) = -1. parent(i) < i;
/// every row with parent -1 is the root of its own tree (row 0 always is; several roots make a
/// forest, solved tree by tree in the same sweeps). Rows n <= i < rows are padding: diagonal
/// rows d(i) x(i) = rhs(i), whose parent, a and b are not read. links(i) is row i's TreeLinks
/// (parent and flags; Morphologies::links()).
///
/// x may be the same storage as rhs (in place): rhs(i) is always read before x(i) is first
/// written. w is scratch of n rows (matrix scalar) for the eliminated diagonal (then the scaled
/// lower entries), so a, b, d and rhs are never written. Returns a status code
/// (core/status.hpp): k > 0 when the pivot of row k-1 was zero, tiny or non-finite, the tree's
/// rows being eliminated from the last to the first (so k is the highest failing tree row), else
/// the lowest failing pad row (pad rows are solved after the tree, in increasing order; a pad
/// pivot outranks a non-finite value); -k when rhs(k-1) is non-finite (the first, i.e. lowest,
/// such row), else when x(k-1) is (overflow). x is then NaN on all rows.
///
/// Memory traffic per row, about 9 values (the copy-then-sweep solve before it moved about 14,
/// a pass copying d and rhs into w and x coming first; 10 while the substitution still divided
/// by the pivot): the backward sweep reads a, b, d, rhs once each and writes w and x once each;
/// the forward sweep reads x and w and writes x. A row's eliminated entries start from d and rhs
/// at its first child (or at the row itself for a leaf) and stay in registers while they pass to
/// the next row down (parent(i) = i - 1: along every unbranched section, and from a branch
/// point's lowest child), as x of the parent does in the forward sweep; only at branch points are
/// partial entries stored and read back. Once row i is reduced (pivot w_i, right-hand side x_i),
/// it keeps c_i = a(i) / w_i in w(i) and r_i = x_i / w_i in x(i); its parent's entries lose
/// b(i) c_i and b(i) r_i, and the substitution is x(i) = r_i - c_i x(parent(i)): the same number
/// of divisions as the textbook sweep, all in the backward sweep, and one value less to read in
/// the forward one. Results are bitwise those of that sweep written the same way (over the
/// children in decreasing order, starting from w = d, x = rhs; test_hines_solve.cpp) and of
/// algo::BranchParallel (branch_parallel_kernel.hpp).
struct SerialHines {
  static constexpr const char* name() { return "hines"; }

  template <class L, class A, class B, class D, class R, class X, class W>
  KOKKOS_INLINE_FUNCTION static int invoke(index_type n, index_type rows, const L& links, const A& a, const B& b,
                                           const D& d, const R& rhs, const X& x, const W& w) {
    using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(d(0))>>;
    using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
    // Backward sweep (leaves to root), every row's parent reduced in registers when it is the
    // next row (impl::HinesElimination).
    impl::HinesElimination<Matrix, Value> sweep(rows);
    for (index_type i = n - 1; i >= 0; --i) {
      if (!sweep.step(i, links(i), i - 1, a, b, d, rhs, x, w)) {
        impl::poison_solution(rows, x);
        return static_cast<int>(i + 1);
      }
    }
    index_type& bad_rhs = sweep.bad_rhs;
    // Forward substitution (root to leaves): the parent's unknown is known before its children's.
    index_type bad_x = rows;
    Value previous{};  // x(i - 1), final
    for (index_type i = 0; i < n; ++i) {
      const Value xi = impl::hines_substitute(i, TreeLinks::parent(links(i)), i - 1, previous, x, w, n);
      if (bad_x == rows && !compat::isfinite(xi)) bad_x = i;
      x(i) = xi;
      previous = xi;
    }
    // Padding: identity-like diagonal rows, so a padded batch needs no special case anywhere.
    for (index_type i = n; i < rows; ++i) {
      const Matrix di = d(i);
      if (!impl::usable_pivot(di)) {
        impl::poison_solution(rows, x);
        return static_cast<int>(i + 1);
      }
      const Value ri = rhs(i);
      if (bad_rhs == rows && !compat::isfinite(ri)) bad_rhs = i;
      const Value xi = ri / di;
      if (bad_x == rows && !compat::isfinite(xi)) bad_x = i;
      x(i) = xi;
    }
    if (bad_rhs < rows || bad_x < rows) {
      impl::poison_solution(rows, x);
      return -static_cast<int>((bad_rhs < rows ? bad_rhs : bad_x) + 1);
    }
    return status_code::ok;
  }
};

}  // namespace tridiag::hines
