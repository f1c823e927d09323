#pragma once
// A population of N neurons advanced with a fixed step by backward Euler or Crank-Nicolson
// (PopulationOptions::scheme, time_scheme.hpp), on the batched Hines solver: passive membrane
// everywhere (NEURON's `pas`), optionally Hodgkin-Huxley on the soma sections instead (hodgkin_huxley.hpp:
// gates frozen over a step, their current taken implicitly, then one exponential-Euler gate step
// over dt, as NEURON's fixed step does; under Crank-Nicolson the cable is second order, the
// gates stay first order), and a current clamp at soma(0.5) per neuron (on while delay <= t + dt/2 < delay + duration, NEURON's IClamp
// timing). Equations and units: backward_euler.hpp.
//
// Everything that does not change is built once: per morphology the tables of
// cable_step_coefficients (C/dt, G e_pas, the soma rows), per neuron a and d (a = b: the cable
// matrix is symmetric, so one vector serves both). Each step is, per group on the device,
// StepKernel (rhs from V^n, soma diagonal: a thread per 32 rows of a neuron, and per neuron for
// the soma's gates and currents and the clamp, population_step.hpp) and hines::solve (V^{n+1} in place; under
// Crank-Nicolson V^{n+1/2} in a second vector, and a third kernel finishes the step; the solver is
// algo::Automatic without the pad rows, solver()),
// with no host round trip; recorded soma voltages go to a small device buffer that is copied back
// when full (every `buffer_samples` samples) and when the recording is read.
//
// Storage (Packing):
//  - padded: one batch, every neuron padded to the largest morphology, sorted by size then
//    morphology so that a warp walks one tree (Grouping::by_morphology's order). A GPU is bound
//    by the latency of the sweeps' dependent loads, so one launch over all neurons wins (the pad
//    rows are skipped).
//  - per_morphology: one batch per morphology, no padding; launches run one after another. Host
//    cores are bound by memory traffic, and the shared cells' sizes (149 .. 4035 rows) would make
//    a padded batch about 3x the real rows.
//  automatic picks padded where ExecSpace cannot read host memory (a GPU), per_morphology else.
// Layout (default_population_layout): Interleaved on a GPU (a thread per neuron, neighbours read
// neighbouring addresses: coalesced); Flat on host cores, where a thread walks one neuron's rows
// through contiguous memory and every cache line it loads is used (interleaved, a line holds 8
// neurons' row i and is evicted long before the thread reaches the next neuron).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/cable_step_coefficients.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/hines_batch.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/hodgkin_huxley.hpp>
#include <tridiag/algorithms/hines/population_step.hpp>
#include <tridiag/algorithms/hines/time_scheme.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/kokkos_compat.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/layouts/flat.hpp>
#include <tridiag/layouts/interleaved.hpp>
#include <vector>

namespace tridiag::hines {

/// A current step into soma(0.5) (the root section's middle): amplitude_nA during every step
/// whose midpoint t + dt/2 satisfies delay_ms <= t + dt/2 < delay_ms + duration_ms (population_step.hpp),
/// NEURON's IClamp rule. So a pulse shorter than dt can fall between two midpoints and inject nothing,
/// and a pulse is on for a whole number of steps.
struct CurrentClamp {
  double amplitude_nA = 0;
  double delay_ms = 0;
  double duration_ms = 0;
};

/// How a population is stored (see the file comment).
enum class Packing { automatic, padded, per_morphology };

/// Population-wide parameters.
struct PopulationOptions {
  /// Passive membrane (every compartment; all but the soma's with hh_at_soma). e_pas = -65 mV,
  /// HH's resting potential, so that an HH soma rests there too.
  PassiveMembrane membrane{0.0001, -65};
  /// Hodgkin-Huxley instead of `pas` on the segments of every soma section (SWC type 1, NEURON's
  /// `forsec somatic insert hh`); the root section must be a soma.
  bool hh_at_soma = false;
  HodgkinHuxley hh;         ///< its parameters
  double dt_ms = 0.025;     ///< fixed time step, ms
  /// backward Euler (NEURON's secondorder = 0) or Crank-Nicolson (secondorder = 1), time_scheme.hpp
  TimeScheme scheme = TimeScheme::backward_euler;
  double v_init_mV = -65;   ///< initial voltage on every node, mV
  Packing packing = Packing::automatic;
};

/// The layout Population stores its batches in on ExecSpace (see the file comment).
template <class ExecSpace>
struct default_population_layout {
  using type = std::conditional_t<Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible,
                                  layouts::Flat, layouts::Interleaved>;
};

/// Recorded soma voltages: soma_mV[c][k] is neuron neurons[c] at time t_ms[k].
struct Recording {
  std::vector<index_type> neurons;
  std::vector<double> t_ms;
  std::vector<std::vector<double>> soma_mV;
};

/// neurons neurons spread over `morphologies` morphologies in turn: neuron k gets k % morphologies.
/// Throws tridiag::invalid_argument for neurons < 0 or morphologies < 1.
inline std::vector<int> round_robin(index_type neurons, int morphologies) {
  require(neurons >= 0, "hines::round_robin", "neurons = ", neurons, " must be >= 0");
  require(morphologies >= 1, "hines::round_robin", "morphologies = ", morphologies, " must be >= 1");
  std::vector<int> ids(static_cast<std::size_t>(neurons));
  for (index_type k = 0; k < neurons; ++k) ids[k] = static_cast<int>(k % morphologies);
  return ids;
}

template <class ExecSpace = Kokkos::DefaultExecutionSpace,
          class Layout = typename default_population_layout<ExecSpace>::type>
class Population {
 public:
  using execution_space = ExecSpace;
  using memory_space = typename ExecSpace::memory_space;
  using layout_type = Layout;
  using vector_type = BatchVector<double, Layout, memory_space>;

