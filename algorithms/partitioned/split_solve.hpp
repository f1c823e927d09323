#pragma once
// The partitioned solver spread over the whole device, for batches of a few very long systems
// (one team per system would leave all but a few multiprocessors idle).
//
// Three steps, each a flat RangePolicy over the chunks of every system:
//  1. every chunk of m consecutive rows is reduced by the modified Thomas pass of
//     chunk_elimination.hpp (its coefficients kept in a global workspace, delta in x), and writes
//     its first and last row into a reduced batch: 2 rows per chunk, tridiagonal again, with unit
//     diagonal;
//  2. the reduced batch (2 n / m rows per system) is solved by partitioned::solve itself: a team
//     per system once it is short enough, split again otherwise;
//  3. every chunk finishes its inner rows from its two interface unknowns.
// Same arithmetic per chunk as the team kernel; stable for diagonally dominant matrices (the
// reduced system of a diagonally dominant matrix is diagonally dominant again). Status codes as
// for Thomas: the first failing (1-based) row, or -row of the first non-finite value.

#include <Kokkos_Core.hpp>
#include <climits>
#include <tridiag/algorithms/partitioned/chunk_elimination.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/layouts/flat.hpp>

namespace tridiag::partitioned::impl {

/// How system rows are cut into chunks: chunk q of a system holds rows [q n / C, (q+1) n / C).
struct SplitChunks {
  index_type n = 0, chunks = 0;
  KOKKOS_FORCEINLINE_FUNCTION index_type begin(index_type q) const { return q * n / chunks; }
  KOKKOS_FORCEINLINE_FUNCTION index_type size(index_type q) const { return begin(q + 1) - begin(q); }
};

/// Step 1: reduce chunk (s, q) and write its two interface rows. flags(s, 0) collects the first
/// failing pivot row, flags(s, 1) the first non-finite row (INT_MAX: none).
template <class A, class B, class C, class D, class X, class Work, class Reduced, class ReducedRhs, class Flags>
struct SplitReduceKernel {
  SplitChunks cut;
  A a;
  B b;
  C c;
  D d;
  X x;
  Work alpha, gamma;
  Reduced ra, rb, rc;
  ReducedRhs rd;
  Flags flags;
  KOKKOS_INLINE_FUNCTION void operator()(index_type t) const {
    const index_type s = t / cut.chunks, q = t % cut.chunks;
    const index_type k0 = cut.begin(q), m = cut.size(q);
    auto chunk = WorkspaceChunk<SystemRows<Work>, SystemRows<Work>, SystemRows<X>>{rows_of(alpha, s), rows_of(gamma, s),
                                                                                   rows_of(x, s), k0};
    int nonfinite = 0;
    const int failed = eliminate_chunk(chunk, cut.n, k0, m, rows_of(a, s), rows_of(b, s), rows_of(c, s),
                                       rows_of(d, s), nonfinite);
    store_interface_rows(chunk, m, ra, rb, rc, rd, s, q);
    if (failed) Kokkos::atomic_fetch_min(&flags(s, 0), failed);
    if (nonfinite) Kokkos::atomic_fetch_min(&flags(s, 1), nonfinite);
  }
};

/// Step 3: finish chunk (s, q) from the reduced solution, or NaN the system if anything failed;
/// chunk 0 writes the status.
template <class X, class Work, class ReducedX, class Flags, class Status>
struct SplitFinishKernel {
  SplitChunks cut;
  X x;
  Work alpha, gamma;
  ReducedX rx;
  StatusView<typename Flags::memory_space> reduced_status;
  Flags flags;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(index_type t) const {
    using Value = typename ReducedX::value_type;
    const index_type s = t / cut.chunks, q = t % cut.chunks;
    const index_type k0 = cut.begin(q), m = cut.size(q);
    int pivot_row = flags(s, 0);
    const int reduced = reduced_status(s);
    if (reduced > 0) {  // interface row r (1-based) is chunk r / 2's first or last row
      const index_type r = reduced - 1, p = r / 2;
      const int row = static_cast<int>((r % 2 == 0 ? cut.begin(p) : cut.begin(p + 1) - 1) + 1);
      if (row < pivot_row) pivot_row = row;
    }
    // A non-finite reduced solution without a non-finite input is an overflow: report row 1 of
    // the chunk system like Thomas reports where its sweep became non-finite.
    const int nonfinite_row = flags(s, 1) != INT_MAX ? flags(s, 1) : reduced < 0 ? 1 : INT_MAX;
    const bool ok = pivot_row == INT_MAX && nonfinite_row == INT_MAX;
    const auto xs = rows_of(x, s);
    if (ok) {
      auto chunk = WorkspaceChunk<SystemRows<Work>, SystemRows<Work>, SystemRows<X>>{rows_of(alpha, s),
                                                                                     rows_of(gamma, s), xs, k0};
      finish_chunk(chunk, k0, m, Value(rx(s, 2 * q)), Value(rx(s, 2 * q + 1)), xs);
    } else {
      for (index_type j = 0; j < m; ++j) xs(k0 + j) = compat::quiet_nan<Value>();
    }
    if (q == 0 && status.data() != nullptr) status(s) = pivot_row != INT_MAX ? pivot_row : ok ? 0 : -nonfinite_row;
  }
};

/// Fills flags with INT_MAX.
template <class Flags>
struct ClearFlagsKernel {
  Flags flags;
  KOKKOS_INLINE_FUNCTION void operator()(index_type s) const {
    flags(s, 0) = INT_MAX;
    flags(s, 1) = INT_MAX;
  }
};

/// Runs the three steps; `solve_reduced(matrix, rhs, x, status)` solves the reduced batch (the
/// caller passes partitioned::solve, so the reduced batch may be split again).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace, class SolveReduced>
void split_solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                 const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                 const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                 const StatusView<MemorySpace>& status, index_type chunk_rows, const SolveReduced& solve_reduced) {
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  using Work = BatchVector<Matrix, Layout, MemorySpace>;
  using Reduced = BatchVector<Matrix, layouts::Flat, MemorySpace>;
  using ReducedRhs = BatchVector<Value, layouts::Flat, MemorySpace>;
  using Flags = Kokkos::View<int* [2], MemorySpace>;
  const index_type nsys = matrix.systems(), n = matrix.rows();
  const SplitChunks cut{n, n / chunk_rows};  // every chunk >= chunk_rows >= 2 rows
  const Layout map(nsys, n);
  const auto alpha = allocate_uninitialized<Work>("tridiag::partitioned::split_alpha", map);
  const auto gamma = allocate_uninitialized<Work>("tridiag::partitioned::split_gamma", map);
  const index_type R = 2 * cut.chunks;
  const Reduced ra("tridiag::partitioned::split_lower", nsys, R), rb("tridiag::partitioned::split_diag", nsys, R),
      rc("tridiag::partitioned::split_upper", nsys, R);
  const ReducedRhs rd("tridiag::partitioned::split_rhs", nsys, R), rx("tridiag::partitioned::split_x", nsys, R);
  const StatusView<MemorySpace> reduced_status("tridiag::partitioned::split_status", nsys);
  const Flags flags(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::partitioned::split_flags"), nsys);
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>;
  Kokkos::parallel_for("tridiag::partitioned::split_clear", Range(exec, 0, nsys), ClearFlagsKernel<Flags>{flags});
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  using ReduceKernel = SplitReduceKernel<decltype(a), decltype(b), decltype(c),
                                         BatchVector<RhsScalar, Layout, MemorySpace>,
                                         BatchVector<Value, Layout, MemorySpace>, Work, Reduced, ReducedRhs, Flags>;
  Kokkos::parallel_for("tridiag::partitioned::split_reduce", Range(exec, 0, nsys * cut.chunks),
                       ReduceKernel{cut, a, b, c, rhs, x, alpha, gamma, ra, rb, rc, rd, flags});
  solve_reduced(TridiagonalBatch<Matrix, layouts::Flat, MemorySpace>(ra, rb, rc), rd, rx, reduced_status);
  Kokkos::parallel_for("tridiag::partitioned::split_finish", Range(exec, 0, nsys * cut.chunks),
                       SplitFinishKernel<BatchVector<Value, Layout, MemorySpace>, Work, ReducedRhs, Flags,
                                         StatusView<MemorySpace>>{cut, x, alpha, gamma, rx, reduced_status, flags,
                                                                  status});
}

}  // namespace tridiag::partitioned::impl
