#pragma once
// The interface system of the partitioned solver, solved by the P threads of a system together.
// After chunk elimination (chunk_elimination.hpp) thread t holds its chunk's first and last row,
// both with unit diagonal:
//     first:  f.a x(last unknown of chunk t-1) + x(first_t) + f.c x(last_t)                 = f.d
//     last:   l.a x(first_t)                   + x(last_t)  + l.c x(first unknown of chunk t+1) = l.d
// One cyclic-reduction step substitutes every first unknown from its first row into the last
// rows, which leaves P rows (one per thread) tridiagonal in the last unknowns:
//     A x(last_{t-1}) + B x(last_t) + C x(last_{t+1}) = D,
// solved by cyclic reduction (solve_reduced_rows) with rows kept normalised (B = 1): ceil(log2 P)
// reduction levels that move three values per neighbour, then as many substitution levels that
// move one. Each thread then recovers its first unknown from its first row and its neighbour's
// last unknown. 2 + 2 ceil(log2 P) exchanges in all (lane_exchange.hpp), the last log2 P of one
// value each.
// Stability: the chunk elimination and cyclic reduction are Gaussian elimination without
// pivoting in another order, backward stable for diagonally dominant and SPD matrices, weakly
// dominant ones included. Parallel cyclic reduction, used here before, is not: on high-contrast
// diffusion matrices its backward error grew with the conditioning (docs/numerics.md).

#include <tridiag/algorithms/partitioned/lane_exchange.hpp>
#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::partitioned::impl {

/// The two interface rows of one chunk (see the top of this file).
template <class Matrix, class Value>
struct ChunkEnds {
  InterfaceRow<Matrix, Value> first, last;
};

/// One reduction step on a row with unit diagonal: its neighbours `lower` (the row whose unknown
/// is coupled through r.a) and `upper` (through r.c) substituted, the result normalised again.
/// Sets failed when the pivot is unusable. Serves the reduction levels of solve_reduced_rows and
/// the cyclic-reduction step of a chunk: reduce_row(last row, own first row, next chunk's first
/// row) is the chunk's row in the last unknowns.
template <class Matrix, class Value>
KOKKOS_FORCEINLINE_FUNCTION InterfaceRow<Matrix, Value> reduce_row(const InterfaceRow<Matrix, Value>& r,
                                                                   const InterfaceRow<Matrix, Value>& lower,
                                                                   const InterfaceRow<Matrix, Value>& upper,
                                                                   bool& failed) {
  const Matrix w = Matrix(1) - r.a * lower.c - r.c * upper.a;
  if (!tridiag::impl::usable_pivot(w)) failed = true;
  const Matrix inv = Matrix(1) / w;
  return {-r.a * lower.a * inv, -r.c * upper.c * inv, (r.d - r.a * lower.d - r.c * upper.d) * inv};
}

/// Solves P rows with unit diagonal, row t held by thread t and coupled to rows t - 1 and t + 1
/// (the first row's lower and the last row's upper coupling are ignored), by cyclic reduction.
/// Returns this thread's unknown. Collective: every thread of the team calls it with the same P
/// (threads outside a system with any row; their result is meaningless). With 1-based row
/// numbers i = t + 1, level s (1, 2, 4, ...) reduces the rows that 2s divides with rows i - s and
/// i + s; substitution then solves, from the top level down, the rows with i mod 2s = s from
/// x(i - s) and x(i + s), both solved at a higher level (or outside the system: 0).
template <class Exchange, class Matrix, class Value>
KOKKOS_INLINE_FUNCTION Value solve_reduced_rows(const Exchange& ex, int t, int P, InterfaceRow<Matrix, Value> r,
                                                bool& failed) {
  using Row = InterfaceRow<Matrix, Value>;
  const Row zero{Matrix(0), Matrix(0), Value(0)};
  const int i = t + 1;
  int top = 1;
  for (; top < P; top *= 2) {
    Row lower, upper;
    ex.neighbours(r, top, lower, upper);
    if (i % (2 * top) == 0) {
      if (t + top >= P) upper = zero;
      r = reduce_row(r, lower, upper, failed);  // t - top >= 0 here: i >= 2 top
    }
  }
  // The top level's row (i = top, only when P is a power of two) has no neighbour in the system.
  Value x = i == top ? r.d : Value(0);
  for (int s = top / 2; s >= 1; s /= 2) {
    Value lower, upper;
    ex.neighbour_values(x, s, lower, upper);
    if (i % (2 * s) == s) {
      if (t - s < 0) lower = Value(0);
      if (t + s >= P) upper = Value(0);
      x = r.d - r.a * lower - r.c * upper;
    }
  }
  return x;
}

/// Solves the interface system; every thread of the team calls it (inactive threads with
/// identity rows: all coefficients zero). Returns true when a pivot of this thread's reduced row
/// was unusable (zero, tiny or non-finite); x_first and x_last are then meaningless.
template <class Exchange, class Matrix, class Value>
KOKKOS_INLINE_FUNCTION bool solve_interface(const Exchange& ex, int t, int P, const ChunkEnds<Matrix, Value>& ends,
                                            Value& x_first, Value& x_last) {
  using Row = InterfaceRow<Matrix, Value>;
  const Row zero{Matrix(0), Matrix(0), Value(0)};
  const Row& f = ends.first;
  const Row& l = ends.last;
  bool failed = false;
  // Cyclic-reduction step: the next chunk's first row (thread t + 1), then x(first_t) and
  // x(first_{t+1}) out of this chunk's last row.
  Row next = ex.next_row(f);
  if (t == P - 1) next = zero;
  const Row r = reduce_row(l, f, next, failed);
  x_last = solve_reduced_rows(ex, t, P, r, failed);
  Value x_before = ex.previous(x_last);
  if (t == 0) x_before = Value(0);
  x_first = f.d - f.a * x_before - f.c * x_last;
  return failed;
}

}  // namespace tridiag::partitioned::impl
