#pragma once
// The interface system of the partitioned solver, solved by the P threads of a system together.
// After chunk elimination (chunk_elimination.hpp) thread t holds its chunk's first and last row,
// both with unit diagonal:
//     first:  f.a x(last unknown of chunk t-1) + x(first_t) + f.c x(last_t)                 = f.d
//     last:   l.a x(first_t)                   + x(last_t)  + l.c x(first unknown of chunk t+1) = l.d
// One cyclic-reduction step substitutes every first unknown from its first row into the last
// rows, which leaves P rows (one per thread) tridiagonal in the last unknowns:
//     A x(last_{t-1}) + B x(last_t) + C x(last_{t+1}) = D,
// solved by parallel cyclic reduction in ceil(log2 P) steps with rows kept normalised (B = 1),
// so that a step moves three values per neighbour. Each thread then recovers its first unknown
// from its first row and its neighbour's last unknown. 2 + 2 ceil(log2 P) exchanges in all
// (lane_exchange.hpp), against 2 ceil(log2 2P) two-row steps for PCR on all 2P interface rows.
// Stable for diagonally dominant matrices (every reduced system of one is diagonally dominant).

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
/// Sets failed when the pivot is unusable. Serves PCR steps and the cyclic-reduction step of a
/// chunk: reduce_row(last row, own first row, next chunk's first row) is the chunk's row in the
/// last unknowns.
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
  Row r = reduce_row(l, f, next, failed);
  // Parallel cyclic reduction on the last unknowns.
  for (int s = 1; s < P; s *= 2) {
    Row lower, upper;
    ex.neighbours(r, s, lower, upper);
    if (t - s < 0) lower = zero;
    if (t + s >= P) upper = zero;
    r = reduce_row(r, lower, upper, failed);
  }
  x_last = r.d;
  Value x_before = ex.previous(x_last);
  if (t == 0) x_before = Value(0);
  x_first = f.d - f.a * x_before - f.c * x_last;
  return failed;
}

}  // namespace tridiag::partitioned::impl
