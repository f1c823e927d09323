#pragma once
// CR-PCR: cyclic reduction down to a small system, parallel cyclic reduction on it, CR back
// substitution (Zhang, Cohen & Owens 2010; the algorithm of cuSPARSE gtsvStridedBatch,
// cuThomasBatch 2018, Section 2 and Figure 3). One team per system, in team scratch.
//
// Algorithm: CR forward reduction (team_cr.hpp) while more than `threshold` unknowns remain; the
// reduced system (m <= threshold unknowns, rows (j + 1) 2^L - 1 after L levels) is solved by PCR
// (team_pcr.hpp) ping-ponging between its strided rows in place and a compact m-row buffer; CR
// back substitution then recovers the rows eliminated at each level. Any n (non-powers of two
// included). threshold = 1 is TeamCR, threshold >= n is TeamPCR.
// Operation count: about 17 (n - m) + 12 m log2 m flops; 2 L + ceil(log2 m) + 1 team barriers
// (after the load), with L = levels such that floor(n / 2^L) <= threshold.
// Scratch: (n + m) (3 sizeof(Matrix) + sizeof(Value)) bytes plus a few dozen (scratch_bytes gives
// the exact figure; m = 0 when no PCR step is needed): n <= 962 in double within a host space's
// 32 KiB, 1240 within CUDA's 40 KiB (Kokkos 3.4).
// Global memory: reads a, b, c, d once (a(0) and c(n-1) are never read), writes x once.
//
// When it wins (STYLE 5): in principle where CR's deep levels cost most. CR's first levels are
// cheap and wide; its deep levels keep few rows busy and hit shared-memory bank conflicts at
// large strides; PCR replaces them with log2 m barriers instead of 2 log2 m, all m rows busy,
// unit-stride access (Zhang et al. 2010). Measured on the H100 it sits between CR and PCR, slower
// than CR on every cell (docs/performance.md), and it is less stable than CR: CR is the default. Best with the Flat layout (each team reads
// one contiguous system) and when the batch is too small to fill a GPU with one thread per system
// (thomas::solve); on host cores use Thomas or plain CR (cyclic_solve.hpp has host timings).
// default_threshold = 64: the reduced system then fits two warps, and PCR's extra work (m log m)
// stays small next to CR's 17 n; a measured per-device choice may replace it (perf_tests).
//
// Stability: backward stable for strictly diagonally dominant matrices. Its PCR stage is not on
// SPD or weakly dominant ones (implicit diffusion through a high-contrast medium): the backward
// error grows with the conditioning, with status 0 (docs/numerics.md): use CR there, and a
// pivoting solver for matrices of neither kind.
// A zero, subnormal or non-finite pivot is reported through the status (see TeamCRPCR::invoke); a
// small but normal pivot is not: the accuracy lost to it goes undetected.

#include <cstddef>

#include <tridiag/algorithms/cyclic/impl/team_cyclic_reduction.hpp>

namespace tridiag::cyclic {

struct TeamCRPCR {
  static constexpr const char* name() { return "cr_pcr"; }
  /// CR reduces until at most this many unknowns remain (see the file comment).
  static constexpr int default_threshold = 64;

  /// Team scratch (level 0) one invoke needs for a system of n rows and the given threshold.
  template <class MatrixScalar, class RhsScalar = MatrixScalar>
  static std::size_t scratch_bytes(index_type n, int threshold = default_threshold) {
    using S = impl::Scratch<std::remove_cv_t<MatrixScalar>, std::remove_cv_t<RhsScalar>>;
    if (n <= 0) return S::bytes(0, 0);
    const impl::Plan plan = impl::plan_for(static_cast<int>(n), threshold);
    return S::bytes(static_cast<std::size_t>(n), plan.steps > 0 ? static_cast<std::size_t>(plan.rows) : 0);
  }

  /// The team `member` solves a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i), i = 0..n-1.
  /// Arguments as TeamPCR::invoke (row accessors, x may be d, scratch of
  /// scratch_bytes(n, threshold) bytes, called by every thread of the team with the same
  /// arguments). Status: 0, or k > 0 when the reduced diagonal of row k (1-based) was zero, tiny
  /// or non-finite at the earliest stage where any was (CR level l is stage l, PCR step s is stage
  /// L + s, the final division stage L + ceil(log2 m)), smallest such row; or -k when d (else x)
  /// is non-finite at row k. A failed system's x is NaN.
  template <class Member, class A, class B, class C, class D, class X>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, index_type n, const A& a, const B& b, const C& c,
                                           const D& d, const X& x, void* scratch,
                                           int threshold = default_threshold) {
    return impl::team_cyclic_solve(member, n, threshold, a, b, c, d, x, scratch);
  }
};

}  // namespace tridiag::cyclic
