#pragma once
// Parallel cyclic reduction of the partitioned solver's interface system, in team scratch:
// R = 2 P unknowns for P threads, thread t owning rows 2t and 2t+1 (its chunk's first and last
// unknown). ceil(log2 R) steps, each: read neighbours at distance `stride`, barrier, write,
// barrier. On entry the diagonal is 1 (the chunk rows are normalised); on exit d holds the
// solution. Stable for diagonally dominant systems (the reduced system of a diagonally dominant
// matrix is diagonally dominant again).

#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::partitioned {

/// One system's interface system in scratch: four rows of length R = 2 * threads.
template <class MatrixRows, class ValueRows>
struct ReducedSystem {
  MatrixRows a, b, c;
  ValueRows d;
};

/// Runs PCR; every thread of the team must call it (barriers inside), `active` false for
/// threads whose system does not exist (the last team of a batch). Returns 0 or 1 + the reduced
/// row (0-based) whose pivot was unusable.
template <class Member, class Reduced>
KOKKOS_INLINE_FUNCTION int reduced_pcr(const Member& member, const Reduced& sys, index_type t, index_type R,
                                       bool active) {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(sys.b(0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(sys.d(0))>>;
  int failed = 0;
  for (index_type stride = 1; stride < R; stride *= 2) {
    Matrix na[2], nb[2], nc[2];
    Value nd[2];
    if (active) {
      for (int r = 0; r < 2; ++r) {
        const index_type i = 2 * t + r;
        Matrix a = sys.a(i), b = sys.b(i), c = sys.c(i);
        Value d = sys.d(i);
        Matrix new_a = Matrix(0), new_c = Matrix(0);
        if (i - stride >= 0) {
          const Matrix bl = sys.b(i - stride);
          if (!thomas::impl::usable_pivot(bl) && failed == 0) failed = static_cast<int>(i - stride + 1);
          const Matrix alpha = -a / bl;
          new_a = alpha * sys.a(i - stride);
          b += alpha * sys.c(i - stride);
          d += alpha * sys.d(i - stride);
        }
        if (i + stride < R) {
          const Matrix br = sys.b(i + stride);
          if (!thomas::impl::usable_pivot(br) && failed == 0) failed = static_cast<int>(i + stride + 1);
          const Matrix beta = -c / br;
          new_c = beta * sys.c(i + stride);
          b += beta * sys.a(i + stride);
          d += beta * sys.d(i + stride);
        }
        na[r] = new_a;
        nb[r] = b;
        nc[r] = new_c;
        nd[r] = d;
      }
    }
    member.team_barrier();
    if (active) {
      for (int r = 0; r < 2; ++r) {
        const index_type i = 2 * t + r;
        sys.a(i) = na[r];
        sys.b(i) = nb[r];
        sys.c(i) = nc[r];
        sys.d(i) = nd[r];
      }
    }
    member.team_barrier();
  }
  if (active) {
    for (int r = 0; r < 2; ++r) {
      const index_type i = 2 * t + r;
      const Matrix b = sys.b(i);
      if (!thomas::impl::usable_pivot(b) && failed == 0) failed = static_cast<int>(i + 1);
      sys.d(i) = sys.d(i) / b;
    }
  }
  member.team_barrier();
  return failed;
}

}  // namespace tridiag::partitioned
