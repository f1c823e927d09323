#include <tridiag/algorithms/hines/backward_euler.hpp>

#include <cmath>

#include <tridiag/core/errors.hpp>

namespace tridiag::hines {

HinesSystem assemble_backward_euler(const CompartmentalCell& cell, const PassiveMembrane& membrane,
                                    double dt_ms, const std::vector<double>& v_now_mV,
                                    const std::vector<double>& injected_nA) {
  const char* where = "hines::assemble_backward_euler";
  check_compartmental_cell(cell, where);
  const int n = cell.size();
  require(static_cast<int>(v_now_mV.size()) == n, where, "v_now_mV has ", v_now_mV.size(),
          " values, the cell has ", n, " nodes");
  require(injected_nA.empty() || static_cast<int>(injected_nA.size()) == n, where,
          "injected_nA has ", injected_nA.size(), " values, the cell has ", n, " nodes");
  require(dt_ms > 0 && std::isfinite(dt_ms), where, "dt_ms=", dt_ms, " must be positive");
  require(membrane.g_S_cm2 >= 0 && std::isfinite(membrane.g_S_cm2), where,
          "g_S_cm2=", membrane.g_S_cm2, " must be non-negative");
  require(std::isfinite(membrane.e_mV), where, "e_mV=", membrane.e_mV, " must be finite");

  HinesSystem sys;
  sys.parent = cell.parent;
  sys.a.assign(n, 0.0);
  sys.b.assign(n, 0.0);
  sys.d.assign(n, 0.0);
  sys.rhs.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const double area = cell.area_um2[i];                        // um^2
    const double c_over_dt = capacitance_over_dt_uS(cell.cm_uF_cm2, area, dt_ms);
    require(std::isfinite(c_over_dt), where, "dt_ms=", dt_ms, " is too small: node ", i,
            "'s C/dt (cm x area / dt) overflows");
    const double g_leak = membrane.g_S_cm2 * area * 1e-2;         // uS
    sys.d[i] += c_over_dt + g_leak;
    sys.rhs[i] = c_over_dt * v_now_mV[i] + g_leak * membrane.e_mV;  // nA
    if (!injected_nA.empty()) sys.rhs[i] += injected_nA[i];
    const int p = cell.parent[i];
    if (p >= 0) {
      const double g = cell.axial_conductance_uS[i];  // uS
      sys.a[i] = -g;
      sys.b[i] = -g;
      sys.d[i] += g;
      sys.d[p] += g;
    }
  }
  return sys;
}

}  // namespace tridiag::hines