  /// Neuron k has morphology cells[morphology_of[k]] and clamp clamps[k] (clamps may also hold
  /// one clamp for every neuron, or none). Builds everything on the device (fences once).
  /// Throws tridiag::invalid_argument, naming the value, for: no cells; an id out of range;
  /// clamps of another size than 0, 1 or N; a non-finite clamp or a negative delay or duration;
  /// dt <= 0; a negative conductance (passive or HH); a non-finite voltage or temperature.
  Population(const ExecSpace& exec, const std::vector<CompartmentalCell>& cells, const std::vector<int>& morphology_of,
             const std::vector<CurrentClamp>& clamps, const PopulationOptions& options = {})
      : exec_(exec), options_(options), morphology_of_(morphology_of) {
    validate(cells, clamps);
    build(cells, clamps);
  }

  /// `neurons` neurons drawn from `cells` in turn (round_robin). Throws as above, and for
  /// neurons < 0.
  Population(const ExecSpace& exec, const std::vector<CompartmentalCell>& cells, index_type neurons,
             const std::vector<CurrentClamp>& clamps, const PopulationOptions& options = {})
      : Population(exec, cells, round_robin(neurons, std::max<int>(1, static_cast<int>(cells.size()))), clamps,
                   options) {}

  index_type neurons() const { return static_cast<index_type>(morphology_of_.size()); }
  long steps_done() const { return steps_; }
  double time_ms() const { return static_cast<double>(steps_) * options_.dt_ms; }
  const PopulationOptions& options() const { return options_; }
  /// Batches the population is stored in (1 when padded).
  int groups() const { return static_cast<int>(groups_.size()); }

  /// Records the soma(0.5) voltage of `neurons` now and then after every `every_steps` steps,
  /// buffering `buffer_samples` samples on the device between copies to the host. Replaces any
  /// earlier recording. Throws tridiag::invalid_argument for an unknown neuron, every_steps < 1
  /// or buffer_samples < 1.
  void record(const std::vector<index_type>& neurons, int every_steps = 1, int buffer_samples = 256) {
    constexpr const char* where = "hines::Population::record";
    require(every_steps >= 1, where, "every_steps = ", every_steps, " must be >= 1");
    require(buffer_samples >= 1, where, "buffer_samples = ", buffer_samples, " must be >= 1");
    for (index_type n : neurons)
      require(n >= 0 && n < this->neurons(), where, "neuron ", n, " does not exist (population of ", this->neurons(),
              ")");
    recording_ = Recording{neurons, {}, std::vector<std::vector<double>>(neurons.size())};
    every_ = every_steps;
    recorded_from_ = steps_;
    pending_times_.clear();
    buffer_ = decltype(buffer_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::recording"),
                                buffer_samples, neurons.size());
    host_buffer_ = Kokkos::create_mirror_view(buffer_);
    std::vector<std::vector<index_type>> slots(groups_.size());
    std::vector<std::vector<int>> columns(groups_.size());
    for (std::size_t c = 0; c < neurons.size(); ++c) {
      const Place& place = place_[neurons[c]];
      slots[place.group].push_back(place.slot);
      columns[place.group].push_back(static_cast<int>(c));
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      groups_[g].record_slot = upload<index_type>("tridiag::hines::record_slot", slots[g]);
      groups_[g].record_column = upload<int>("tridiag::hines::record_column", columns[g]);
    }
    take_sample();
  }

