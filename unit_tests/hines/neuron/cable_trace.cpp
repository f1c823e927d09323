// tridiag's half of the NEURON comparison (compare_with_neuron.py runs NEURON and this program
// with the same parameters): a cell from an SWC file, discretised by tridiag::hines::discretize,
// a current step into soma(0.5); prints the voltage at three recording sites after every step.
//
// Membrane, --soma:
//  - pas: passive everywhere, advanced by backward Euler or Crank-Nicolson (time_scheme.hpp:
//    assemble_backward_euler over system_dt_ms + one Hines solve + finish_step per step). The solve
//    is tridiag's batched solver, hines::solve (a batch of this one neuron, on Kokkos's default
//    execution space; the matrix is uploaded once, each step uploads only the right-hand side),
//    or with --solver reference the sequential test oracle of reference_hines.hpp.
//  - hh: Hodgkin-Huxley on every soma section, pas elsewhere: a hines::Population of this one
//    neuron (population.hpp), whose soma(0.5) comes from its recording and the other sites from
//    Population::voltages after every step.
//
// usage: tridiag_hines_cable_trace SWC --scheme backward_euler|crank_nicolson --soma pas|hh
//          --rule max_length --max-length UM | --rule d_lambda --d-lambda F --frequency HZ
//          --ra OHM_CM --cm UF_CM2 --g-pas S_CM2 --e-pas MV --v-init MV
//          --amp NA --delay MS --dur MS --dt MS --tstop MS
//          [--soma hh: --celsius C --gnabar S_CM2 --gkbar S_CM2 --gl S_CM2 --ena MV --ek MV --el MV]
//          [--solver batched|reference] [--geometry]
// Every physical parameter must be given (there are no defaults, so that a parameter the caller
// forgot fails here instead of being simulated at some default NEURON was not given); options
// that do not apply (--d-lambda with --rule max_length, --celsius with --soma pas) are errors.
// Exit status: 0, 1 (the cell could not be simulated), 2 (bad usage; every missing option named).
//
// Output (stdout): '#' lines naming the recording sites in NEURON's words
//   # soma soma[0] 0.5
//   # tip axon[201] 1 path_um 14136.25
//   # dendrite dend[41] 1 path_um 812.25
//   # segments 1234
// with --geometry then one line per segment and per section end (x = 1), every section:
//   # geometry dend[3] 0.5 AREA_UM2 RI_MOHM
// (NEURON's seg.area() and seg.ri(): membrane area, and the axial resistance to the parent node),
// then one line per time step, t (ms) and the voltages (mV) at the three sites, from t = 0.
//
// Recording sites, as a NEURON user would name them: soma = root section at x = 0.5; tip = the
// x = 1 end of the leaf section farthest from soma(0.5) by path length along the cable (the
// requirement's distal tip; on some cells an axon far beyond the step's reach); dendrite = the
// x = 1 end of the farthest leaf of SWC type 3 or 4 (dend, apic), or the tip if there is none.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/population.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <tridiag/core/version.hpp>
#include <tridiag/layouts/flat.hpp>

#include "../reference_hines.hpp"

namespace {

using namespace tridiag::hines;

struct Settings {
  std::string swc_path;
  bool batched = true;    ///< hines::solve; false: the sequential oracle
  bool geometry = false;  ///< print every segment's area and axial resistance
  bool hh_at_soma = false;
  DiscretizationOptions discretization;
  PassiveMembrane membrane;
  HodgkinHuxley hh;
  double v_init_mV = 0;
  CurrentClamp clamp;
  double dt_ms = 0, tstop_ms = 0;
  TimeScheme scheme = TimeScheme::backward_euler;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "tridiag_hines_cable_trace: %s\n", what.c_str());
  std::exit(2);
}

