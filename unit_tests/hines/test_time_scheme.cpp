// The time schemes (algorithms/hines/time_scheme.hpp) by their order of accuracy, independently
// of NEURON (unit_tests/hines/neuron/ compares both schemes with NEURON itself): a passive cell at
// rest driven by a smooth current at the soma, run with dt, dt/2, dt/4 against a fine
// Crank-Nicolson run. Backward Euler's error must halve with dt (first order), Crank-Nicolson's
// fall by 4x (second order) and be far smaller. A scheme that finished the step wrongly (e.g.
// kept V^{n+1/2}, or solved over dt instead of dt/2) is first order or worse and fails.

#include <gtest/gtest.h>

#include <cmath>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/reference_hines.hpp"

namespace tridiag::test {
namespace {

using hines::TimeScheme;

/// Soma voltage (mV) at t_end_ms of mp_ma_40984_gc2 (149 rows) under `scheme` with step dt_ms.
/// The cell starts at rest (v = e_pas) and gets I(t) = 0.2 sin(2 pi t / 4 ms) nA at soma(0.5),
/// evaluated at each step's midpoint: smooth data, so that the schemes show their order.
double soma_voltage(TimeScheme scheme, double dt_ms, double t_end_ms) {
  static const hines::CompartmentalCell cell =
      hines::discretize(hines::load_swc(hines::test::morphology_path("mp_ma_40984_gc2.CNG.swc")));
  const hines::PassiveMembrane membrane{0.001, -70};
  const int soma = cell.node_at(0, 0.5);
  std::vector<double> v(cell.size(), membrane.e_mV), injected(cell.size(), 0.0);
  const long steps = std::lround(t_end_ms / dt_ms);
  for (long step = 0; step < steps; ++step) {
    const double t_mid = (static_cast<double>(step) + 0.5) * dt_ms;
    injected[soma] = 0.2 * std::sin(2 * M_PI * t_mid / 4.0);
    const hines::HinesSystem sys =
        hines::assemble_backward_euler(cell, membrane, hines::system_dt_ms(scheme, dt_ms), v, injected);
    const std::vector<double> x = hines::test::hines_solve_reference(sys.a, sys.b, sys.d, sys.rhs, sys.parent);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = hines::finish_step(scheme, x[i], v[i]);
  }
  return v[soma];
}

TEST(HinesTimeScheme, BackwardEulerIsFirstOrderAndCrankNicolsonSecondOrder) {
  const double t_end = 3.0, dt = 0.1;
  const double exact = soma_voltage(TimeScheme::crank_nicolson, dt / 64, t_end);
  ASSERT_GT(std::fabs(exact - (-70.0)), 1.0) << "the drive must move the soma";
  for (const TimeScheme scheme : {TimeScheme::backward_euler, TimeScheme::crank_nicolson}) {
    std::vector<double> error;
    for (const double h : {dt, dt / 2, dt / 4}) error.push_back(std::fabs(soma_voltage(scheme, h, t_end) - exact));
    const double ratio1 = error[0] / error[1], ratio2 = error[1] / error[2];
    if (scheme == TimeScheme::backward_euler) {
      EXPECT_NEAR(ratio1, 2.0, 0.4) << "errors " << error[0] << " " << error[1] << " " << error[2];
      EXPECT_NEAR(ratio2, 2.0, 0.4) << "errors " << error[0] << " " << error[1] << " " << error[2];
    } else {
      EXPECT_NEAR(ratio1, 4.0, 0.6) << "errors " << error[0] << " " << error[1] << " " << error[2];
      EXPECT_NEAR(ratio2, 4.0, 0.6) << "errors " << error[0] << " " << error[1] << " " << error[2];
    }
  }
  EXPECT_LT(std::fabs(soma_voltage(TimeScheme::crank_nicolson, dt, t_end) - exact),
            0.1 * std::fabs(soma_voltage(TimeScheme::backward_euler, dt, t_end) - exact));
}

TEST(HinesTimeScheme, SystemStepAndFinish) {
  EXPECT_EQ(hines::system_dt_ms(TimeScheme::backward_euler, 0.025), 0.025);
  EXPECT_EQ(hines::system_dt_ms(TimeScheme::crank_nicolson, 0.025), 0.0125);
  EXPECT_EQ(hines::finish_step(TimeScheme::backward_euler, -60.0, -65.0), -60.0);
  EXPECT_EQ(hines::finish_step(TimeScheme::crank_nicolson, -60.0, -65.0), -55.0);
}

}  // namespace
}  // namespace tridiag::test
