#include <tridiag/algorithms/hines/cable_step_coefficients.hpp>

#include <cmath>

#include <tridiag/core/errors.hpp>

namespace tridiag::hines {

CableStepCoefficients cable_step_coefficients(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                              double dt_ms, bool hh_at_soma) {
  return impl::cable_step_coefficients(cell, membrane, dt_ms, hh_at_soma, "hines::cable_step_coefficients");
}

CableStepCoefficients impl::cable_step_coefficients(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                                    double dt_ms, bool hh_at_soma, const char* where) {
  require(dt_ms > 0 && std::isfinite(dt_ms), where, "dt_ms=", dt_ms, " must be positive");
  require(membrane.g_S_cm2 >= 0 && std::isfinite(membrane.g_S_cm2), where, "g_S_cm2=", membrane.g_S_cm2,
          " must be non-negative");
  require(std::isfinite(membrane.e_mV), where, "e_mV=", membrane.e_mV, " must be finite");
  check_compartmental_cell(cell, where);

  const int n = cell.size();
  std::vector<bool> is_soma(n, false);
  CableStepCoefficients c;
  // Every soma section (SWC type 1), as NEURON's `forsec somatic insert hh` does: a stacked
  // soma has several (tc200 has 7), and soma[0] alone can hold under half of its membrane.
  for (int s = 0; s < static_cast<int>(cell.sections.size()); ++s) {
    if (cell.sections[s].type != 1) continue;
    for (int j = 0; j < cell.nseg[s]; ++j) {
      const int node = cell.first_node[s] + j;
      is_soma[node] = true;
      c.soma_nodes.push_back(node);
      c.soma_area_um2.push_back(cell.area_um2[node]);
    }
  }
  c.clamp_node = cell.node_at(0, 0.5);
  c.parent = cell.parent;
  c.offdiag_uS.assign(n, 0.0);
  c.diag_uS.assign(n, 0.0);
  c.c_over_dt_uS.assign(n, 0.0);
  c.rest_current_nA.assign(n, 0.0);
  // The matrix of assemble_backward_euler (which is built from this) and the rhs's constant terms.
  for (int i = 0; i < n; ++i) {
    const double area = cell.area_um2[i];                            // um^2
    const double c_over_dt = capacitance_over_dt_uS(cell.cm_uF_cm2, area, dt_ms);
    require(std::isfinite(c_over_dt), where, "dt_ms=", dt_ms, " is too small: node ", i,
            "'s C/dt (cm x area / dt) overflows");
    const double g_leak = hh_at_soma && is_soma[i] ? 0.0 : membrane.g_S_cm2 * area * 1e-2;  // uS
    c.c_over_dt_uS[i] = c_over_dt;
    c.diag_uS[i] += c_over_dt + g_leak;
    c.rest_current_nA[i] = g_leak * membrane.e_mV;  // nA
    const int p = cell.parent[i];
    if (p >= 0) {
      const double g = cell.axial_conductance_uS[i];  // uS
      c.offdiag_uS[i] = -g;
      c.diag_uS[i] += g;
      c.diag_uS[p] += g;
    }
  }
  return c;
}

}  // namespace tridiag::hines