/// The command line's `--name value` pairs. Each option is taken once by name; what is required
/// but absent is collected, so that finish() names every missing option at once.
class CommandLine {
 public:
  CommandLine(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--", 0) != 0) {
        if (!swc_path.empty()) usage_error("two SWC files given: " + swc_path + " and " + arg);
        swc_path = arg;
      } else if (arg == "--geometry") {
        geometry = true;
      } else {
        if (i + 1 >= argc) usage_error(arg + " needs a value");
        if (!values_.emplace(arg, argv[++i]).second) usage_error(arg + " given twice");
      }
    }
    if (swc_path.empty()) usage_error("no SWC file given");
  }

  /// The value of a required option ("" and noted as missing when absent).
  std::string text(const std::string& name) {
    const auto found = values_.find(name);
    if (found == values_.end()) {
      missing_ += " " + name;
      return "";
    }
    std::string value = found->second;
    values_.erase(found);
    return value;
  }
  double number(const std::string& name) {
    const std::string value = text(name);
    if (value.empty()) return NAN;
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0') usage_error(name + ": not a number: " + value);
    return x;
  }
  /// One of `choices` (missing: choices[0], noted as missing).
  int choice(const std::string& name, const std::vector<std::string>& choices) {
    const std::string value = text(name);
    if (value.empty()) return 0;
    for (std::size_t k = 0; k < choices.size(); ++k)
      if (value == choices[k]) return static_cast<int>(k);
    std::string list;
    for (const std::string& c : choices) list += (list.empty() ? "" : " or ") + c;
    usage_error(name + " must be " + list + ", not " + value);
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }

  /// Fails naming every required option that was missing, then any that was given but not taken
  /// (unknown, or not applying to the rule or membrane chosen).
  void finish() const {
    if (!missing_.empty()) usage_error("missing" + missing_ + " (every physical parameter must be given)");
    if (!values_.empty())
      usage_error("unknown option, or one that does not apply to the --rule and --soma given: " +
                  values_.begin()->first);
  }

  std::string swc_path;
  bool geometry = false;

 private:
  std::map<std::string, std::string> values_;
  std::string missing_;
};

Settings parse_arguments(int argc, char** argv) {
  CommandLine line(argc, argv);
  Settings s;
  s.swc_path = line.swc_path;
  s.geometry = line.geometry;
  if (line.has("--solver")) s.batched = line.choice("--solver", {"batched", "reference"}) == 0;
  s.scheme = line.choice("--scheme", {"backward_euler", "crank_nicolson"}) == 0 ? TimeScheme::backward_euler
                                                                                 : TimeScheme::crank_nicolson;
  s.hh_at_soma = line.choice("--soma", {"pas", "hh"}) == 1;
  DiscretizationOptions& d = s.discretization;
  d.rule = line.choice("--rule", {"max_length", "d_lambda"}) == 0 ? DiscretizationOptions::Rule::max_length
                                                                   : DiscretizationOptions::Rule::d_lambda;
  if (d.rule == DiscretizationOptions::Rule::max_length) {
    d.max_length_um = line.number("--max-length");
  } else {
    d.d_lambda = line.number("--d-lambda");
    d.frequency_hz = line.number("--frequency");
  }
  d.Ra_ohm_cm = line.number("--ra");
  d.cm_uF_cm2 = line.number("--cm");
  s.membrane.g_S_cm2 = line.number("--g-pas");
  s.membrane.e_mV = line.number("--e-pas");
  if (s.hh_at_soma) {
    s.hh.celsius = line.number("--celsius");
    s.hh.gnabar_S_cm2 = line.number("--gnabar");
    s.hh.gkbar_S_cm2 = line.number("--gkbar");
    s.hh.gl_S_cm2 = line.number("--gl");
    s.hh.ena_mV = line.number("--ena");
    s.hh.ek_mV = line.number("--ek");
    s.hh.el_mV = line.number("--el");
  }
  s.v_init_mV = line.number("--v-init");
  s.clamp = {line.number("--amp"), line.number("--delay"), line.number("--dur")};
  s.dt_ms = line.number("--dt");
  s.tstop_ms = line.number("--tstop");
  line.finish();
  return s;
}

std::string neuron_name(const CableSection& section) {
  return neuron_section_name(section.type) + "[" + std::to_string(section.index_in_type) + "]";
}

