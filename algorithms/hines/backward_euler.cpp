#include <tridiag/algorithms/hines/backward_euler.hpp>

#include <tridiag/algorithms/hines/cable_step_coefficients.hpp>
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
  // The matrix is the step's constant part (the passive membrane everywhere); only rhs depends on
  // V^n and I. Same operations in the same order as the population's steps, so both agree bitwise.
  CableStepCoefficients c = impl::cable_step_coefficients(cell, membrane, dt_ms, /*hh_at_soma=*/false, where);
  HinesSystem sys;
  sys.parent = std::move(c.parent);
  sys.a = c.offdiag_uS;
  sys.b = std::move(c.offdiag_uS);
  sys.d = std::move(c.diag_uS);
  sys.rhs.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    sys.rhs[i] = c.c_over_dt_uS[i] * v_now_mV[i] + c.rest_current_nA[i];  // nA
    if (!injected_nA.empty()) sys.rhs[i] += injected_nA[i];
  }
  return sys;
}

}  // namespace tridiag::hines