  /// Advances every neuron by `steps` steps of dt. Asynchronous on the execution space instance,
  /// except that a full recording buffer is copied to the host (which fences and checks the
  /// solver status: tridiag::numerical_error if any neuron's system failed).
  void advance(long steps) {
    require(steps >= 0, "hines::Population::advance", "steps = ", steps, " must be >= 0");
    for (long k = 0; k < steps; ++k) {
      const double t_mid = (static_cast<double>(steps_) + 0.5) * options_.dt_ms;
      for (Group& g : groups_) {
        // Backward Euler: rhs and solution in place in v. Crank-Nicolson: in g.half, then
        // V^{n+1} = 2 V^{n+1/2} - V^n (time_scheme.hpp).
        const bool crank_nicolson = options_.scheme == TimeScheme::crank_nicolson;
        const vector_type& rhs = crank_nicolson ? g.half : g.v;
        using Step = impl::StepKernel<Layout, memory_space>;
        const Step step{g.constants,    g.ids, g.sizes, g.d,     g.v,         rhs,           g.clamp,
                        g.gates,        options_.hh,    options_.dt_ms,        t_mid,         q10_,
                        options_.hh_at_soma, steps_ > 0};
        if (step.has_gates())
          Kokkos::parallel_for("tridiag::hines::population_step_gates", policy<typename Step::Gates>(g.systems()), step);
        Kokkos::parallel_for("tridiag::hines::population_step_rows", policy<typename Step::Rows>(g.row_threads()), step);
        if (step.has_sources())
          Kokkos::parallel_for("tridiag::hines::population_step_sources", policy<typename Step::Sources>(g.systems()),
                               step);
        solve(exec_, g.matrix, rhs, rhs, g.status, g.workspace, solver());
        if (crank_nicolson)
          Kokkos::parallel_for("tridiag::hines::population_finish_step", policy(g.row_threads()),
                               impl::FinishStepKernel<Layout, memory_space>{g.ids, g.sizes, g.half, g.v});
      }
      ++steps_;
      if (every_ > 0 && (steps_ - recorded_from_) % every_ == 0) take_sample();
    }
  }

  /// Adds a sample of the recorded neurons at the current time, unless that time has one already
  /// (e.g. the end of a run that `every_steps` does not divide). Does nothing without record().
  void sample() {
    if (every_ > 0 && last_sample_step_ != steps_) take_sample();
  }

  /// Waits for the work queued so far.
  void fence() const { exec_.fence(); }

  /// The recording so far (copies the device buffer back: fences, checks the solver status).
  const Recording& recording() {
    flush();
    return recording_;
  }

  /// V (mV) on every node of neuron `neuron`, Hines order (fences; checks the solver status).
  std::vector<double> voltages(index_type neuron) const {
    require(neuron >= 0 && neuron < neurons(), "hines::Population::voltages", "neuron ", neuron,
            " does not exist (population of ", neurons(), ")");
    const Place& place = place_[neuron];
    const Group& g = groups_[place.group];
    const int n = sizes_[morphology_of_[neuron]];
    Kokkos::View<double*, memory_space> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::v"), n);
    Kokkos::parallel_for("tridiag::hines::population_voltages", policy(n),
                         impl::CopyNeuronKernel<Layout, memory_space>{g.v, place.slot, out});
    check_status();
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    return std::vector<double>(host.data(), host.data() + n);
  }

 private:
  struct Group {
    HinesBatch<double, Layout, memory_space> matrix;
    vector_type d, v;  // d: the batch's diagonal (soma rows rewritten per step); v: V (backward Euler: rhs in place)
    vector_type half;  // Crank-Nicolson: the step's rhs, then V^{n+1/2} (empty under backward Euler)
    Workspace<double, Layout, memory_space> workspace;
    StatusView<memory_space> status;
    impl::MorphologyConstants<memory_space> constants;
    Kokkos::View<int*, memory_space> ids, sizes;  // ids empty for one morphology
    impl::ClampTable<memory_space> clamp;
    impl::GateTable<memory_space> gates;
    Kokkos::View<index_type*, memory_space> record_slot;
    Kokkos::View<int*, memory_space> record_column;
    std::vector<index_type> neuron_at_slot;
    index_type systems() const { return matrix.systems(); }
    index_type row_threads() const { return impl::step_row_threads(matrix.systems(), matrix.rows()); }
  };
  struct Place {
    int group;
    index_type slot;
  };

