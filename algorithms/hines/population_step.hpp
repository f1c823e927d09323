#pragma once
// The device kernels of Population (population.hpp): named functors (see "Kernels are functors"
// in core/kokkos_compat.hpp). Per step, StepKernel turns V^n into the backward-Euler right-hand
// side (cable_step_coefficients.hpp's rhs, the clamp, the soma's Hodgkin-Huxley current) and
// writes the soma rows of the diagonal, in three launches: the soma's gates and diagonal (a
// thread per neuron), the rows' rhs (a thread per step_rows_per_thread rows of a neuron,
// neuron_chunk_of), the soma's and clamp's currents (a thread per neuron); hines::solve then
// overwrites it with the step system's solution. Chunks of rows because a thread per neuron
// walks its rows one after the other (with few neurons of large cells the rhs took as long as
// the solve), and a thread per row spends most threads on the pad rows of a mixed batch (H100,
// the 11 shared cells, docs/performance.md 2026-11-26). Backward Euler: the rhs is formed in place in V, and the
// solution is V^{n+1}. Crank-Nicolson (time_scheme.hpp): the rhs goes to a second vector, whose
// solution V^{n+1/2} FinishStepKernel turns into V^{n+1} = 2 V^{n+1/2} - V^n. Every per-cell constant is stored once per morphology
// (morphology x rows), so a step reads only V, and the solve a, d and V, per neuron and row.

#include <Kokkos_Core.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/hodgkin_huxley.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/types.hpp>
#include <type_traits>

namespace tridiag::hines::impl {

/// Rows of one neuron a thread of the step's row launches walks.
inline constexpr index_type step_rows_per_thread = 32;

/// Chunks of step_rows_per_thread rows a neuron of `rows` rows is cut into.
KOKKOS_INLINE_FUNCTION index_type step_row_chunks(index_type rows) {
  return (rows + step_rows_per_thread - 1) / step_rows_per_thread;
}

/// Threads of a row launch over `systems` neurons of `rows` rows: one per chunk of each neuron.
KOKKOS_INLINE_FUNCTION index_type step_row_threads(index_type systems, index_type rows) {
  return systems * step_row_chunks(rows);
}

/// The end of the chunk starting at row `first` of a neuron of n real rows (its pad rows skipped).
KOKKOS_INLINE_FUNCTION index_type step_chunk_end(index_type first, index_type n) {
  return n < first + step_rows_per_thread ? n : first + step_rows_per_thread;
}

/// The neuron s and the first row i of thread k of a row launch over `systems` neurons of `rows`
/// rows (step_row_threads), so that neighbouring threads touch neighbouring storage: neurons
/// fastest on the interleaved layouts (row i of neighbouring neurons adjacent), chunks of rows
/// fastest on Flat (a neuron's rows adjacent).
template <class Layout>
KOKKOS_INLINE_FUNCTION void neuron_chunk_of(index_type k, index_type systems, index_type rows, index_type& s,
                                            index_type& i) {
  const index_type chunks = step_row_chunks(rows);
  if constexpr (std::is_same_v<Layout, layouts::Flat>) {
    s = k / chunks;
    i = k % chunks * step_rows_per_thread;
  } else {
    s = k % systems;
    i = k / systems * step_rows_per_thread;
  }
}

/// Per-morphology constants of one group of a population on the device (host-built from
/// CableStepCoefficients), indexed by the group's morphology id.
template <class Memory>
struct MorphologyConstants {
  using Table = Kokkos::View<double**, Kokkos::LayoutRight, Memory>;
  Table offdiag_uS;             ///< (m, i): a = b, 0 on row 0 and pad rows
  Table diag_uS;                ///< (m, i): without channel conductance; 1 on pad rows
  Table c_over_dt_uS;           ///< (m, i)
  Table rest_current_nA;        ///< (m, i)
  Kokkos::View<int*, Memory> clamp_node;        ///< (m): soma(0.5)
  Kokkos::View<int*, Memory> soma_count;        ///< (m): segments of the soma
  Kokkos::View<int**, Kokkos::LayoutRight, Memory> soma_node;  ///< (m, k)
  Table soma_area_um2;          ///< (m, k)
  Table soma_diag_uS;           ///< (m, k): diag_uS at soma_node(m, k)
};

/// Per-neuron clamp: (slot, 0..2) = amplitude nA, delay ms, duration ms.
template <class Memory>
using ClampTable = Kokkos::View<double* [3], Memory>;
/// HH gates: (slot, soma segment, m/h/n); LayoutLeft: neighbouring neurons contiguous.
template <class Memory>
using GateTable = Kokkos::View<double***, Kokkos::LayoutLeft, Memory>;

/// Fills a group's matrix and state once: a, d from the morphology tables (pad rows identity
/// rows, as make_problem makes them), V = v_init on real rows and 0 on pad rows, HH gates at
/// rest at v_init.
template <class Layout, class Memory>
struct FillKernel {
  using Vector = BatchVector<double, Layout, Memory>;
  MorphologyConstants<Memory> k;
  Kokkos::View<int*, Memory> ids, sizes;
  Vector a, d, v;
  GateTable<Memory> gates;
  double v_init_mV, q10;
  bool hh;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int m = morphology_of(ids, s);
    const index_type n = sizes(m);
    for (index_type i = 0; i < v.rows(); ++i) {
      a(s, i) = k.offdiag_uS(m, i);
      d(s, i) = k.diag_uS(m, i);
      v(s, i) = i < n ? v_init_mV : 0.0;
    }
    if (!hh) return;
    const HodgkinHuxleyGates rest = HodgkinHuxleyGates::steady_state(v_init_mV, q10);
    for (int c = 0; c < k.soma_count(m); ++c) {
      gates(s, c, 0) = rest.m;
      gates(s, c, 1) = rest.h;
      gates(s, c, 2) = rest.n;
    }
  }
};

