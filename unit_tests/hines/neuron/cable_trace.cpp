// tridiag's half of the NEURON comparison (compare_with_neuron.py runs NEURON and this program
// with the same parameters): a passive cell from an SWC file, discretised by
// tridiag::hines::discretize, advanced by backward Euler or Crank-Nicolson (time_scheme.hpp:
// assemble_backward_euler over system_dt_ms + one Hines solve + finish_step per step), a current
// step into the soma. Prints the voltage at the soma and at the distal
// tip after every step.
//
// The solve is tridiag's batched solver, hines::solve (a batch of this one neuron, on Kokkos's
// default execution space; the matrix is uploaded once, each step uploads only the right-hand
// side), or with --solver reference the sequential test oracle of reference_hines.hpp.
//
// usage: tridiag_hines_cable_trace SWC [--solver batched|reference]
//          [--rule max_length|d_lambda] [--max-length UM]
//          [--d-lambda F] [--frequency HZ] [--ra OHM_CM] [--cm UF_CM2] [--g-pas S_CM2]
//          [--e-pas MV] [--v-init MV] [--amp NA] [--delay MS] [--dur MS] [--dt MS] [--tstop MS]
//          [--scheme backward_euler|crank_nicolson]
//
// Output (stdout): '#' lines naming the recorded sections in NEURON's words
//   # soma soma[0] 0.5
//   # tip dend[41] 1 path_um 812.25
//   # segments 1234
// then one line per time step, t (ms) and the two voltages (mV), starting at t = 0.
//
// Recording points, as a NEURON user would name them: soma = root section at x = 0.5; tip = the
// x = 1 end of the leaf section farthest from soma(0.5) by path length along the cable.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <tridiag/layouts/flat.hpp>

#include "../reference_hines.hpp"

namespace {

using namespace tridiag::hines;

struct Settings {
  std::string swc_path;
  bool batched = true;  ///< hines::solve; false: the sequential oracle
  DiscretizationOptions discretization;
  PassiveMembrane membrane;
  double v_init_mV = -65;
  double amp_nA = 0.1, delay_ms = 1, dur_ms = 1e9;
  double dt_ms = 0.025, tstop_ms = 10;
  TimeScheme scheme = TimeScheme::backward_euler;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "tridiag_hines_cable_trace: %s\n", what.c_str());
  std::exit(2);
}

Settings parse_arguments(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      s.swc_path = arg;
      continue;
    }
    if (i + 1 >= argc) usage_error(arg + " needs a value");
    const std::string value = argv[++i];
    auto number = [&] {
      char* end = nullptr;
      const double x = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0') usage_error(arg + ": not a number: " + value);
      return x;
    };
    using Rule = DiscretizationOptions::Rule;
    if (arg == "--solver") {
      if (value == "batched") s.batched = true;
      else if (value == "reference") s.batched = false;
      else usage_error("--solver must be batched or reference, not " + value);
    } else if (arg == "--scheme") {
      if (value == "backward_euler") s.scheme = TimeScheme::backward_euler;
      else if (value == "crank_nicolson") s.scheme = TimeScheme::crank_nicolson;
      else usage_error("--scheme must be backward_euler or crank_nicolson, not " + value);
    } else if (arg == "--rule") {
      if (value == "max_length") s.discretization.rule = Rule::max_length;
      else if (value == "d_lambda") s.discretization.rule = Rule::d_lambda;
      else usage_error("--rule must be max_length or d_lambda, not " + value);
    } else if (arg == "--max-length") s.discretization.max_length_um = number();
    else if (arg == "--d-lambda") s.discretization.d_lambda = number();
    else if (arg == "--frequency") s.discretization.frequency_hz = number();
    else if (arg == "--ra") s.discretization.Ra_ohm_cm = number();
    else if (arg == "--cm") s.discretization.cm_uF_cm2 = number();
    else if (arg == "--g-pas") s.membrane.g_S_cm2 = number();
    else if (arg == "--e-pas") s.membrane.e_mV = number();
    else if (arg == "--v-init") s.v_init_mV = number();
    else if (arg == "--amp") s.amp_nA = number();
    else if (arg == "--delay") s.delay_ms = number();
    else if (arg == "--dur") s.dur_ms = number();
    else if (arg == "--dt") s.dt_ms = number();
    else if (arg == "--tstop") s.tstop_ms = number();
    else usage_error("unknown option " + arg);
  }
  if (s.swc_path.empty()) usage_error("no SWC file given");
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

}  // namespace

int main(int argc, char** argv) {
  const Settings s = parse_arguments(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const CompartmentalCell cell = discretize(load_swc(s.swc_path), s.discretization);

    std::vector<bool> has_child(cell.sections.size(), false);
    for (const CableSection& section : cell.sections) {
      if (section.parent >= 0) has_child[section.parent] = true;
    }
    const std::vector<double> start = path_to_section_start(cell);
    int tip = 0;
    double tip_path_um = -1;
    for (std::size_t k = 1; k < cell.sections.size(); ++k) {
      const double end = start[k] + cell.length_um[k];
      if (!has_child[k] && end > tip_path_um) {
        tip = static_cast<int>(k);
        tip_path_um = end;
      }
    }
    const int soma_node = cell.node_at(0, 0.5);
    const int tip_node = cell.node_at(tip, 1.0);
    std::printf("# soma %s 0.5\n", neuron_name(cell.sections[0]).c_str());
    std::printf("# tip %s 1 path_um %.6f\n", neuron_name(cell.sections[tip]).c_str(), tip_path_um);
    std::printf("# segments %ld\n", cell.compartments());

    std::vector<double> v(cell.size(), s.v_init_mV);
    std::vector<double> injected(cell.size(), 0.0);
    BatchedStep batched_step;
    const long steps = std::lround(s.tstop_ms / s.dt_ms);
    std::printf("%.6f %.15g %.15g\n", 0.0, v[soma_node], v[tip_node]);
    for (long step = 0; step < steps; ++step) {
      // NEURON's fixed step evaluates an IClamp at the step's midpoint, t + dt/2.
      const double t_mid = (step + 0.5) * s.dt_ms;
      const bool on = t_mid >= s.delay_ms && t_mid < s.delay_ms + s.dur_ms;
      injected[soma_node] = on ? s.amp_nA : 0.0;
      const HinesSystem system =
          assemble_backward_euler(cell, s.membrane, system_dt_ms(s.scheme, s.dt_ms), v, injected);
      const std::vector<double> solution =
          s.batched ? batched_step(system)
                    : test::hines_solve_reference(system.a, system.b, system.d, system.rhs, system.parent);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = finish_step(s.scheme, solution[i], v[i]);
      std::printf("%.6f %.15g %.15g\n", (step + 1) * s.dt_ms, v[soma_node], v[tip_node]);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tridiag_hines_cable_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
