#pragma once
// The one kernel body behind TeamCR, TeamPCR and TeamCRPCR (never API; use those). A team solves
// one system in team scratch:
//   1. load a, b, c, d once from global memory into scratch (a(0) and c(n-1) are not read);
//   2. CR forward reduction, in place, while more than `threshold` unknowns remain;
//   3. PCR on the reduced system (double-buffered: the strided rows of step 2 and a compact copy);
//   4. CR back substitution, in place (x overwrites d);
//   5. write x once (NaN for a failed system) and return the status code.
// threshold = 1 is pure CR (the reduced system is one unknown, PCR takes no step); threshold >= n
// is pure PCR (no CR level). Formulas: cuThomasBatch (2018), Section 2; its PCR display has typos
// (alpha_i = -a_i / b_{i-k}, beta_i = -c_i / b_{i+k}, a'_i = alpha_i a_{i-k}, c'_i = beta_i c_{i+k},
// d'_i = d_i + alpha_i d_{i-k} + beta_i d_{i+k}); the forms below are the correct ones.
//
// Any n, not only powers of two: a row whose neighbour at the current stride lies outside [0, n)
// treats it as an identity row (a = c = d = 0, b = 1), i.e. that term is simply dropped.
//
// Indices inside a team are int: scratch bounds n far below 2^24, which the failure key needs
// (stage * n + row with fewer than 64 stages).

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <tridiag/core/breakdown.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::cyclic::impl {

/// "No failure recorded" for the failure keys below (the identity of a min-reduction).
enum : int { no_failure = INT_MAX };

/// Largest n the kernels accept (the failure key must fit in an int); scratch limits n far below.
enum : index_type { max_rows = index_type(1) << 24 };

using tridiag::impl::usable_pivot;  // core/breakdown.hpp

/// Shape of the reduction: CR halves the unknowns `levels` times, leaving `rows` for PCR, which
/// needs `steps` = ceil(log2 rows) steps.
struct Plan {
  int levels = 0;
  int rows = 0;
  int steps = 0;
};

KOKKOS_INLINE_FUNCTION Plan plan_for(int n, int threshold) {
  Plan p;
  if (threshold < 1) threshold = 1;
  p.rows = n;
  while (p.rows > threshold) {  // level l keeps floor(n / 2^l) unknowns
    p.rows /= 2;
    ++p.levels;
  }
  while ((1 << p.steps) < p.rows) ++p.steps;
  return p;
}

/// Rows of one vector of a (sub)system in scratch: row j is data[first + j * stride].
template <class T>
struct StridedRows {
  T* data;
  int first;
  int stride;
  KOKKOS_FORCEINLINE_FUNCTION T& operator()(int j) const { return data[first + j * stride]; }
};

/// The four vectors of one PCR buffer.
template <class Matrix, class Value>
struct Buffer {
  StridedRows<Matrix> a, b, c;
  StridedRows<Value> d;
};

/// Team scratch, carved from one block of bytes(n, second) bytes (any alignment):
///   failure key (one int, padded to 16 bytes), then a, b, c [Matrix] and d [Value] of n rows
///   (CR works on them in place; x replaces d), then a2, b2, c2, d2 of `second` rows (PCR's second
///   buffer; 0 rows when PCR takes no step). Every array starts on a 16-byte boundary
///   (Kokkos::complex<double> is 16-byte aligned).
template <class Matrix, class Value>
struct Scratch {
  static constexpr std::size_t align = 16;
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t round_up(std::size_t bytes) {
    return (bytes + align - 1) / align * align;
  }
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t rows_bytes(std::size_t rows) {
    return 3 * round_up(rows * sizeof(Matrix)) + round_up(rows * sizeof(Value));
  }
  /// Bytes to request per team: slack to align the base, the key, both buffers.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t bytes(std::size_t n, std::size_t second) {
    return align + align + rows_bytes(n) + rows_bytes(second);
  }

  int* failure;
  Matrix *a, *b, *c;
  Value* d;
  Matrix *a2, *b2, *c2;
  Value* d2;

  KOKKOS_INLINE_FUNCTION Scratch(void* base, int n, int second) {
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(base);
    char* p = reinterpret_cast<char*>((address + align - 1) / align * align);
    failure = reinterpret_cast<int*>(p);
    p += align;
    auto take = [&p](auto*& array, int rows) {
      using T = std::remove_reference_t<decltype(*array)>;
      array = reinterpret_cast<T*>(p);
      p += round_up(static_cast<std::size_t>(rows) * sizeof(T));
    };
    take(a, n);
    take(b, n);
    take(c, n);
    take(d, n);
    take(a2, second);
    take(b2, second);
    take(c2, second);
    take(d2, second);
  }
};