/// Path length (um) from the root section's midpoint to the x = 0 end of every section. A child
/// at x on a non-root parent is reached through the parent's x = 0 end; on the root, from 0.5.
std::vector<double> path_to_section_start(const CompartmentalCell& cell) {
  std::vector<double> start(cell.sections.size(), 0.0);
  for (std::size_t k = 1; k < cell.sections.size(); ++k) {
    const int p = cell.sections[k].parent;
    const double x = cell.sections[k].parent_x;
    start[k] = p == 0 ? std::abs(x - 0.5) * cell.length_um[0]
                      : start[p] + x * cell.length_um[p];
  }
  return start;
}

/// A leaf section's x = 1 end, and its path length from soma(0.5).
struct Tip {
  int section = -1;
  double path_um = -1;
};

/// The farthest leaf section from soma(0.5), among those whose SWC type `accept` takes (none: -1).
template <class Accept>
Tip farthest_leaf(const CompartmentalCell& cell, Accept accept) {
  std::vector<bool> has_child(cell.sections.size(), false);
  for (const CableSection& section : cell.sections) {
    if (section.parent >= 0) has_child[section.parent] = true;
  }
  const std::vector<double> start = path_to_section_start(cell);
  Tip tip;
  for (std::size_t k = 1; k < cell.sections.size(); ++k) {
    const double end = start[k] + cell.length_um[k];
    if (!has_child[k] && accept(cell.sections[k].type) && end > tip.path_um) tip = {static_cast<int>(k), end};
  }
  return tip;
}

/// Every segment's and section end's area (um^2) and axial resistance to its parent node
/// (MOhm = 1/uS), as NEURON's seg.area() and seg.ri() give them; the root node has neither.
void print_geometry(const CompartmentalCell& cell) {
  for (std::size_t k = 0; k < cell.sections.size(); ++k) {
    const std::string name = neuron_name(cell.sections[k]);
    for (int node = cell.first_node[k]; node <= cell.first_node[k] + cell.nseg[k]; ++node)
      std::printf("# geometry %s %.17g %.17g %.17g\n", name.c_str(), cell.x_in_section[node], cell.area_um2[node],
                  1.0 / cell.axial_conductance_uS[node]);
  }
}

/// V^{n+1} from one assembled step: hines::solve on a batch of one neuron, the matrix uploaded
/// on the first call (it does not change between steps), the right-hand side on every call.
class BatchedStep {
 public:
  std::vector<double> operator()(const HinesSystem& system) {
    if (!problem_) {
      problem_ = std::make_unique<Problem>(make_problem<double, Layout, Memory>({system}));
      x_ = tridiag::BatchVector<double, Layout, Memory>("x", 1, problem_->matrix.rows());
      status_ = tridiag::StatusView<Memory>("status", 1);
    } else {
      set_rhs(*problem_, std::vector<std::vector<double>>{system.rhs});
    }
    solve(Kokkos::DefaultExecutionSpace(), problem_->matrix, problem_->rhs, x_, status_);
    tridiag::check(status_);
    return copy_solution(*problem_, x_)[0];
  }

 private:
  using Layout = tridiag::layouts::Flat;
  using Memory = Kokkos::DefaultExecutionSpace::memory_space;
  using Problem = HinesProblem<double, Layout, Memory>;
  std::unique_ptr<Problem> problem_;
  tridiag::BatchVector<double, Layout, Memory> x_;
  tridiag::StatusView<Memory> status_;
};

/// Voltage traces at the recording sites, one value per step from t = 0.
struct Traces {
  std::vector<double> soma, tip, dendrite;
};

