#pragma once
// One thread's share of the partitioned solver (after the Thomas/PCR hybrid of Laszlo, Giles and
// Appleyard, "Manycore algorithms for batch scalar and block tridiagonal solvers", ACM TOMS 2016;
// tridiag solves the interface by cyclic reduction instead of PCR, for stability):
// a chunk of m >= 2 consecutive rows [k0, k0 + m) of one system is reduced by a modified Thomas
// pass so that every row depends only on the chunk's first and last unknowns:
//     row 0:        alpha_0 x(k0-1) + x(k0)   + gamma_0 x(k0+m-1) = delta_0
//     row j (inner): alpha_j x(k0)  + x(k0+j) + gamma_j x(k0+m-1) = delta_j
//     row m-1:      alpha_m1 x(k0)  + x(k0+m-1) + gamma_m1 x(k0+m)  = delta_m1
// Rows 0 and m-1 of every chunk form the reduced ("interface") system of 2 unknowns per chunk,
// itself tridiagonal, solved by the threads of the system together (interface_solve.hpp); then each thread
// finishes its inner rows: x(k0+j) = delta_j - alpha_j x(k0) - gamma_j x(k0+m-1) (solve_inner_rows).
//
// Each input value is read once and each solution value written once; only the chunk's
// coefficients are kept in between, either in registers (RegisterChunk<M>, m <= M, for the GPU:
// 5 values of traffic per unknown) or in global workspace (WorkspaceChunk, any m, long systems).
// Stable without pivoting for diagonally dominant matrices (like Thomas); the divisions are
// checked and reported as for Thomas.

#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/macros.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::partitioned {

/// Chunk coefficients in per-thread arrays of compile-time size M. Loops run to M with a guard
/// on the run-time m, so the arrays are indexed by constants only and stay in registers.
template <class Matrix, class Value, int M>
struct RegisterChunk {
  static constexpr int max_rows = M;
  KOKKOS_FORCEINLINE_FUNCTION static constexpr index_type loop_bound(index_type) { return M; }
  Matrix alpha_[M], gamma_[M];
  Value delta_[M];
  KOKKOS_FORCEINLINE_FUNCTION Matrix& alpha(index_type j) { return alpha_[j]; }
  KOKKOS_FORCEINLINE_FUNCTION Matrix& gamma(index_type j) { return gamma_[j]; }
  KOKKOS_FORCEINLINE_FUNCTION Value& delta(index_type j) { return delta_[j]; }
};

/// Chunk coefficients in global memory (row accessors offset to the chunk), for chunks of any
/// length. delta is usually the solution vector itself.
template <class AlphaRows, class GammaRows, class DeltaRows>
struct WorkspaceChunk {
  KOKKOS_FORCEINLINE_FUNCTION static constexpr index_type loop_bound(index_type m) { return m; }
  AlphaRows alpha_rows;
  GammaRows gamma_rows;
  DeltaRows delta_rows;
  index_type k0;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) alpha(index_type j) const { return alpha_rows(k0 + j); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) gamma(index_type j) const { return gamma_rows(k0 + j); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) delta(index_type j) const { return delta_rows(k0 + j); }
};

/// Rows of a system seen from a chunk: row j of the chunk is row k0 + j of the system.
template <class Rows>
struct ChunkRows {
  Rows rows;
  index_type k0;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(index_type j) const { return rows(k0 + j); }
};

/// Rows of a chunk held in a thread's array (registers once the loops are unrolled).
template <class Scalar>
struct ArrayRows {
  const Scalar* rows;
  KOKKOS_FORCEINLINE_FUNCTION const Scalar& operator()(index_type j) const { return rows[j]; }
};

/// Where eliminate_chunk_rows leaves the coefficients of the chunk's last row (row m - 1), taken
/// from registers as they are computed. Reading them back from a register chunk with the run-time
/// index m - 1 (or any select over it, which the compiler turns into that index) would move the
/// chunk's arrays to local memory: a 96..384-byte stack frame per thread, seen at a quarter of
/// the kernel's speed on the H100.
template <class Matrix, class Value>
struct LastRow {
  Matrix alpha = Matrix(0), gamma = Matrix(0);
  Value delta = Value(0);
  KOKKOS_FORCEINLINE_FUNCTION void set(const Matrix& a, const Matrix& g, const Value& d) {
    alpha = a;
    gamma = g;
    delta = d;
  }
};
/// For callers that do not need the last row.
struct NoLastRow {
  template <class Matrix, class Value>
  KOKKOS_FORCEINLINE_FUNCTION void set(const Matrix&, const Matrix&, const Value&) {}
};

