#include <tridiag/algorithms/hines/backward_euler.hpp>
#include "../../unit_tests/hines/reference_hines.hpp"  // relative to this file: any checkout
#include <cstdio>
#include <cstring>
#include <string>
using namespace tridiag::hines;
int main(int argc, char** argv) {
  DiscretizationOptions o;
  if (argc > 2 && !std::strcmp(argv[2], "dlambda")) o.rule = DiscretizationOptions::Rule::d_lambda;
  auto c = discretize(load_swc(argv[1]), o);
  int last = (int)c.sections.size() - 1;
  std::printf("%s[%d]\n", neuron_section_name(c.sections[last].type).c_str(), c.sections[last].index_in_type);
  std::vector<double> v(c.size(), -65.0), inj(c.size(), 0.0);
  inj[c.node_at(0, 0.5)] = 0.1;
  PassiveMembrane pas{1e-4, -65};
  for (int step = 1; step <= 400; ++step) {
    auto s = assemble_backward_euler(c, pas, 0.025, v, inj);
    v = test::hines_solve_reference(s.a, s.b, s.d, s.rhs, s.parent);
    if (step % 40 == 0) std::printf("%g %.15g %.15g\n", step * 0.025, v[c.node_at(0, 0.5)], v[c.node_at(last, 0.5)]);
  }
}
