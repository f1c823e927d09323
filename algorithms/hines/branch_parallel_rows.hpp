#pragma once
// Where the sweeps of the BranchParallel kernel (branch_parallel_kernel.hpp) find one neuron's
// rows. The kernel is written once against these accessors: a(i), b(i), d(i), rhs(i) (inputs)
// and w(i), x(i) (the eliminated diagonal and right-hand side, then the solution):
//   Staging::none              everything in global memory, as hines::solve was given it
//                              (algo::BranchParallel): about 9 values of traffic per row;
//   Staging::diagonal_and_rhs  the team first copies d and rhs into team scratch (on-chip shared
//                              memory on a GPU), neighbouring threads on neighbouring rows, and
//                              the sweeps eliminate in place there: d(i) and w(i) are one scratch
//                              row, rhs(i) and x(i) another; a and b stay in global memory, read
//                              once each by the backward sweep: 5 values per row (6 while the
//                              substitution read a again; serial_hines.hpp says what changed);
//   Staging::all               a and b staged as well: global memory sees each input once and x
//                              once, 5 values per row, and the sweeps' loads all hit scratch.
// The staged policies write x back at the end, whole (or NaN for a failed neuron); the values are
// the same as in global memory, so every policy gives bitwise the same x and status.

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines {

/// Which of a neuron's operands the staged BranchParallel kernel keeps in team scratch.
enum class Staging { none, diagonal_and_rhs, all };

namespace impl {

/// Staging::none: neuron s's rows of the operands in global memory.
template <class Operands>
struct GlobalNeuronRows {
  const Operands& op;
  index_type s;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) a(index_type i) const { return op.a(s, i); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) b(index_type i) const { return op.b(s, i); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) d(index_type i) const { return op.d(s, i); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) rhs(index_type i) const { return op.rhs(s, i); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) w(index_type i) const { return op.w(s, i); }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) x(index_type i) const { return op.x(s, i); }
};