/// Reduces rows [k0, k0+m) of the system (n rows; a(0) and c(n-1) are treated as zero) into
/// `chunk`; a, b, c, d give the chunk's rows (a(j) is row k0 + j). Returns 0, or the 1-based
/// global row of the first unusable pivot; sets `nonfinite_row` to the 1-based global row where
/// a non-finite value first appears in the forward sweep (non-finite right-hand side or
/// overflow), if any and no earlier one was set.
template <class Chunk, class A, class B, class C, class D, class Last = NoLastRow>
KOKKOS_FORCEINLINE_FUNCTION int eliminate_chunk_rows(Chunk& chunk, index_type n, index_type k0, index_type m, const A& a,
                                                     const B& b, const C& c, const D& d, int& nonfinite_row,
                                                     Last&& last = Last{}) {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(chunk.delta(0))>>;
  int failed_row = 0;
  // Forward: rows 0 and 1 are only normalised (row 0 is an interface row); rows j >= 2 are
  // eliminated against row j-1, which carries the dependence on x(k0) along in alpha.
  Matrix gamma_prev = Matrix(0), alpha_prev = Matrix(0);
  Value delta_prev = Value(0);
  TRIDIAG_UNROLL
  for (index_type j = 0; j < Chunk::loop_bound(m); ++j) {
    if (j < m) {
      const index_type k = k0 + j;
      const Matrix aj = k > 0 ? Matrix(a(j)) : Matrix(0);
      const Matrix cj = k + 1 < n ? Matrix(c(j)) : Matrix(0);
      const Matrix w = j < 2 ? Matrix(b(j)) : Matrix(b(j)) - aj * gamma_prev;
      if (!thomas::impl::usable_pivot(w) && failed_row == 0) failed_row = static_cast<int>(k + 1);
      const Matrix inv = Matrix(1) / w;
      const Value dj = Value(d(j));
      const Value delta_j = j < 2 ? dj * inv : (dj - aj * delta_prev) * inv;
      const Matrix alpha_j = j < 2 ? aj * inv : -aj * alpha_prev * inv;
      const Matrix gamma_j = cj * inv;
      if (!compat::isfinite(delta_j) && nonfinite_row == 0) nonfinite_row = static_cast<int>(k + 1);
      chunk.alpha(j) = alpha_j;
      chunk.gamma(j) = gamma_j;
      chunk.delta(j) = delta_j;
      if (j == m - 1) last.set(alpha_j, gamma_j, delta_j);  // the backward pass leaves row m - 1 alone
      alpha_prev = alpha_j;
      gamma_prev = gamma_j;
      delta_prev = delta_j;
    }
  }
  // Backward: inner rows m-3 .. 1 take x(k0+j+1) out in favour of x(k0+m-1).
  Matrix gamma_next = Matrix(0), alpha_next = Matrix(0);
  Value delta_next = Value(0);
  TRIDIAG_UNROLL
  for (index_type j = Chunk::loop_bound(m) - 1; j >= 1; --j) {
    if (j == m - 2) {
      gamma_next = chunk.gamma(j);
      alpha_next = chunk.alpha(j);
      delta_next = chunk.delta(j);
    } else if (j < m - 2) {
      const Matrix g = chunk.gamma(j);
      delta_next = chunk.delta(j) - g * delta_next;
      alpha_next = chunk.alpha(j) - g * alpha_next;
      gamma_next = -g * gamma_next;
      chunk.delta(j) = delta_next;
      chunk.alpha(j) = alpha_next;
      chunk.gamma(j) = gamma_next;
    }
  }
  // Row 0: substitute x(k0+1) (not needed when m == 2: x(k0+1) is the last unknown already).
  if (m >= 3) {
    const Matrix g0 = chunk.gamma(0);
    const Matrix w = Matrix(1) - g0 * chunk.alpha(1);
    if (!thomas::impl::usable_pivot(w) && failed_row == 0) failed_row = static_cast<int>(k0 + 1);
    const Matrix inv = Matrix(1) / w;
    chunk.delta(0) = (chunk.delta(0) - g0 * chunk.delta(1)) * inv;
    chunk.alpha(0) = chunk.alpha(0) * inv;
    chunk.gamma(0) = -g0 * chunk.gamma(1) * inv;
  }
  return failed_row;
}

/// eliminate_chunk_rows with the system's row accessors (a(k) is row k of the system).
template <class Chunk, class A, class B, class C, class D, class Last = NoLastRow>
KOKKOS_FORCEINLINE_FUNCTION int eliminate_chunk(Chunk& chunk, index_type n, index_type k0, index_type m, const A& a,
                                                const B& b, const C& c, const D& d, int& nonfinite_row,
                                                Last&& last = Last{}) {
  return eliminate_chunk_rows(chunk, n, k0, m, ChunkRows<A>{a, k0}, ChunkRows<B>{b, k0}, ChunkRows<C>{c, k0},
                              ChunkRows<D>{d, k0}, nonfinite_row, last);
}

/// Inner rows from the two interface unknowns, left in the chunk's delta: delta_j becomes
/// x(k0+j) = delta_j - alpha_j x(k0) - gamma_j x(k0+m-1), 0 < j < m-1. Returns false when one of
/// them is not finite: an overflow the elimination and the interface solve cannot see, which the
/// caller must report before its system's failure codes are reduced.
template <class Chunk, class Value>
KOKKOS_FORCEINLINE_FUNCTION bool solve_inner_rows(Chunk& chunk, index_type m, const Value& first, const Value& last) {
  bool finite = true;
  TRIDIAG_UNROLL
  for (index_type j = 1; j < Chunk::loop_bound(m); ++j) {
    if (j < m - 1) {
      const Value v = Value(chunk.delta(j) - chunk.alpha(j) * first - chunk.gamma(j) * last);
      chunk.delta(j) = v;
      finite = finite & compat::isfinite(v);
    }
  }
  return finite;
}

/// Row j of the chunk's solution once solve_inner_rows has run: x(k0) = first, x(k0+m-1) = last,
/// the inner rows from delta. Chosen where a row is read (a store's unrolled loop, constant j):
/// leaving first and last in delta(0) and delta(m - 1) instead writes a register chunk at the
/// run-time index m - 1, which the compiler makes a local-memory array (measured on the H100:
/// 1.8-2x the time of double batches of 64 and 512 rows).
template <class Chunk, class Value>
KOKKOS_FORCEINLINE_FUNCTION Value chunk_solution(Chunk& chunk, index_type j, index_type m, const Value& first,
                                                 const Value& last) {
  return j == 0 ? first : j == m - 1 ? last : Value(chunk.delta(j));
}

}  // namespace tridiag::partitioned
