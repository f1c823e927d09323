#pragma once
// Parallel cyclic reduction (PCR) of one tridiagonal system by one team, in team scratch
// (cuThomasBatch 2018, Section 2; Hockney & Jesshope; no LAPACK equivalent: ?gtsv without pivoting
// computes the same solution by Gaussian elimination).
//
// Algorithm: step s (k = 2^s) replaces every row i by a combination of rows i-k, i, i+k that
// eliminates x_{i-k} and x_{i+k}, so row i then couples to x_{i-2k} and x_{i+2k}; after
// ceil(log2 n) steps every row holds one unknown: x_i = d_i / b_i. Any n, not only powers of two:
// a neighbour outside [0, n) behaves as an identity row (its terms are dropped).
// Operation count: about 12 n log2 n flops (2 divisions per row and step); ceil(log2 n) + 1 team
// barriers (after the load) and no serial part: every step keeps all n rows busy.
// Scratch: double-buffered, 2 n (3 sizeof(Matrix) + sizeof(Value)) bytes plus a few dozen for the
// failure key and alignment (scratch_bytes gives the exact figure): n <= 510 in double, 1020 in
// float within a host space's 32 KiB; n <= 638 in double within CUDA's 40 KiB (Kokkos 3.4).
// Global memory: reads a, b, c, d once (a(0) and c(n-1) are never read), writes x once.
//
// When it wins (STYLE 5): few steps with the whole team busy in each, regular (conflict-free)
// scratch access; best for small systems (n up to a few hundred) when there are too few systems
// to fill a GPU with one thread per system (thomas::solve), or as the last stage of CR-PCR. It
// does O(n log n) work against Thomas' 8n, so it loses whenever the batch alone fills the device,
// and on host cores (use thomas::solve, Flat or BlockInterleaved, there).
//
// Stability: backward stable for strictly diagonally dominant matrices. On SPD or weakly dominant
// ones (implicit diffusion through a high-contrast medium) its backward error grows with the
// conditioning, far past Thomas' and CR's, with status 0 (docs/numerics.md): use CR there, and a
// pivoting solver for matrices of neither kind.
// A zero, subnormal or non-finite pivot is reported through the status (see TeamPCR::invoke); a
// small but normal pivot is not: the accuracy lost to it goes undetected.

#include <cstddef>

#include <tridiag/algorithms/cyclic/impl/team_cyclic_reduction.hpp>

namespace tridiag::cyclic {

struct TeamPCR {
  static constexpr const char* name() { return "pcr"; }

  /// Team scratch (level 0) one invoke needs for a system of n rows: MatrixScalar for the three
  /// diagonals, RhsScalar for the right-hand side (e.g. Kokkos::complex<double> with a double matrix).
  template <class MatrixScalar, class RhsScalar = MatrixScalar>
  static std::size_t scratch_bytes(index_type n) {
    const std::size_t rows = n > 0 ? static_cast<std::size_t>(n) : 0;
    return impl::Scratch<std::remove_cv_t<MatrixScalar>, std::remove_cv_t<RhsScalar>>::bytes(rows, rows > 1 ? rows : 0);
  }

  /// The team `member` solves a(i) x(i-1) + b(i) x(i) + c(i) x(i+1) = d(i), i = 0..n-1.
  /// a, b, c, d, x: row accessors (callables r(i) returning a reference; tridiag::rows_of); x may
  /// be d. scratch: scratch_bytes<Matrix, Value>(n) bytes of team-shared memory, any alignment
  /// (e.g. member.team_scratch(0).get_shmem(bytes)); it may be reused by the next call. Every
  /// thread of the team calls invoke with the same arguments and gets the same status code:
  /// 0, or k > 0 when the reduced diagonal of row k (1-based) was zero, tiny or non-finite at the
  /// earliest step where any was (smallest such row), or -k when d (else x) is non-finite at row k.
  /// A failed system's x is NaN. n must be at most impl::max_rows (2^24; cyclic::solve checks
  /// it, a direct caller must: the failure key is an int), far above what team scratch holds.
  template <class Member, class A, class B, class C, class D, class X>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, index_type n, const A& a, const B& b, const C& c,
                                           const D& d, const X& x, void* scratch) {
    return impl::team_cyclic_solve(member, n, impl::no_failure, a, b, c, d, x, scratch);
  }
};

}  // namespace tridiag::cyclic
