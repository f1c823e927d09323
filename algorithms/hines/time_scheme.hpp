#pragma once
// The two fixed-step schemes of the cable equation (backward_euler.hpp's equations and units),
// as NEURON offers them with `secondorder`:
//   backward Euler (secondorder = 0, first order): solve the step's Hines system over dt; its
//     solution is V^{n+1};
//   Crank-Nicolson (secondorder = 1, second order for the cable): solve the backward-Euler
//     system over dt/2, whose solution is V^{n+1/2}, then V^{n+1} = 2 V^{n+1/2} - V^n. For the
//     linear cable this is exactly the trapezoidal rule (V^{n+1} - V^n)/dt = f((V^n + V^{n+1})/2);
//     NEURON does the same (its matrix uses cj = 2/dt and its update v += 2 dv).
// Both solve one Hines system per step with the same structure; Crank-Nicolson adds one pass over
// V to finish the step. Injected currents are evaluated at t + dt/2 in both (NEURON's timing).
// Crank-Nicolson is not L-stable: with dt much larger than the membrane time constant of the
// smallest compartments, fast modes alternate in sign while they decay (as in NEURON).

#include <tridiag/core/kokkos_compat.hpp>

namespace tridiag::hines {

enum class TimeScheme { backward_euler, crank_nicolson };

/// The time step of the backward-Euler system a step of dt_ms solves under `scheme`.
KOKKOS_INLINE_FUNCTION constexpr double system_dt_ms(TimeScheme scheme, double dt_ms) {
  return scheme == TimeScheme::crank_nicolson ? 0.5 * dt_ms : dt_ms;
}

/// V^{n+1} at one node from the solution of the step's system and V^n.
KOKKOS_INLINE_FUNCTION constexpr double finish_step(TimeScheme scheme, double solution_mV, double v_now_mV) {
  return scheme == TimeScheme::crank_nicolson ? 2.0 * solution_mV - v_now_mV : solution_mV;
}

/// "backward_euler" or "crank_nicolson".
inline const char* name(TimeScheme scheme) {
  return scheme == TimeScheme::crank_nicolson ? "crank_nicolson" : "backward_euler";
}

}  // namespace tridiag::hines
