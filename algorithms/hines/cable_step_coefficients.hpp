#pragma once
// The parts of a cell's backward-Euler step (backward_euler.hpp's equations and units) that stay
// the same from step to step, so that a time loop builds them once and each step only forms
//   rhs_i = c_over_dt_i V_i^n + rest_current_i + I_i (+ the soma's channel current)
// from the voltages. With Hodgkin-Huxley at the soma, the soma's segments carry HH (with its own
// leak) instead of the passive leak, NEURON-style (`soma insert hh`, the rest `insert pas`): their
// rows get no passive term here, and the channel conductance is added to their diagonal each step.

#include <vector>

#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>

namespace tridiag::hines {

/// Per node (Hines order) unless said otherwise.
struct CableStepCoefficients {
  std::vector<int> parent;              ///< parent node, -1 for node 0
  std::vector<double> offdiag_uS;       ///< a_i = b_i = -g_{i,p(i)}, uS (symmetric); 0 for node 0
  std::vector<double> diag_uS;          ///< C_i/dt + G_i + sum_j g_ij, uS (no channel conductance)
  std::vector<double> c_over_dt_uS;     ///< C_i/dt, uS
  std::vector<double> rest_current_nA;  ///< G_i e_pas, nA
  std::vector<int> soma_nodes;          ///< the segment nodes of every soma section (SWC type 1), in order
  std::vector<double> soma_area_um2;    ///< their membrane areas, um^2
  int clamp_node = 0;                   ///< soma(0.5): where a current clamp injects
  int size() const { return static_cast<int>(parent.size()); }
};

/// Coefficients of `cell` for steps of dt_ms with the passive membrane everywhere, or
/// (hh_at_soma) everywhere except the soma's segments: those of every section of SWC type 1
/// (NEURON's `somatic` list; soma[0], the root, and any further soma sections). With hh_at_soma
/// false this is the matrix of assemble_backward_euler, which is built from it: diag_uS,
/// offdiag_uS and rhs = c_over_dt_uS V + rest_current_nA (+ I) equal its output bit for bit.
/// Throws tridiag::invalid_argument when dt_ms <= 0, g_S_cm2 < 0, a value is not finite, or dt_ms
/// is so small that a node's C/dt overflows.
CableStepCoefficients cable_step_coefficients(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                              double dt_ms, bool hh_at_soma);

namespace impl {
/// cable_step_coefficients with its exceptions naming `where` (assemble_backward_euler's).
CableStepCoefficients cable_step_coefficients(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                              double dt_ms, bool hh_at_soma, const char* where);
}  // namespace impl

}  // namespace tridiag::hines