  /// The solver of every step: algo::Automatic, pad rows skipped (nothing reads them). On a GPU
  /// that is SubtreeParallel for batches the neurons alone cannot fill (with the long trunk paths
  /// of cells with few neurons split: such neurons' voltages within rounding of PerNeuron's) and
  /// WarpStaged for small cells, where one thread per neuron (the default of hines::solve, used
  /// here until 2026-11-26) walked every neuron's chain through the largest cell's rows, pad rows
  /// included.
  static algo::Automatic solver() {
    algo::Automatic automatic;
    automatic.solve_padding = false;
    return automatic;
  }

  /// n threads on exec_ (Tag: the functor's launch, StepKernel's Gates, Rows, Sources).
  template <class... Tag>
  auto policy(index_type n) const {
    return compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>, Tag...>(exec_, 0, n));
  }

  template <class T>
  Kokkos::View<T*, memory_space> upload(const char* label, const std::vector<T>& values) const {
    Kokkos::View<T*, memory_space> view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
    auto host = Kokkos::create_mirror_view(view);
    std::copy(values.begin(), values.end(), host.data());
    Kokkos::deep_copy(view, host);
    return view;
  }

  void validate(const std::vector<CompartmentalCell>& cells, const std::vector<CurrentClamp>& clamps) const {
    constexpr const char* where = "hines::Population";
    const PopulationOptions& o = options_;
    require(!cells.empty(), where, "the morphology list is empty");
    for (std::size_t m = 0; m < cells.size(); ++m) {
      check_compartmental_cell(cells[m], std::string(where) + ": morphology " + std::to_string(m));
      // HH goes on the soma sections, and the clamp at soma(0.5): the root must be a soma (SWC type 1).
      require(!o.hh_at_soma || cells[m].sections[0].type == 1, where, "morphology ", m,
              ": hh_at_soma needs a soma as the root section, this cell's root section has SWC type ",
              cells[m].sections[0].type);
    }
    for (std::size_t k = 0; k < morphology_of_.size(); ++k)
      require(morphology_of_[k] >= 0 && morphology_of_[k] < static_cast<int>(cells.size()), where, "neuron ", k,
              " has morphology ", morphology_of_[k], ", there are ", cells.size());
    require(clamps.size() <= 1 || clamps.size() == morphology_of_.size(), where, clamps.size(), " clamps for ",
            morphology_of_.size(), " neurons (give 0, 1 or one per neuron)");
    for (std::size_t k = 0; k < clamps.size(); ++k) {
      const CurrentClamp& c = clamps[k];
      require(std::isfinite(c.amplitude_nA) && std::isfinite(c.delay_ms) && std::isfinite(c.duration_ms) &&
                  c.delay_ms >= 0 && c.duration_ms >= 0,
              where, "clamp ", k, ": amplitude ", c.amplitude_nA, " nA, delay ", c.delay_ms, " ms, duration ",
              c.duration_ms, " ms (finite, delay and duration >= 0)");
    }
    require(o.dt_ms > 0 && std::isfinite(o.dt_ms), where, "dt_ms = ", o.dt_ms, " must be positive");
    // Each step's right-hand side holds C/dt x V, with dt the systems' step (dt, or dt/2 under
    // Crank-Nicolson): a dt so small that this overflows for |V| up to 10^4 mV fails every solve.
    constexpr double largest_voltage_mV = 1e4;
    const double system_dt = system_dt_ms(o.scheme, o.dt_ms);
    for (std::size_t m = 0; m < cells.size(); ++m)
      for (int i = 0; i < cells[m].size(); ++i) {
        const double c_over_dt = capacitance_over_dt_uS(cells[m].cm_uF_cm2, cells[m].area_um2[i], system_dt);
        require(system_dt > 0 && std::isfinite(c_over_dt * largest_voltage_mV), where, "dt_ms = ", o.dt_ms,
                " is too small: the ", name(o.scheme), " systems' step of ", system_dt, " ms gives morphology ", m,
                ", node ", i, " a C/dt of ", c_over_dt, " uS, which times 10^4 mV overflows");
      }
    require(o.membrane.g_S_cm2 >= 0 && std::isfinite(o.membrane.g_S_cm2), where, "g_pas = ", o.membrane.g_S_cm2,
            " S/cm2 must be >= 0");
    require(o.hh.gnabar_S_cm2 >= 0 && o.hh.gkbar_S_cm2 >= 0 && o.hh.gl_S_cm2 >= 0 && std::isfinite(o.hh.gnabar_S_cm2) &&
                std::isfinite(o.hh.gkbar_S_cm2) && std::isfinite(o.hh.gl_S_cm2),
            where, "HH conductances gnabar ", o.hh.gnabar_S_cm2, ", gkbar ", o.hh.gkbar_S_cm2, ", gl ", o.hh.gl_S_cm2,
            " S/cm2 must be >= 0");
    require(std::isfinite(o.membrane.e_mV) && std::isfinite(o.v_init_mV) && std::isfinite(o.hh.ena_mV) &&
                std::isfinite(o.hh.ek_mV) && std::isfinite(o.hh.el_mV) && std::isfinite(o.hh.celsius),
            where, "e_pas ", o.membrane.e_mV, ", v_init ", o.v_init_mV, ", ENa ", o.hh.ena_mV, ", EK ", o.hh.ek_mV,
            ", EL ", o.hh.el_mV, " mV and celsius ", o.hh.celsius, " must be finite");
    require(o.hh.celsius > -273.15 && std::isfinite(hodgkin_huxley_q10(o.hh)), where, "celsius = ", o.hh.celsius,
            " must be above absolute zero (-273.15) and give a finite q10 = 3^((celsius - 6.3)/10)");
  }

