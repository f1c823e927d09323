#pragma once
// The Hodgkin-Huxley squid-axon channels as NEURON's hh.mod has them (Na, K and leak; m, h, n
// gates), for one compartment, on host and device. Population (population.hpp) puts them on the
// soma sections. The rates are computed exactly, as NEURON does with `usetable_hh = 0`; NEURON's
// default (usetable_hh = 1) interpolates them in a table, which moves a spike by up to about
// 0.6 mV: compare with NEURON with the tables off.
//
// Rates (1/ms, V in mV), with vtrap(x, y) = x / (exp(x/y) - 1) (y (1 - x/y/2) near x = 0):
//   alpha_m = 0.1 vtrap(-(V+40), 10)    beta_m = 4 exp(-(V+65)/18)
//   alpha_h = 0.07 exp(-(V+65)/20)      beta_h = 1 / (exp(-(V+35)/10) + 1)
//   alpha_n = 0.01 vtrap(-(V+55), 10)   beta_n = 0.125 exp(-(V+65)/80)
// and x_inf = alpha/(alpha+beta), tau_x = 1/(q10 (alpha+beta)), q10 = 3^((celsius - 6.3)/10).
// Membrane current density (mA/cm^2 with g in S/cm^2):
//   i = gnabar m^3 h (V - ENa) + gkbar n^4 (V - EK) + gl (V - EL).
//
// Time step (NEURON's fixed step with secondorder = 0): with the gates frozen at step n, i is
// linear in V, so backward Euler takes it implicitly: the compartment's row gets
// g = A (gnabar m^3 h + gkbar n^4 + gl) on the diagonal and A (gnabar m^3 h ENa + ...) on the
// right-hand side. After the solve each gate takes one exponential-Euler step at V^{n+1}
// (hh.mod's METHOD cnexp: exact for the gate ODE with V held fixed),
//   x <- x + (1 - exp(-dt/tau_x(V))) (x_inf(V) - x),
// so the gates lag V by half a step, as in NEURON. First order in dt overall.

#include <cmath>
#include <tridiag/core/kokkos_compat.hpp>

namespace tridiag::hines {

/// Channel parameters (hh.mod's defaults).
struct HodgkinHuxley {
  double gnabar_S_cm2 = 0.12;  ///< peak sodium conductance, S/cm^2
  double gkbar_S_cm2 = 0.036;  ///< peak potassium conductance, S/cm^2
  double gl_S_cm2 = 0.0003;    ///< leak conductance, S/cm^2
  double ena_mV = 50;          ///< sodium reversal, mV
  double ek_mV = -77;          ///< potassium reversal, mV
  double el_mV = -54.3;        ///< leak reversal, mV
  double celsius = 6.3;        ///< temperature, degC (6.3: q10 = 1)
};

/// One gate's steady state and time constant at a voltage.
struct GateRate {
  double inf;     ///< steady-state value (1)
  double tau_ms;  ///< time constant, ms
};

/// The m, h, n gates of one compartment.
struct HodgkinHuxleyGates {
  double m, h, n;

  /// hh.mod's vtrap: x / (exp(x/y) - 1) without the 0/0 at x = 0.
  KOKKOS_INLINE_FUNCTION static double vtrap(double x, double y) {
    const double r = x / y;
    if (compat::kokkos_math::fabs(r) < 1e-6) return y * (1 - r / 2);
    return x / (compat::kokkos_math::exp(r) - 1);
  }
  KOKKOS_INLINE_FUNCTION static GateRate gate(double alpha, double beta, double q10) {
    const double sum = alpha + beta;
    return {alpha / sum, 1 / (q10 * sum)};
  }
  KOKKOS_INLINE_FUNCTION static GateRate m_rate(double v, double q10) {
    using compat::kokkos_math::exp;
    return gate(0.1 * vtrap(-(v + 40), 10), 4 * exp(-(v + 65) / 18), q10);
  }
  KOKKOS_INLINE_FUNCTION static GateRate h_rate(double v, double q10) {
    using compat::kokkos_math::exp;
    return gate(0.07 * exp(-(v + 65) / 20), 1 / (exp(-(v + 35) / 10) + 1), q10);
  }
  KOKKOS_INLINE_FUNCTION static GateRate n_rate(double v, double q10) {
    using compat::kokkos_math::exp;
    return gate(0.01 * vtrap(-(v + 55), 10), 0.125 * exp(-(v + 65) / 80), q10);
  }

  /// Gates at rest at v (NEURON's finitialize).
  KOKKOS_INLINE_FUNCTION static HodgkinHuxleyGates steady_state(double v, double q10) {
    return {m_rate(v, q10).inf, h_rate(v, q10).inf, n_rate(v, q10).inf};
  }

  /// One exponential-Euler step of every gate over dt_ms at the voltage v (cnexp).
  KOKKOS_INLINE_FUNCTION void advance(double v, double dt_ms, double q10) {
    using compat::kokkos_math::exp;
    const GateRate rm = m_rate(v, q10), rh = h_rate(v, q10), rn = n_rate(v, q10);
    m += (1 - exp(-dt_ms / rm.tau_ms)) * (rm.inf - m);
    h += (1 - exp(-dt_ms / rh.tau_ms)) * (rh.inf - h);
    n += (1 - exp(-dt_ms / rn.tau_ms)) * (rn.inf - n);
  }

  /// Sodium and potassium conductance densities at these gates, S/cm^2.
  KOKKOS_INLINE_FUNCTION double g_na(const HodgkinHuxley& p) const { return p.gnabar_S_cm2 * m * m * m * h; }
  KOKKOS_INLINE_FUNCTION double g_k(const HodgkinHuxley& p) const { return p.gkbar_S_cm2 * n * n * n * n; }
};

/// q10 = 3^((celsius - 6.3)/10), the temperature factor of every rate (host).
inline double hodgkin_huxley_q10(const HodgkinHuxley& p) {
  return std::pow(3.0, (p.celsius - 6.3) / 10);
}

}  // namespace tridiag::hines