/// One time step's assembly, V^n (v) -> rhs (out; out may be v: in place), for the step
/// [t, t + dt] with t_mid = t + dt/2 (NEURON evaluates an IClamp there), in three launches in this
/// order (the same operations, in the same order per row, as one thread per neuron):
///   Gates    (a thread per neuron, with HH only) the gates take their exponential-Euler step at
///            V^n (completing the previous step, hodgkin_huxley.hpp) unless this is the first
///            step, and set the soma rows' diagonal; before Rows, which overwrites V^n in place;
///   Rows     (step_row_threads: a thread per step_rows_per_thread rows of a neuron) the real
///            rows' rhs;
///   Sources  (a thread per neuron, with HH or a clamp) adds the soma's channel current and the
///            clamp's.
template <class Layout, class Memory>
struct StepKernel {
  struct Gates {};
  struct Rows {};
  struct Sources {};
  using Vector = BatchVector<double, Layout, Memory>;
  MorphologyConstants<Memory> k;
  Kokkos::View<int*, Memory> ids, sizes;
  Vector d, v, out;
  ClampTable<Memory> clamp;
  GateTable<Memory> gates;
  HodgkinHuxley channels;
  double dt_ms, t_mid_ms, q10;
  bool hh, advance_gates;

  KOKKOS_INLINE_FUNCTION HodgkinHuxleyGates load(index_type s, int c) const {
    return {gates(s, c, 0), gates(s, c, 1), gates(s, c, 2)};
  }
  /// Channel conductance density (S/cm^2) at these gates.
  KOKKOS_INLINE_FUNCTION double g_total(const HodgkinHuxleyGates& g) const {
    return g.g_na(channels) + g.g_k(channels) + channels.gl_S_cm2;
  }

  /// Whether the Gates and Sources launches have anything to do.
  bool has_gates() const { return hh; }
  bool has_sources() const { return hh || clamp.extent(0) > 0; }

