#pragma once
// The device kernels of Population (population.hpp): one thread per neuron, named functors (see
// "Kernels are functors" in core/kokkos_compat.hpp). Per step, StepKernel turns V^n into the
// backward-Euler right-hand side (cable_step_coefficients.hpp's rhs, the clamp, the soma's
// Hodgkin-Huxley current) and writes the soma rows of the diagonal; hines::solve then overwrites
// it with the step system's solution. Backward Euler: the rhs is formed in place in V, and the
// solution is V^{n+1}. Crank-Nicolson (time_scheme.hpp): the rhs goes to a second vector, whose
// solution V^{n+1/2} FinishStepKernel turns into V^{n+1} = 2 V^{n+1/2} - V^n. Every per-cell constant is stored once per morphology
// (morphology x rows), so a step reads only V, and the solve a, d and V, per neuron and row.

#include <Kokkos_Core.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/hodgkin_huxley.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines::impl {

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
/// [t, t + dt] with t_mid = t + dt/2 (NEURON evaluates an IClamp there). With HH, the gates first
/// take their exponential-Euler step at V^n (completing the previous step, hodgkin_huxley.hpp)
/// unless this is the first step, then set the soma rows' diagonal and current.
template <class Layout, class Memory>
struct StepKernel {
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

  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int m = morphology_of(ids, s);
    const index_type n = sizes(m);
    if (hh) {
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
    for (index_type i = 0; i < n; ++i) out(s, i) = k.c_over_dt_uS(m, i) * v(s, i) + k.rest_current_nA(m, i);  // nA
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

/// Crank-Nicolson's end of step: V^{n+1} = 2 V^{n+1/2} - V^n on the real rows (pad rows stay 0).
template <class Layout, class Memory>
struct FinishStepKernel {
  using Vector = BatchVector<double, Layout, Memory>;
  Kokkos::View<int*, Memory> ids, sizes;
  Vector half, v;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const index_type n = sizes(morphology_of(ids, s));
    for (index_type i = 0; i < n; ++i) v(s, i) = finish_step(TimeScheme::crank_nicolson, half(s, i), v(s, i));
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