/// Passive everywhere, one assembled system and one solve per step.
Traces run_passive(const Settings& s, const CompartmentalCell& cell, const std::vector<int>& nodes, long steps) {
  std::vector<double> v(cell.size(), s.v_init_mV);
  std::vector<double> injected(cell.size(), 0.0);
  BatchedStep batched_step;
  Traces traces;
  auto sample = [&] {
    traces.soma.push_back(v[nodes[0]]);
    traces.tip.push_back(v[nodes[1]]);
    traces.dendrite.push_back(v[nodes[2]]);
  };
  sample();
  for (long step = 0; step < steps; ++step) {
    // NEURON's fixed step evaluates an IClamp at the step's midpoint, t + dt/2.
    const double t_mid = (step + 0.5) * s.dt_ms;
    const bool on = t_mid >= s.clamp.delay_ms && t_mid < s.clamp.delay_ms + s.clamp.duration_ms;
    injected[nodes[0]] = on ? s.clamp.amplitude_nA : 0.0;
    const HinesSystem system =
        assemble_backward_euler(cell, s.membrane, system_dt_ms(s.scheme, s.dt_ms), v, injected);
    const std::vector<double> solution =
        s.batched ? batched_step(system)
                  : test::hines_solve_reference(system.a, system.b, system.d, system.rhs, system.parent);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = finish_step(s.scheme, solution[i], v[i]);
    sample();
  }
  return traces;
}

/// Hodgkin-Huxley on the soma sections: a Population of one neuron.
Traces run_population(const Settings& s, const CompartmentalCell& cell, const std::vector<int>& nodes, long steps) {
  PopulationOptions options;
  options.membrane = s.membrane;
  options.hh_at_soma = true;
  options.hh = s.hh;
  options.dt_ms = s.dt_ms;
  options.scheme = s.scheme;
  options.v_init_mV = s.v_init_mV;
  Population<> population(Kokkos::DefaultExecutionSpace(), {cell}, std::vector<int>{0}, {s.clamp}, options);
  population.record({0});
  Traces traces;
  auto sample = [&] {
    const std::vector<double> v = population.voltages(0);
    traces.tip.push_back(v[nodes[1]]);
    traces.dendrite.push_back(v[nodes[2]]);
  };
  sample();
  for (long step = 0; step < steps; ++step) {
    population.advance(1);
    sample();
  }
  traces.soma = population.recording().soma_mV[0];
  if (traces.soma.size() != traces.tip.size())
    throw std::runtime_error("the population recorded " + std::to_string(traces.soma.size()) + " soma samples for " +
                             std::to_string(traces.tip.size()) + " steps");
  return traces;
}

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse_arguments(argc, argv);
  if (const std::string missing = tridiag::missing_device_reason(); !missing.empty()) {
    std::fprintf(stderr, "%s\n", missing.c_str());
    return 77;  // compare_with_neuron.py skips
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const CompartmentalCell cell = discretize(load_swc(s.swc_path), s.discretization);
    const Tip tip = farthest_leaf(cell, [](int) { return true; });
    Tip dendrite = farthest_leaf(cell, [](int type) { return type == 3 || type == 4; });
    if (dendrite.section < 0) dendrite = tip;
    if (tip.section < 0) throw std::runtime_error(s.swc_path + ": the cell has one section, no tip to record");
    std::printf("# soma %s 0.5\n", neuron_name(cell.sections[0]).c_str());
    std::printf("# tip %s 1 path_um %.6f\n", neuron_name(cell.sections[tip.section]).c_str(), tip.path_um);
    std::printf("# dendrite %s 1 path_um %.6f\n", neuron_name(cell.sections[dendrite.section]).c_str(),
                dendrite.path_um);
    std::printf("# segments %ld\n", cell.compartments());
    if (s.geometry) print_geometry(cell);

    const std::vector<int> nodes = {cell.node_at(0, 0.5), cell.node_at(tip.section, 1.0),
                                    cell.node_at(dendrite.section, 1.0)};
    const long steps = std::lround(s.tstop_ms / s.dt_ms);
    const Traces traces = s.hh_at_soma ? run_population(s, cell, nodes, steps) : run_passive(s, cell, nodes, steps);
    for (long step = 0; step <= steps; ++step)
      std::printf("%.6f %.15g %.15g %.15g\n", step * s.dt_ms, traces.soma[step], traces.tip[step],
                  traces.dendrite[step]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tridiag_hines_cable_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