  KOKKOS_INLINE_FUNCTION void operator()(Gates, const index_type s) const {
    const int m = morphology_of(ids, s);
    for (int c = 0; c < k.soma_count(m); ++c) {
      HodgkinHuxleyGates g = load(s, c);
      if (advance_gates) {
        g.advance(v(s, k.soma_node(m, c)), dt_ms, q10);
        gates(s, c, 0) = g.m;
        gates(s, c, 1) = g.h;
        gates(s, c, 2) = g.n;
      }
      d(s, k.soma_node(m, c)) = k.soma_diag_uS(m, c) + k.soma_area_um2(m, c) * 1e-2 * g_total(g);  // uS
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(Rows, const index_type t) const {
    index_type s, first;
    neuron_chunk_of<Layout>(t, v.systems(), v.rows(), s, first);
    const int m = morphology_of(ids, s);
    const index_type end = step_chunk_end(first, sizes(m));
    for (index_type i = first; i < end; ++i) out(s, i) = k.c_over_dt_uS(m, i) * v(s, i) + k.rest_current_nA(m, i);  // nA
  }

  KOKKOS_INLINE_FUNCTION void operator()(Sources, const index_type s) const {
    const int m = morphology_of(ids, s);
    if (hh) {
      for (int c = 0; c < k.soma_count(m); ++c) {
        const HodgkinHuxleyGates g = load(s, c);
        const double driving = g.g_na(channels) * channels.ena_mV + g.g_k(channels) * channels.ek_mV +
                               channels.gl_S_cm2 * channels.el_mV;  // S/cm^2 mV
        out(s, k.soma_node(m, c)) += k.soma_area_um2(m, c) * 1e-2 * driving;     // nA
      }
    }
    if (clamp.extent(0) > 0) {
      const double delay = clamp(s, 1), duration = clamp(s, 2);
      if (t_mid_ms >= delay && t_mid_ms < delay + duration) out(s, k.clamp_node(m)) += clamp(s, 0);
    }
  }
};

/// Crank-Nicolson's end of step: V^{n+1} = 2 V^{n+1/2} - V^n on the real rows (pad rows stay 0),
/// a thread per step_rows_per_thread rows of a neuron (step_row_threads).
template <class Layout, class Memory>
struct FinishStepKernel {
  using Vector = BatchVector<double, Layout, Memory>;
  Kokkos::View<int*, Memory> ids, sizes;
  Vector half, v;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type t) const {
    index_type s, first;
    neuron_chunk_of<Layout>(t, v.systems(), v.rows(), s, first);
    const index_type end = step_chunk_end(first, sizes(morphology_of(ids, s)));
    for (index_type i = first; i < end; ++i) v(s, i) = finish_step(TimeScheme::crank_nicolson, half(s, i), v(s, i));
  }
};

/// Copies the soma voltage of recorded neurons into row `sample` of the recording buffer.
template <class Layout, class Memory>
struct RecordKernel {
  using Vector = BatchVector<double, Layout, Memory>;
  MorphologyConstants<Memory> k;
  Kokkos::View<int*, Memory> ids;
  Vector v;
  Kokkos::View<index_type*, Memory> slot;  ///< (r): storage slot of recorded entry r
  Kokkos::View<int*, Memory> column;       ///< (r): its column in the buffer
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> buffer;
  index_type sample;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type r) const {
    const index_type s = slot(r);
    buffer(sample, column(r)) = v(s, k.clamp_node(morphology_of(ids, s)));
  }
};

/// Copies every row of one neuron's V into out (tests, inspection).
template <class Layout, class Memory>
struct CopyNeuronKernel {
  BatchVector<double, Layout, Memory> v;
  index_type slot;
  Kokkos::View<double*, Memory> out;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type i) const { out(i) = v(slot, i); }
};

}  // namespace tridiag::hines::impl