/// Records a failure at (stage, row); the smallest key wins: earliest stage, then smallest row.
KOKKOS_FORCEINLINE_FUNCTION void record_failure(int* failure, int stage, int n, int row) {
  Kokkos::atomic_fetch_min(failure, stage * n + row);
}

/// Solves one system with a team (see the file comment). a, b, c, d, x: row accessors (callables
/// r(i) returning a reference, e.g. tridiag::rows_of); x may be d. scratch: at least
/// Scratch<Matrix, Value>::bytes(n, plan.steps > 0 ? plan.rows : 0) bytes of team-shared memory.
/// Every thread of the team must call it with the same arguments; every thread gets the status.
///
/// Status: k > 0 when a pivot (a quantity divided by) was zero, tiny or non-finite; k is the
/// 1-based row whose reduced diagonal failed, at the earliest stage where any did (CR level l is
/// stage l; PCR step s after L CR levels is stage L + s; the final division is stage L + steps),
/// smallest such row first. Otherwise -k when the right-hand side is non-finite at row k (the
/// smallest such row), else -k when the solution is non-finite at row k (overflow).
template <class Member, class A, class B, class C, class D, class X>
KOKKOS_INLINE_FUNCTION int team_cyclic_solve(const Member& member, index_type n_rows, int threshold, const A& a,
                                             const B& b, const C& c, const D& d, const X& x, void* scratch) {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(b(0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
  if (n_rows <= 0) return status_code::ok;
  const int n = static_cast<int>(n_rows);
  const Plan plan = plan_for(n, threshold);
  const int second = plan.steps > 0 ? plan.rows : 0;
  const Scratch<Matrix, Value> s(scratch, n, second);

  // The team may have used this scratch for its previous system: wait until every thread is done.
  member.team_barrier();
  Kokkos::single(Kokkos::PerTeam(member), [&]() { *s.failure = no_failure; });

  // 1. Load. Rows outside the matrix couple through a(0) = c(n-1) = 0.
  int bad_rhs = no_failure;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(member, n),
      [&](const int i, int& first) {
        s.a[i] = i > 0 ? Matrix(a(i)) : Matrix(0);
        s.b[i] = b(i);
        s.c[i] = i + 1 < n ? Matrix(c(i)) : Matrix(0);
        const Value di = d(i);
        s.d[i] = di;
        if (!compat::isfinite(di) && i < first) first = i;
      },
      Kokkos::Min<int>(bad_rhs));
  member.team_barrier();

  // 2. CR forward reduction. At level l (stride h = 2^l) rows i with (i + 1) % h == 0 are active,
  // floor(n / h) of them; rows with (i + 1) % 2h == 0 are kept and eliminate their neighbours
  // i -+ h (cuThomasBatch eq. for CR):
  //   k1 = a_i / b_{i-h},  k2 = c_i / b_{i+h},
  //   a'_i = -a_{i-h} k1,  b'_i = b_i - c_{i-h} k1 - a_{i+h} k2,  c'_i = -c_{i+h} k2,
  //   d'_i = d_i - d_{i-h} k1 - d_{i+h} k2.
  // Kept rows write only themselves and read only eliminated rows: in place, one barrier a level.
  // Every eliminated row is the lower or upper neighbour of some kept row, so these checks cover
  // every divisor of the back substitution too.
  int h = 1, active = n;
  for (int level = 0; level < plan.levels; ++level) {
    const int kept = active / 2;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, kept), [&](const int j) {
      const int i = (2 * j + 2) * h - 1, lo = i - h, hi = i + h;
      const Matrix b_lo = s.b[lo];
      if (!usable_pivot(b_lo)) record_failure(s.failure, level, n, lo);
      const Matrix k1 = s.a[i] / b_lo;
      const Matrix a_new = -s.a[lo] * k1;
      Matrix b_new = s.b[i] - s.c[lo] * k1;
      Matrix c_new = Matrix(0);
      Value d_new = s.d[i] - k1 * s.d[lo];
      if (hi < n) {
        const Matrix b_hi = s.b[hi];
        if (!usable_pivot(b_hi)) record_failure(s.failure, level, n, hi);
        const Matrix k2 = s.c[i] / b_hi;
        b_new -= s.a[hi] * k2;
        c_new = -s.c[hi] * k2;
        d_new -= k2 * s.d[hi];
      }
      s.a[i] = a_new;
      s.b[i] = b_new;
      s.c[i] = c_new;
      s.d[i] = d_new;
    });
    member.team_barrier();
    h *= 2;
    active = kept;
  }

  // 3. PCR on the reduced system: row j is original row (j + 1) h - 1, j < m. Step s (k = 2^s):
  //   alpha_j = -a_j / b_{j-k},  beta_j = -c_j / b_{j+k},
  //   a'_j = alpha_j a_{j-k},  c'_j = beta_j c_{j+k},
  //   b'_j = b_j + alpha_j c_{j-k} + beta_j a_{j+k},  d'_j = d_j + alpha_j d_{j-k} + beta_j d_{j+k},
  // dropping the terms of neighbours outside [0, m). After ceil(log2 m) steps every row is
  // decoupled: x_j = d_j / b_j. Each row checks its own diagonal at each step: it is a divisor
  // exactly when the row has a neighbour at that stride, and unchanged otherwise.
  const int m = plan.rows;
  const Buffer<Matrix, Value> reduced{{s.a, h - 1, h}, {s.b, h - 1, h}, {s.c, h - 1, h}, {s.d, h - 1, h}};
  const Buffer<Matrix, Value> compact{{s.a2, 0, 1}, {s.b2, 0, 1}, {s.c2, 0, 1}, {s.d2, 0, 1}};
  for (int step = 0; step < plan.steps; ++step) {
    const int k = 1 << step;
    const Buffer<Matrix, Value>& from = step % 2 == 0 ? reduced : compact;
    const Buffer<Matrix, Value>& to = step % 2 == 0 ? compact : reduced;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m), [&](const int j) {
      const Matrix bj = from.b(j);
      if (!usable_pivot(bj)) record_failure(s.failure, plan.levels + step, n, (j + 1) * h - 1);
      Matrix a_new = Matrix(0), b_new = bj, c_new = Matrix(0);
      Value d_new = from.d(j);
      if (j - k >= 0) {
        const Matrix alpha = -from.a(j) / from.b(j - k);
        a_new = alpha * from.a(j - k);
        b_new += alpha * from.c(j - k);
        d_new += alpha * from.d(j - k);
      }
      if (j + k < m) {
        const Matrix beta = -from.c(j) / from.b(j + k);
        c_new = beta * from.c(j + k);
        b_new += beta * from.a(j + k);
        d_new += beta * from.d(j + k);
      }
      to.a(j) = a_new;
      to.b(j) = b_new;
      to.c(j) = c_new;
      to.d(j) = d_new;
    });
    member.team_barrier();
  }
  {
    const Buffer<Matrix, Value>& last = plan.steps % 2 == 0 ? reduced : compact;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m), [&](const int j) {
      const Matrix bj = last.b(j);
      if (!usable_pivot(bj)) record_failure(s.failure, plan.levels + plan.steps, n, (j + 1) * h - 1);
      reduced.d(j) = last.d(j) / bj;
    });
    member.team_barrier();
  }

  // 4. CR back substitution, level L-1 down to 0: the rows eliminated at level l (active at l,
  // (i + 1) / h odd) take x_i = (d_i - a_i x_{i-h} - c_i x_{i+h}) / b_i from solved neighbours.
  for (int level = plan.levels - 1; level >= 0; --level) {
    h /= 2;
    const int at_level = n / h;
    const int eliminated = at_level - at_level / 2;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, eliminated), [&](const int t) {
      const int i = (2 * t + 1) * h - 1;
      Value r = s.d[i];
      if (t > 0) r -= s.a[i] * s.d[i - h];
      if (i + h < n) r -= s.c[i] * s.d[i + h];
      s.d[i] = r / s.b[i];
    });
    member.team_barrier();
  }

  // 5. Status and the one write of x. The key is read after the last barrier, when no thread
  // writes it any more, so every thread sees the same value and takes the same branch.
  const int key = *static_cast<volatile int*>(s.failure);
  int code = status_code::ok;
  if (key != no_failure) code = key % n + 1;
  else if (bad_rhs != no_failure) code = -(bad_rhs + 1);
  const Value nan = compat::quiet_nan<Value>();
  int bad_x = no_failure;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(member, n),
      [&](const int i, int& first) {
        const Value xi = s.d[i];
        if (!compat::isfinite(xi) && i < first) first = i;
        x(i) = code == status_code::ok ? xi : nan;
      },
      Kokkos::Min<int>(bad_x));
  if (code == status_code::ok && bad_x != no_failure) {
    code = -(bad_x + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const int i) { x(i) = nan; });
  }
  return code;
}

}  // namespace tridiag::cyclic::impl
