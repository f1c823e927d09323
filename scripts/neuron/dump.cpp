#include <tridiag/algorithms/hines/discretization.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
using namespace tridiag::hines;
int main(int argc, char** argv) {
  DiscretizationOptions o;
  if (argc > 2 && !std::strcmp(argv[2], "dlambda")) o.rule = DiscretizationOptions::Rule::d_lambda;
  if (argc > 3) o.max_length_um = std::atof(argv[3]);
  auto m = load_swc(argv[1]);
  auto secs = make_cable_sections(m);
  if (getenv("FLOATPTS")) for (auto& s : secs) for (auto& p : s.points) {
    auto r = [](double v) { char b[64]; std::snprintf(b, 64, "%.8g", v); return (double)(float)std::atof(b); };
    p.x = r(p.x); p.y = r(p.y); p.z = r(p.z); p.diameter = r(p.diameter); }
  auto c = discretize(secs, o);
  auto nm = [&](int k) { return neuron_section_name(c.sections[k].type) + "[" + std::to_string(c.sections[k].index_in_type) + "]"; };
  for (int k = 0; k < (int)c.sections.size(); ++k) {
    const auto& s = c.sections[k];
    std::printf("{\"name\":\"%s\",\"parent\":\"%s\",\"px\":%.17g,\"nseg\":%d,\"L\":%.17g,\"n3d\":%zu,\"area\":[", nm(k).c_str(),
                s.parent < 0 ? "" : nm(s.parent).c_str(), s.parent < 0 ? -1.0 : s.parent_x, c.nseg[k], c.length_um[k], s.points.size());
    for (int j = 0; j < c.nseg[k]; ++j) std::printf("%s%.17g", j ? "," : "", c.area_um2[c.first_node[k] + j]);
    std::printf("],\"ri\":[");
    for (int j = 0; j <= c.nseg[k]; ++j) std::printf("%s%.17g", j ? "," : "", 1.0 / c.axial_conductance_uS[c.first_node[k] + j]);
    std::printf("]}\n");
  }
}
