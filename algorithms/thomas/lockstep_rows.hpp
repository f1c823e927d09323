#pragma once
// Lockstep Thomas for variable batches on SIMT hardware (GPUs): the threads of a warp solve
// systems of different sizes n_s, but all run the Thomas core (serial_thomas.hpp) for one common
// row count m >= n_s. Rows n_s..m-1 of a shorter system are virtual identity rows (a = c = d = 0,
// b = 1, and c(n_s-1) = 0 to cut the coupling, exactly as layouts::pad_matrix does for CP) that
// are neither loaded nor stored. A warp then never splits into lanes sweeping forward and lanes
// sweeping back from different rows, which breaks the coalescing of its loads: measured on an
// H100 (commit 210da51, docs/performance.md), NCP on padded interleaved storage whose lanes split
// took 3-7x CP's time. Real rows get the same operations as the plain NCP solve (bitwise equal:
// unit_tests/thomas/test_thomas_size_aware.cpp, test_thomas_variable.cpp); the only extra store
// is g(n_s-1) = 0.
// Used by thomas::solve_padded on GPUs (m = the padded row count) and by the size-aware solver
// (m = the size group's largest system).

#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::thomas::impl {

/// Read-only rows: row i < n from `rows`, else `fill`.
template <class Rows, class Scalar>
struct VirtualPaddedRows {
  Rows rows;
  index_type n;
  Scalar fill;
  KOKKOS_FORCEINLINE_FUNCTION Scalar operator()(index_type i) const { return i < n ? Scalar(rows(i)) : fill; }
};
/// Written rows: row i < n in `rows`, else a per-thread sink (the padding is never stored).
template <class Rows, class Scalar>
struct SinkPaddedRows {
  Rows rows;
  index_type n;
  Scalar* sink;
  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type i) const { return i < n ? rows(i) : *sink; }
};

/// Solves the first n rows of one system by running the Thomas core for m >= n rows in lockstep
/// with the other threads of the warp. a, b, c, d, x, g: row accessors as for SerialThomas.
/// Returns SerialThomas' status code for the real rows.
template <class A, class B, class C, class D, class X, class G>
KOKKOS_INLINE_FUNCTION int lockstep_thomas(index_type m, index_type n, const A& a, const B& b, const C& c, const D& d,
                                           const X& x, const G& g) {
  using Matrix = std::remove_cv_t<std::remove_reference_t<decltype(g(0))>>;
  using Value = std::remove_cv_t<std::remove_reference_t<decltype(x(0))>>;
  Value x_sink = Value(0);
  Matrix g_sink = Matrix(0);
  return SerialThomas::invoke(m, VirtualPaddedRows<A, Matrix>{a, n, Matrix(0)},
                              VirtualPaddedRows<B, Matrix>{b, n, Matrix(1)},
                              VirtualPaddedRows<C, Matrix>{c, n - 1, Matrix(0)},
                              VirtualPaddedRows<D, Value>{d, n, Value(0)}, SinkPaddedRows<X, Value>{x, n, &x_sink},
                              SinkPaddedRows<G, Matrix>{g, n, &g_sink});
}

}  // namespace tridiag::thomas::impl
