#pragma once
// Cyclic reduction (CR) of one tridiagonal system by one team, in team scratch (cuThomasBatch
// 2018, Section 2; Hockney 1965, Buzbee-Golub-Nielson 1970; no LAPACK equivalent).
//
// Algorithm: forward reduction, level l = 0, 1, ... (stride h = 2^l): every row i with
// (i + 1) % 2h == 0 eliminates its neighbours i-h and i+h, halving the system, until one unknown
// is left (floor(log2 n) levels); it is solved directly, then back substitution recovers the rows
// eliminated at each level from their two solved neighbours. Any n: a neighbour outside [0, n)
// behaves as an identity row (its terms are dropped). In place: x overwrites d in scratch.
// Operation count: about 17 n flops; 2 floor(log2 n) + 1 team barriers (after the load), the
// active rows halving at each level (n/2, n/4, ..., 1, ..., n/4, n/2).
// Scratch: n (3 sizeof(Matrix) + sizeof(Value)) bytes plus a few dozen (scratch_bytes gives the
// exact figure): the least of the three cyclic solvers, so the longest systems fit (n <= 1022 in
// double, 2044 in float within a host space's 32 KiB; 1278 in double on CUDA, Kokkos 3.4).
// Global memory: reads a, b, c, d once (a(0) and c(n-1) are never read), writes x once.
//
// When it wins (STYLE 5): least work and least scratch of the cyclic solvers, so it takes the
// longest systems and leaves most occupancy; but its deep levels run few threads, and stride-2^l
// scratch access conflicts on GPU shared-memory banks. CR-PCR (team_cr_pcr.hpp) replaces those
// deep levels by PCR, yet measured slower than CR on the H100 and less stable: CR is the
// default. On host cores (one-thread teams) it runs within 2x of thomas::solve (cyclic_solve.hpp).
//
// Stability: backward stable for diagonally dominant and symmetric positive definite matrices
// (CR is Gaussian elimination without pivoting in odd-even order), weakly dominant ones included;
// for other matrices use a pivoting solver (docs/numerics.md).
// A zero, subnormal or non-finite pivot is reported through the status (see TeamCR::invoke); a
// small but normal pivot is not: the accuracy lost to it goes undetected.

#include <cstddef>

#include <tridiag/algorithms/cyclic/impl/team_cyclic_reduction.hpp>

namespace tridiag::cyclic {

struct TeamCR {
  static constexpr const char* name() { return "cr"; }

  /// Team scratch (level 0) one invoke needs for a system of n rows (MatrixScalar diagonals,
  /// RhsScalar right-hand side).
  template <class MatrixScalar, class RhsScalar = MatrixScalar>
  static std::size_t scratch_bytes(index_type n) {
    const std::size_t rows = n > 0 ? static_cast<std::size_t>(n) : 0;
    return impl::Scratch<std::remove_cv_t<MatrixScalar>, std::remove_cv_t<RhsScalar>>::bytes(rows, 0);
  }

  /// The team `member` solves a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i), i = 0..n-1.
  /// Arguments as TeamPCR::invoke (row accessors, x may be d, scratch of scratch_bytes(n) bytes,
  /// called by every thread of the team). Status: 0, or k > 0 when the reduced diagonal of row k
  /// (1-based) was zero, tiny or non-finite, at the lowest level l where any was (the row
  /// eliminated at level l; the last unknown counts as level floor(log2 n)), smallest such row;
  /// or -k when d (else x) is non-finite at row k. A failed system's x is NaN.
  template <class Member, class A, class B, class C, class D, class X>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, index_type n, const A& a, const B& b, const C& c,
                                           const D& d, const X& x, void* scratch) {
    return impl::team_cyclic_solve(member, n, 1, a, b, c, d, x, scratch);
  }
};

}  // namespace tridiag::cyclic
