#pragma once
// One backward-Euler step of the passive cable equation on a CompartmentalCell, as a Hines
// system (the matrix NEURON 8.2 solves with secondorder = 0, rows scaled to currents in nA).
//
// Node i (membrane area A_i um^2, parent p(i), axial conductances g_ij uS to its neighbours):
//   C_i dV_i/dt = -G_i (V_i - e_pas) + sum_j g_ij (V_j - V_i) + I_i
// with V in mV, t in ms, I_i the injected current in nA, and
//   C_i = cm * A_i * 1e-5   nF   (uF/cm^2 * um^2 = 1e-8 uF = 1e-5 nF)
//   G_i = g_pas * A_i * 1e-2 uS  (S/cm^2 * um^2 = 1e-8 S = 1e-2 uS)
// so every term is in nA (nF mV/ms = nA, uS mV = nA). Backward Euler over dt (ms):
//   d_i   = C_i/dt + G_i + sum_j g_ij                    (uS)
//   a_i   = -g_{i,p(i)}  lower: coefficient of V_p(i) in row i       (uS)
//   b_i   = -g_{i,p(i)}  upper: coefficient of V_i in row p(i)       (uS)
//   rhs_i = C_i/dt V_i^n + G_i e_pas + I_i                           (nA)
// and the solution is V^{n+1} (mV). Nodes without membrane (A_i = 0: the root node and the
// section end nodes) get the pure current balance sum_j g_ij (V_j - V_i) + I_i = 0.
// NEURON writes the same equations divided by A_i * 1e-2 (mA/cm^2) for membrane nodes and
// solves for V^{n+1} - V^n: same solution. The matrix is symmetric (a = b), weakly diagonally
// dominant, and strictly so on every row with membrane when dt > 0.

#include <vector>

#include <tridiag/algorithms/hines/discretization.hpp>

namespace tridiag::hines {

/// A x = rhs stored as in the Hines algorithm (ICCS 2017, Algorithm 1): row i holds d[i] on the
/// diagonal and a[i] at column parent[i]; row parent[i] holds b[i] at column i.
struct HinesSystem {
  std::vector<int> parent;   ///< parent[i] < i; -1 for row 0
  std::vector<double> a;     ///< lower, A(i, parent[i]); 0 for row 0
  std::vector<double> b;     ///< upper, A(parent[i], i); 0 for row 0
  std::vector<double> d;     ///< diagonal, A(i, i)
  std::vector<double> rhs;   ///< right-hand side
  int size() const { return static_cast<int>(d.size()); }
};

/// Passive membrane (NEURON's `pas`): leak conductance and reversal.
struct PassiveMembrane {
  double g_S_cm2 = 0.001;  ///< g_pas, S/cm^2 (NEURON's default)
  double e_mV = -70;       ///< e_pas, mV (NEURON's default)
};

/// A node's membrane capacitance over the time step, C/dt = cm x area / dt: uF/cm^2 x um^2 / ms
/// = 1e-8 uF / ms = 1e-5 uS.
inline double capacitance_over_dt_uS(double cm_uF_cm2, double area_um2, double dt_ms) {
  return cm_uF_cm2 * area_um2 * 1e-5 / dt_ms;
}

/// Assembles the backward-Euler step from V^n = v_now_mV (one value per node, Hines order) over
/// dt_ms, with injected_nA (one per node, or empty for none). Throws tridiag::invalid_argument
/// if a vector has the wrong size, dt_ms <= 0, g_S_cm2 < 0, e_mV is not finite, or dt_ms so small
/// that a node's C/dt overflows.
HinesSystem assemble_backward_euler(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                    double dt_ms, const std::vector<double>& v_now_mV,
                                    const std::vector<double>& injected_nA = {});

}  // namespace tridiag::hines