  void build(const std::vector<CompartmentalCell>& cells, const std::vector<CurrentClamp>& clamps) {
    q10_ = hodgkin_huxley_q10(options_.hh);
    std::vector<CableStepCoefficients> coefficients;
    for (const CompartmentalCell& cell : cells) {
      coefficients.push_back(
          cable_step_coefficients(cell, options_.membrane, system_dt_ms(options_.scheme, options_.dt_ms),
                                  options_.hh_at_soma));
      sizes_.push_back(cell.size());
    }
    // Groups: lists of morphologies, and their neurons in storage order.
    Packing packing = options_.packing;
    if (packing == Packing::automatic)
      packing = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible ? Packing::per_morphology
                                                                                     : Packing::padded;
    std::vector<std::vector<int>> group_cells;
    if (packing == Packing::padded) {
      std::vector<int> all(cells.size());
      std::iota(all.begin(), all.end(), 0);
      group_cells.push_back(all);
    } else {
      for (int m = 0; m < static_cast<int>(cells.size()); ++m) group_cells.push_back({m});
    }
    place_.resize(morphology_of_.size());
    for (const std::vector<int>& members : group_cells) {
      std::vector<index_type> slots;  // neuron at each slot
      for (index_type k = 0; k < neurons(); ++k)
        if (std::find(members.begin(), members.end(), morphology_of_[k]) != members.end()) slots.push_back(k);
      if (slots.empty()) continue;  // (a padded batch of no neurons would have no morphology ids)
      // Largest first, then by morphology (a warp walks one tree); stable: neuron order within.
      std::stable_sort(slots.begin(), slots.end(), [&](index_type u, index_type v) {
        const int mu = morphology_of_[u], mv = morphology_of_[v];
        if (sizes_[mu] != sizes_[mv]) return sizes_[mu] > sizes_[mv];
        return mu < mv;
      });
      for (std::size_t s = 0; s < slots.size(); ++s)
        place_[slots[s]] = Place{static_cast<int>(groups_.size()), static_cast<index_type>(s)};
      groups_.push_back(make_group(members, slots, coefficients, clamps));
    }
    exec_.fence();
  }