/// Staging::diagonal_and_rhs and Staging::all: w (initially d) and x (initially rhs) in scratch,
/// a and b in scratch for Staging::all.
/// (Raw pointers into scratch: a scratch View built with a run-time extent keeps an error path
/// that costs the kernel a local-memory stack frame.)
template <Staging Where, class Matrix, class Value, class Operands>
struct StagedNeuronRows {
  static constexpr bool coefficients = Where == Staging::all;
  const Operands& op;
  index_type s;
  Matrix *w_, *a_, *b_;
  Value* x_;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) a(index_type i) const {
    if constexpr (coefficients) {
      return a_[i];
    } else {
      return op.a(s, i);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) b(index_type i) const {
    if constexpr (coefficients) {
      return b_[i];
    } else {
      return op.b(s, i);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION Matrix& d(index_type i) const { return w_[i]; }
  KOKKOS_FORCEINLINE_FUNCTION Value& rhs(index_type i) const { return x_[i]; }
  KOKKOS_FORCEINLINE_FUNCTION Matrix& w(index_type i) const { return w_[i]; }
  KOKKOS_FORCEINLINE_FUNCTION Value& x(index_type i) const { return x_[i]; }
};

/// How a kernel with Staging `Where` brings a neuron's rows in and its solution out. Matrix and
/// Value: the scalar types of w and x.
template <Staging Where, class Matrix, class Value, class ScratchSpace>
struct NeuronStaging {
  static_assert(alignof(Matrix) <= ScratchSpace::ALIGN && alignof(Value) <= ScratchSpace::ALIGN,
                "scratch chunks are not aligned enough for these scalars");
  /// Team scratch (bytes) of one staged array of `rows` scalars T.
  template <class T>
  KOKKOS_INLINE_FUNCTION static std::size_t array_bytes(index_type rows) {
    return ScratchSpace::align(static_cast<std::size_t>(rows) * sizeof(T));
  }
  /// Team scratch (bytes) the staged rows of a neuron of `rows` rows take (0 for Staging::none).
  KOKKOS_INLINE_FUNCTION static std::size_t bytes(index_type rows) {
    if constexpr (Where == Staging::none) {
      return 0;
    } else {
      const std::size_t w = array_bytes<Matrix>(rows), x = array_bytes<Value>(rows);
      return Where == Staging::all ? 3 * w + x : w + x;
    }
  }

  /// Team-parallel bodies (named functors: core/kokkos_compat.hpp).
  /// Copies row i of neuron s into scratch: d and rhs into w and x (where the sweeps make them the
  /// eliminated entries) and, for Staging::all, a and b of the real rows (i < n: pad rows have
  /// none the sweeps read). One pass that issues a row's loads together, so a thread waits on
  /// global memory once per row rather than once per array. (Two rows per pass would wait half as
  /// often, but took 72 registers instead of 60 in double, which caps the teams per GPU
  /// multiprocessor for small cells; not done.)
  template <class Operands>
  struct CopyIn {
    const Operands& op;
    index_type s, n;
    Matrix *w, *a, *b;
    Value* x;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const {
      const Matrix di = op.d(s, i);
      const Value ri = op.rhs(s, i);
      if (Where == Staging::all && i < n) {
        const Matrix ai = op.a(s, i), bi = op.b(s, i);
        a[i] = ai;
        b[i] = bi;
      }
      w[i] = di;
      x[i] = ri;
    }
  };
  template <class Operands, class Rows>
  struct WriteSolution {  ///< x of neuron s from scratch, or NaN for a failed neuron
    const Operands& op;
    index_type s;
    Rows rows;
    int code;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const {
      op.x(s, i) = code == 0 ? rows.x(i) : compat::quiet_nan<Value>();
    }
  };
  template <class Operands>
  struct Poison {  ///< x of failed neuron s in global memory
    const Operands& op;
    index_type s;
    KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const { op.x(s, i) = compat::quiet_nan<Value>(); }
  };

  /// Neuron s (n real rows) as the sweeps see it. A staged policy lays its arrays out in
  /// `scratch` (bytes(op.rows) of team scratch) and copies rows 0 .. solved - 1 in (solved: n, or
  /// op.rows with the pad rows) with the threads of `crew` (branch_parallel_crew.hpp; the
  /// caller's next crew.sync() makes the copy visible).
  template <class Crew, class Operands>
  KOKKOS_INLINE_FUNCTION static auto load(const Crew& crew, char* scratch, const Operands& op, index_type s,
                                          index_type n, index_type solved) {
    if constexpr (Where == Staging::none) {
      (void)crew;
      (void)scratch;
      (void)n;
      (void)solved;
      return GlobalNeuronRows<Operands>{op, s};
    } else {
      const index_type rows = op.rows;
      Matrix* const w = reinterpret_cast<Matrix*>(scratch);
      Value* const x = reinterpret_cast<Value*>(scratch + array_bytes<Matrix>(rows));
      Matrix *a = nullptr, *b = nullptr;
      if constexpr (Where == Staging::all) {
        a = reinterpret_cast<Matrix*>(scratch + array_bytes<Matrix>(rows) + array_bytes<Value>(rows));
        b = reinterpret_cast<Matrix*>(scratch + 2 * array_bytes<Matrix>(rows) + array_bytes<Value>(rows));
      }
      crew.for_each(index_type(0), solved, CopyIn<Operands>{op, s, n, w, a, b, x});
      return StagedNeuronRows<Where, Matrix, Value, Operands>{op, s, w, a, b, x};
    }
  }

  /// Writes neuron s's solution on rows 0 .. solved - 1 (NaN on each of them when code != 0)
  /// once the sweeps on `rows` are done by every thread of the crew (after its last sync).
  template <class Crew, class Operands, class Rows>
  KOKKOS_INLINE_FUNCTION static void store(const Crew& crew, const Operands& op, index_type s, const Rows& rows,
                                           int code, index_type solved) {
    if constexpr (Where == Staging::none) {
      (void)rows;
      if (code != 0) crew.for_each(index_type(0), solved, Poison<Operands>{op, s});
    } else {
      crew.for_each(index_type(0), solved, WriteSolution<Operands, Rows>{op, s, rows, code});
    }
  }
};

}  // namespace impl
}  // namespace tridiag::hines
