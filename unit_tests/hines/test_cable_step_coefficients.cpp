// cable_step_coefficients (host): the coefficients are the backward-Euler cable equation's
// (backward_euler.hpp), computed here node by node from the cell with children lists (another
// summation order, hence a tolerance); assemble_backward_euler, built from them, gives the same
// matrix and the rhs the population forms from them bit for bit (the population's step relies on
// it); and with HH at the soma only the soma sections' rows lose their passive terms.

#include <cfloat>
#include <cmath>
#include <random>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/cable_step_coefficients.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "test_support.hpp"

namespace tridiag::hines::test {
namespace {

TEST(CableStepCoefficients, AreTheCableEquationsAndAssembleBackwardEulersBitForBit) {
  const PassiveMembrane membrane{0.0007, -68};
  const double dt = 0.025;
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> volts(-80, -50);
  for (const TestCell& tc : test_cells()) {
    const CompartmentalCell& cell = tc.cell;
    const CableStepCoefficients c = cable_step_coefficients(cell, membrane, dt, false);
    ASSERT_EQ(c.size(), cell.size()) << tc.name;
    EXPECT_EQ(c.parent, cell.parent) << tc.name;
    // d_i = C_i/dt + G_i + sum of g over node i's neighbours (its parent and its children).
    std::vector<std::vector<int>> children(cell.size());
    for (int i = 1; i < cell.size(); ++i) children[cell.parent[i]].push_back(i);
    for (int i = 0; i < cell.size(); ++i) {
      const double c_over_dt = cell.cm_uF_cm2 * cell.area_um2[i] * 1e-5 / dt;
      const double g_leak = membrane.g_S_cm2 * cell.area_um2[i] * 1e-2;
      double d = c_over_dt + g_leak + (i > 0 ? cell.axial_conductance_uS[i] : 0.0);
      for (int child : children[i]) d += cell.axial_conductance_uS[child];
      // positive terms summed in two orders: each within (terms x u) of the exact sum
      const double terms = 3.0 + children[i].size();
      EXPECT_NEAR(c.diag_uS[i], d, terms * DBL_EPSILON * d) << tc.name << " node " << i;
      EXPECT_NEAR(c.c_over_dt_uS[i], c_over_dt, 2 * DBL_EPSILON * c_over_dt) << tc.name << " node " << i;
      EXPECT_NEAR(c.rest_current_nA[i], g_leak * membrane.e_mV, 2 * DBL_EPSILON * std::abs(g_leak * membrane.e_mV))
          << tc.name << " node " << i;
      EXPECT_EQ(c.offdiag_uS[i], i > 0 ? -cell.axial_conductance_uS[i] : 0.0) << tc.name << " node " << i;
    }
    std::vector<double> v(cell.size()), injected(cell.size(), 0.0);
    for (double& x : v) x = volts(gen);
    injected[c.clamp_node] = 0.37;
    const HinesSystem sys = assemble_backward_euler(cell, membrane, dt, v, injected);
    ASSERT_EQ(c.size(), sys.size()) << tc.name;
    EXPECT_EQ(c.parent, sys.parent) << tc.name;
    EXPECT_EQ(c.offdiag_uS, sys.a) << tc.name;
    EXPECT_EQ(c.offdiag_uS, sys.b) << tc.name;
    EXPECT_EQ(c.diag_uS, sys.d) << tc.name;
    std::vector<double> rhs(cell.size());
    for (int i = 0; i < cell.size(); ++i) rhs[i] = c.c_over_dt_uS[i] * v[i] + c.rest_current_nA[i];
    rhs[c.clamp_node] += injected[c.clamp_node];
    EXPECT_EQ(rhs, sys.rhs) << tc.name;
    EXPECT_EQ(c.clamp_node, cell.node_at(0, 0.5));
    // HH's nodes: every segment (not a root or end node) of every SWC type-1 section, found here
    // from section_of and x_in_section rather than from first_node and nseg.
    std::vector<int> soma_segments;
    for (int i = 0; i < cell.size(); ++i)
      if (cell.sections[cell.section_of[i]].type == 1 && cell.x_in_section[i] > 0 && cell.x_in_section[i] < 1)
        soma_segments.push_back(i);
    EXPECT_EQ(c.soma_nodes, soma_segments) << tc.name;
    ASSERT_EQ(c.soma_area_um2.size(), c.soma_nodes.size()) << tc.name;
    for (std::size_t k = 0; k < c.soma_nodes.size(); ++k)
      EXPECT_EQ(c.soma_area_um2[k], cell.area_um2[c.soma_nodes[k]]) << tc.name << " node " << c.soma_nodes[k];
  }
}

// A soma stacked in several sections (tc200: 7) gets HH on all of them, as NEURON's
// `forsec somatic insert hh` does; soma[0] alone holds under half of tc200's soma membrane.
TEST(CableStepCoefficients, HodgkinHuxleyCoversEverySomaSection) {
  const CompartmentalCell& cell = test_cell("tc200").cell;
  const CableStepCoefficients c = cable_step_coefficients(cell, {0.001, -70}, 0.025, true);
  std::vector<bool> has_hh(cell.sections.size(), false);
  for (int node : c.soma_nodes) has_hh[cell.section_of[node]] = true;
  int soma_sections = 0;
  for (std::size_t s = 0; s < cell.sections.size(); ++s) {
    if (cell.sections[s].type != 1) continue;
    ++soma_sections;
    EXPECT_TRUE(has_hh[s]) << "soma section " << s;
  }
  EXPECT_GE(soma_sections, 2);
  double hh_area = 0, soma0_area = 0;
  for (std::size_t k = 0; k < c.soma_nodes.size(); ++k) {
    hh_area += c.soma_area_um2[k];
    if (cell.section_of[c.soma_nodes[k]] == 0) soma0_area += c.soma_area_um2[k];
  }
  EXPECT_LT(soma0_area, 0.5 * hh_area);
}

TEST(CableStepCoefficients, HodgkinHuxleySomaDropsOnlyTheSomaLeak) {
  const CompartmentalCell& cell = test_cells()[0].cell;
  const PassiveMembrane membrane{0.001, -70};
  const CableStepCoefficients passive = cable_step_coefficients(cell, membrane, 0.025, false);
  const CableStepCoefficients hh = cable_step_coefficients(cell, membrane, 0.025, true);
  std::vector<bool> soma(cell.size(), false);
  for (std::size_t k = 0; k < hh.soma_nodes.size(); ++k) {
    const int i = hh.soma_nodes[k];
    soma[i] = true;
    EXPECT_EQ(hh.rest_current_nA[i], 0.0);
    EXPECT_NEAR(passive.diag_uS[i] - hh.diag_uS[i], membrane.g_S_cm2 * cell.area_um2[i] * 1e-2,
                1e-12 * passive.diag_uS[i]);
    EXPECT_EQ(hh.soma_area_um2[k], cell.area_um2[i]);
    EXPECT_GT(cell.area_um2[i], 0.0);
  }
  for (int i = 0; i < cell.size(); ++i)
    if (!soma[i]) {
      EXPECT_EQ(hh.diag_uS[i], passive.diag_uS[i]) << i;
      EXPECT_EQ(hh.rest_current_nA[i], passive.rest_current_nA[i]) << i;
    }
}

TEST(CableStepCoefficients, BadInputThrows) {
  const CompartmentalCell& cell = test_cells()[0].cell;
  EXPECT_THROW(cable_step_coefficients(cell, {}, 0.0, false), tridiag::invalid_argument);
  EXPECT_THROW(cable_step_coefficients(cell, {-1e-4, -65}, 0.025, false), tridiag::invalid_argument);
  EXPECT_THROW(cable_step_coefficients(CompartmentalCell{}, {}, 0.025, false), tridiag::invalid_argument);
  // Positive but so small that C/dt overflows: rejected here, not by the solve later.
  try {
    cable_step_coefficients(cell, {}, 1e-320, false);
    ADD_FAILURE() << "dt = 1e-320 ms was accepted";
  } catch (const tridiag::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is too small"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tridiag::hines::test