  Group make_group(const std::vector<int>& members, const std::vector<index_type>& slots,
                   const std::vector<CableStepCoefficients>& coefficients, const std::vector<CurrentClamp>& clamps) {
    const index_type systems = static_cast<index_type>(slots.size());
    const int count = static_cast<int>(members.size());
    std::vector<int> local(coefficients.size(), -1);  // morphology -> id in the group
    for (int j = 0; j < count; ++j) local[members[j]] = j;
    index_type rows = 0;
    int soma_max = 0;
    std::vector<std::vector<int>> parents;
    for (int m : members) {
      rows = std::max<index_type>(rows, coefficients[m].size());
      soma_max = std::max<int>(soma_max, static_cast<int>(coefficients[m].soma_nodes.size()));
      parents.push_back(coefficients[m].parent);
    }
    Group g;
    g.neuron_at_slot = slots;
    auto morphologies = make_morphologies<memory_space>(parents, rows);

    // Per-morphology tables (small): built on the host, uploaded once.
    using Table = typename impl::MorphologyConstants<memory_space>::Table;
    auto& k = g.constants;
    k.offdiag_uS = Table("tridiag::hines::offdiag", count, rows);
    k.diag_uS = Table("tridiag::hines::diag", count, rows);
    k.c_over_dt_uS = Table("tridiag::hines::c_over_dt", count, rows);
    k.rest_current_nA = Table("tridiag::hines::rest_current", count, rows);
    k.clamp_node = decltype(k.clamp_node)("tridiag::hines::clamp_node", count);
    k.soma_count = decltype(k.soma_count)("tridiag::hines::soma_count", count);
    k.soma_node = decltype(k.soma_node)("tridiag::hines::soma_node", count, soma_max);
    k.soma_area_um2 = Table("tridiag::hines::soma_area", count, soma_max);
    k.soma_diag_uS = Table("tridiag::hines::soma_diag", count, soma_max);
    auto off = Kokkos::create_mirror_view(k.offdiag_uS), diag = Kokkos::create_mirror_view(k.diag_uS),
         cdt = Kokkos::create_mirror_view(k.c_over_dt_uS), rest = Kokkos::create_mirror_view(k.rest_current_nA),
         area = Kokkos::create_mirror_view(k.soma_area_um2), sdiag = Kokkos::create_mirror_view(k.soma_diag_uS);
    auto clamp_node = Kokkos::create_mirror_view(k.clamp_node), soma_count = Kokkos::create_mirror_view(k.soma_count);
    auto soma_node = Kokkos::create_mirror_view(k.soma_node);
    for (int j = 0; j < count; ++j) {
      const CableStepCoefficients& c = coefficients[members[j]];
      for (index_type i = 0; i < rows; ++i) {
        const bool real = i < c.size();
        off(j, i) = real ? c.offdiag_uS[i] : 0.0;  // pad rows: identity rows
        diag(j, i) = real ? c.diag_uS[i] : 1.0;
        cdt(j, i) = real ? c.c_over_dt_uS[i] : 0.0;
        rest(j, i) = real ? c.rest_current_nA[i] : 0.0;
      }
      clamp_node(j) = c.clamp_node;
      soma_count(j) = static_cast<int>(c.soma_nodes.size());
      for (int s = 0; s < soma_count(j); ++s) {
        soma_node(j, s) = c.soma_nodes[s];
        area(j, s) = c.soma_area_um2[s];
        sdiag(j, s) = c.diag_uS[c.soma_nodes[s]];
      }
    }
    Kokkos::deep_copy(k.offdiag_uS, off);
    Kokkos::deep_copy(k.diag_uS, diag);
    Kokkos::deep_copy(k.c_over_dt_uS, cdt);
    Kokkos::deep_copy(k.rest_current_nA, rest);
    Kokkos::deep_copy(k.clamp_node, clamp_node);
    Kokkos::deep_copy(k.soma_count, soma_count);
    Kokkos::deep_copy(k.soma_node, soma_node);
    Kokkos::deep_copy(k.soma_area_um2, area);
    Kokkos::deep_copy(k.soma_diag_uS, sdiag);

    // Per-neuron data.
    std::vector<int> ids(static_cast<std::size_t>(systems));
    for (index_type s = 0; s < systems; ++s) ids[s] = local[morphology_of_[slots[s]]];
    if (count > 1) g.ids = upload<int>("tridiag::hines::morphology_of", ids);
    g.sizes = morphologies.sizes();
    if (!clamps.empty()) {
      g.clamp = impl::ClampTable<memory_space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::clamp"),
                                               systems);
      auto hc = Kokkos::create_mirror_view(g.clamp);
      for (index_type s = 0; s < systems; ++s) {
        const CurrentClamp& c = clamps.size() == 1 ? clamps[0] : clamps[slots[s]];
        hc(s, 0) = c.amplitude_nA;
        hc(s, 1) = c.delay_ms;
        hc(s, 2) = c.duration_ms;
      }
      Kokkos::deep_copy(g.clamp, hc);
    }
    if (options_.hh_at_soma) g.gates = impl::GateTable<memory_space>("tridiag::hines::gates", systems, soma_max, 3);
    // a (= b), d and V filled on the device from the tables: no population-sized host copy.
    const vector_type a("tridiag::hines::a", systems, rows);
    g.d = vector_type("tridiag::hines::d", systems, rows);
    g.v = vector_type("tridiag::hines::v", systems, rows);
    // Zero-initialised: its pad rows, never assembled, solve to 0 like v's.
    if (options_.scheme == TimeScheme::crank_nicolson) g.half = vector_type("tridiag::hines::half_step", systems, rows);
    Kokkos::parallel_for("tridiag::hines::population_fill", policy(systems),
                         impl::FillKernel<Layout, memory_space>{k, g.ids, g.sizes, a, g.d, g.v, g.gates,
                                                                options_.v_init_mV, q10_, options_.hh_at_soma});
    g.matrix = HinesBatch<double, Layout, memory_space>(morphologies, g.ids, a, a, g.d);
    g.workspace = Workspace<double, Layout, memory_space>("tridiag::hines::workspace", systems, rows);
    g.status = StatusView<memory_space>("tridiag::hines::status", systems);
    return g;
  }

  void take_sample() {
    if (static_cast<index_type>(pending_times_.size()) == static_cast<index_type>(buffer_.extent(0))) flush();
    const index_type row = static_cast<index_type>(pending_times_.size());
    for (Group& g : groups_) {
      if (g.record_slot.extent(0) == 0) continue;
      Kokkos::parallel_for("tridiag::hines::population_record", policy(g.record_slot.extent(0)),
                           impl::RecordKernel<Layout, memory_space>{g.constants, g.ids, g.v, g.record_slot,
                                                                    g.record_column, buffer_, row});
    }
    pending_times_.push_back(time_ms());
    last_sample_step_ = steps_;
  }

  void flush() {
    if (pending_times_.empty()) return;
    check_status();  // fences
    Kokkos::deep_copy(host_buffer_, buffer_);
    for (std::size_t r = 0; r < pending_times_.size(); ++r) {
      recording_.t_ms.push_back(pending_times_[r]);
      for (std::size_t c = 0; c < recording_.neurons.size(); ++c) recording_.soma_mV[c].push_back(host_buffer_(r, c));
    }
    pending_times_.clear();
  }

  /// Throws tridiag::numerical_error counting the neurons whose last solve failed, in every group,
  /// and naming the lowest-numbered of them (fences).
  void check_status() const {
    index_type failed = 0, first_neuron = -1;
    int first_status = status_code::ok;
    for (const Group& g : groups_) {
      const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.status);
      for (index_type s = 0; s < static_cast<index_type>(host.extent(0)); ++s) {
        if (host(s) == status_code::ok) continue;
        ++failed;
        const index_type neuron = g.neuron_at_slot[s];
        if (first_neuron < 0 || neuron < first_neuron) {
          first_neuron = neuron;
          first_status = host(s);
        }
      }
    }
    if (failed > 0)
      throw numerical_error(tridiag::impl::message("hines::Population", failed, " neurons failed by t = ", time_ms(),
                                                   " ms, first neuron ", first_neuron, ": ",
                                                   describe_status(first_status)));
  }

  ExecSpace exec_;
  PopulationOptions options_;
  std::vector<int> morphology_of_;  // neuron -> morphology
  std::vector<int> sizes_;          // morphology -> rows
  std::vector<Place> place_;        // neuron -> (group, slot)
  std::vector<Group> groups_;
  double q10_ = 1;
  long steps_ = 0;
  // Recording: a sample every every_ steps counted from recorded_from_; samples not yet copied
  // back wait in buffer_ (pending_times_ holds their times).
  Recording recording_;
  int every_ = 0;
  long recorded_from_ = 0;
  long last_sample_step_ = -1;  // the step of the latest sample (sample() adds none twice)
  std::vector<double> pending_times_;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> buffer_;
  typename Kokkos::View<double**, Kokkos::LayoutRight, memory_space>::HostMirror host_buffer_;
};

}  // namespace tridiag::hines
