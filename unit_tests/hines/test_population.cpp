// hines::Population (population.hpp) on every backend and on the two layouts it uses: a passive
// population against the host loop of assemble_backward_euler + the long-double sequential
// oracle (reference_hines.hpp), step by step, on two shared cells, backward Euler and
// Crank-Nicolson; both packings give the same
// bits; neurons of one morphology give bitwise identical traces; with HH at the soma, neurons of
// two cells in one population, under either packing, give the bits of a one-neuron population
// of their own cell (backward Euler and Crank-Nicolson, through spikes); an HH soma rests near -65 mV
// and spikes only when clamped above threshold; the recording's times and buffering; bad input.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/population.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/reference_hines.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::CompartmentalCell;
using hines::CurrentClamp;
using hines::Packing;
using hines::PopulationOptions;

/// Two shared cells of different size and branching, discretised once: mp_ma_40984_gc2 (149
/// rows, point soma) and tc200 (753 rows, contour soma).
const std::vector<CompartmentalCell>& two_cells() {
  static const std::vector<CompartmentalCell> cells = {
      hines::discretize(hines::load_swc(hines::test::morphology_path("mp_ma_40984_gc2.CNG.swc"))),
      hines::discretize(hines::load_swc(hines::test::morphology_path("tc200.CNG.swc")))};
  return cells;
}

/// V on every node of one neuron after `steps` steps of o.scheme: the host loop (cable_trace.cpp's).
std::vector<double> reference_run(const CompartmentalCell& cell, const PopulationOptions& o, const CurrentClamp& clamp,
                                  int steps) {
  std::vector<double> v(cell.size(), o.v_init_mV), injected(cell.size(), 0.0);
  const int soma = cell.node_at(0, 0.5);
  for (int step = 0; step < steps; ++step) {
    const double t_mid = (step + 0.5) * o.dt_ms;
    injected[soma] = t_mid >= clamp.delay_ms && t_mid < clamp.delay_ms + clamp.duration_ms ? clamp.amplitude_nA : 0.0;
    const hines::HinesSystem sys =
        hines::assemble_backward_euler(cell, o.membrane, hines::system_dt_ms(o.scheme, o.dt_ms), v, injected);
    const std::vector<double> x = hines::test::hines_solve_reference(sys.a, sys.b, sys.d, sys.rhs, sys.parent);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = hines::finish_step(o.scheme, x[i], v[i]);
  }
  return v;
}

template <class C>
using PopulationOf = hines::Population<typename C::exec, typename C::layout>;

template <class C>
class HinesPopulation : public KokkosTest {};
using Configs = to_gtest<product<list<double>, list<layouts::Flat, layouts::Interleaved>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(HinesPopulation, Configs, ConfigNames);

/// Four neurons over the two cells, each clamped differently, switched on and off within the run;
/// NEURON's default pas so that the leak matters.
template <class Config>
void expect_passive_population_matches_reference(hines::TimeScheme scheme) {
  PopulationOptions o;
  o.scheme = scheme;
  o.membrane = {0.001, -70};
  o.v_init_mV = -65;
  const std::vector<CurrentClamp> clamps = {{0.5, 0.1, 0.2}, {2.0, 0.0, 1.0}, {-0.3, 0.05, 0.1}, {0.0, 0.0, 0.0}};
  const int steps = 16;
  std::vector<std::vector<double>> expected;
  for (int k = 0; k < 4; ++k) expected.push_back(reference_run(two_cells()[k % 2], o, clamps[k], steps));

  std::vector<std::vector<std::vector<double>>> per_packing;
  for (Packing packing : {Packing::padded, Packing::per_morphology}) {
    o.packing = packing;
    PopulationOf<Config> pop(typename Config::exec(), two_cells(), 4, clamps, o);
    EXPECT_EQ(pop.groups(), packing == Packing::padded ? 1 : 2);
    pop.advance(steps / 2);
    pop.advance(steps - steps / 2);
    EXPECT_DOUBLE_EQ(pop.time_ms(), steps * o.dt_ms);
    std::vector<std::vector<double>> got;
    for (int k = 0; k < 4; ++k) {
      got.push_back(pop.voltages(k));
      ASSERT_EQ(got[k].size(), expected[k].size());
      double worst = 0;
      for (std::size_t i = 0; i < got[k].size(); ++i) worst = std::max(worst, std::fabs(got[k][i] - expected[k][i]));
      // Each step's solve is backward stable (hines_checks.hpp): about n eps relative per step.
      EXPECT_LE(worst, 1e-9) << "neuron " << k << " (" << got[k].size() << " nodes), max |V - V_ref| mV";
    }
    // The clamped neurons moved: a test that compares nothing would pass too.
    EXPECT_GT(std::fabs(got[1][two_cells()[1].node_at(0, 0.5)] + 65), 1.0);
    per_packing.push_back(got);
  }
  // Padding changes no operation of a neuron: bitwise equal.
  EXPECT_TRUE(per_packing[0] == per_packing[1]);
}

TYPED_TEST(HinesPopulation, PassiveMatchesTheHostReferenceStepByStep) {
  for (const auto scheme : {hines::TimeScheme::backward_euler, hines::TimeScheme::crank_nicolson}) {
    SCOPED_TRACE(hines::name(scheme));
    expect_passive_population_matches_reference<TypeParam>(scheme);
  }
}

TYPED_TEST(HinesPopulation, NeuronsOfOneMorphologyGiveIdenticalTraces) {
  PopulationOptions o;
  o.hh_at_soma = true;
  o.packing = Packing::padded;
  // Six neurons alternating between the two cells, one clamp for all.
  PopulationOf<TypeParam> pop(typename TypeParam::exec(), two_cells(), 6, {{1.0, 1.0, 3.0}}, o);
  pop.record({0, 1, 2, 3, 4, 5}, 2);
  pop.advance(200);
  const hines::Recording& r = pop.recording();
  ASSERT_EQ(r.soma_mV.size(), 6u);
  for (int k = 2; k < 6; ++k) EXPECT_TRUE(r.soma_mV[k] == r.soma_mV[k % 2]) << "neuron " << k;
  EXPECT_FALSE(r.soma_mV[0] == r.soma_mV[1]);
}

/// Six neurons over the two cells (not round robin, so that the padded batch's order, largest
/// first, is not the neurons'), each clamped differently, with HH at the soma for 15 ms: both
/// packings give the same bits, and every neuron's soma trace and final V equal those of a
/// one-neuron population of its own cell (so a mix-up of the morphologies' soma rows in one
/// packing, or in both, fails). Bitwise: these cells' trunks are short enough that Automatic
/// never splits them (hines_solve.hpp), so every batch runs the same operations per neuron.
template <class Config>
void expect_hh_population_matches_one_neuron_populations(hines::TimeScheme scheme) {
  PopulationOptions o;
  o.scheme = scheme;
  o.hh_at_soma = true;
  const std::vector<int> morphology_of = {1, 0, 0, 1, 0, 1};
  const std::vector<CurrentClamp> clamps = {{1.0, 2.0, 10.0}, {1.0, 2.0, 10.0}, {0.5, 0.5, 14.0},
                                            {2.0, 5.0, 8.0},  {-0.3, 1.0, 5.0}, {0.0, 0.0, 0.0}};
  const int neurons = static_cast<int>(morphology_of.size());
  const long steps = std::lround(15 / o.dt_ms);

  struct Run {
    hines::Recording recording;
    std::vector<std::vector<double>> v;  // final V per neuron
  };
  auto run = [&](const std::vector<CompartmentalCell>& cells, const std::vector<int>& ids,
                 const std::vector<CurrentClamp>& cl, Packing packing) {
    o.packing = packing;
    PopulationOf<Config> pop(typename Config::exec(), cells, ids, cl, o);
    std::vector<index_type> all(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) all[k] = static_cast<index_type>(k);
    pop.record(all, 1, 64);
    pop.advance(steps / 3);
    pop.advance(steps - steps / 3);
    Run r;
    r.recording = pop.recording();
    for (std::size_t k = 0; k < ids.size(); ++k) r.v.push_back(pop.voltages(static_cast<index_type>(k)));
    return r;
  };

  std::vector<Run> alone;  // neuron k alone, in a population of its own cell
  for (int k = 0; k < neurons; ++k)
    alone.push_back(run({two_cells()[morphology_of[k]]}, {0}, {clamps[k]}, Packing::padded));
  // The clamps drive the somas through spikes, and the unclamped neuron rests: a test whose
  // neurons all stay near rest would not exercise the gates.
  for (int k : {0, 1, 3}) {
    const auto& trace = alone[k].recording.soma_mV[0];
    EXPECT_GT(*std::max_element(trace.begin(), trace.end()), 0.0) << "neuron " << k << " did not spike";
  }
  const auto& resting = alone[5].recording.soma_mV[0];
  EXPECT_LT(*std::max_element(resting.begin(), resting.end()), -64.0);

  std::vector<Run> per_packing;
  for (Packing packing : {Packing::padded, Packing::per_morphology}) {
    SCOPED_TRACE(packing == Packing::padded ? "padded" : "per_morphology");
    per_packing.push_back(run(two_cells(), morphology_of, clamps, packing));
    const Run& got = per_packing.back();
    ASSERT_EQ(got.recording.t_ms.size(), static_cast<std::size_t>(steps + 1));
    EXPECT_TRUE(got.recording.t_ms == alone[0].recording.t_ms);
    for (int k = 0; k < neurons; ++k) {
      EXPECT_TRUE(got.recording.soma_mV[k] == alone[k].recording.soma_mV[0])
          << "neuron " << k << " (morphology " << morphology_of[k] << "): soma trace differs from its own population's";
      EXPECT_TRUE(got.v[k] == alone[k].v[0]) << "neuron " << k << ": final V differs from its own population's";
    }
  }
  EXPECT_TRUE(per_packing[0].recording.soma_mV == per_packing[1].recording.soma_mV);
  EXPECT_TRUE(per_packing[0].v == per_packing[1].v);
}

TYPED_TEST(HinesPopulation, HodgkinHuxleyMixedMorphologiesMatchOneNeuronPopulations) {
  for (const auto scheme : {hines::TimeScheme::backward_euler, hines::TimeScheme::crank_nicolson}) {
    SCOPED_TRACE(hines::name(scheme));
    expect_hh_population_matches_one_neuron_populations<TypeParam>(scheme);
  }
}

TYPED_TEST(HinesPopulation, HodgkinHuxleySomaSpikesAboveThresholdAndRestsWithout) {
  PopulationOptions o;
  o.hh_at_soma = true;
  // Neuron 0 of each cell clamped at 1 nA from 2 ms for 10 ms; neuron 1 of each not at all.
  const std::vector<CurrentClamp> clamps = {{1.0, 2.0, 10.0}, {1.0, 2.0, 10.0}, {0.0, 2.0, 10.0}, {0.0, 2.0, 10.0}};
  PopulationOf<TypeParam> pop(typename TypeParam::exec(), two_cells(), 4, clamps, o);
  pop.record({0, 1, 2, 3}, 4, 16);
  pop.advance(static_cast<long>(std::lround(15 / o.dt_ms)));
  const hines::Recording& r = pop.recording();
  for (int k = 0; k < 4; ++k) {
    const auto& v = r.soma_mV[k];
    const double highest = *std::max_element(v.begin(), v.end());
    const double lowest = *std::min_element(v.begin(), v.end());
    if (k < 2) {
      EXPECT_GT(highest, 0.0) << "clamped neuron " << k << " did not spike";
    } else {
      EXPECT_LT(highest, -64.0) << "unclamped neuron " << k;
      EXPECT_GT(lowest, -66.0) << "unclamped neuron " << k;
    }
    // Before the clamp (t < 2 ms) every neuron rests near -65 mV.
    for (std::size_t j = 0; j < r.t_ms.size() && r.t_ms[j] < 2.0; ++j) EXPECT_NEAR(v[j], -65.0, 0.5);
  }
}

TYPED_TEST(HinesPopulation, RecordingSamplesEveryKStepsThroughASmallBuffer) {
  PopulationOptions o;
  PopulationOf<TypeParam> pop(typename TypeParam::exec(), two_cells(), 3, {{0.2, 0.0, 100.0}}, o);
  pop.advance(2);
  pop.record({2, 0}, 3, 2);  // buffer of 2 samples: copied back several times
  pop.advance(10);           // samples after 0, 3, 6, 9 steps of the recording
  const hines::Recording& r = pop.recording();
  ASSERT_EQ(r.t_ms.size(), 4u);
  for (int j = 0; j < 4; ++j) EXPECT_DOUBLE_EQ(r.t_ms[j], (2 + 3 * j) * o.dt_ms);
  EXPECT_EQ(r.neurons, (std::vector<index_type>{2, 0}));
  pop.advance(2);  // to step 14: the next sample (step 14 = 2 + 12) is taken
  const hines::Recording& later = pop.recording();
  ASSERT_EQ(later.t_ms.size(), 5u);
  for (int c = 0; c < 2; ++c) {
    const index_type neuron = later.neurons[c];
    const CompartmentalCell& cell = two_cells()[neuron % 2];
    EXPECT_EQ(later.soma_mV[c].back(), pop.voltages(neuron)[cell.node_at(0, 0.5)]);
    EXPECT_GT(later.soma_mV[c].back(), later.soma_mV[c].front());  // depolarised by the clamp
  }
  // sample(): the end of a run off the every-3 grid, once; on the grid it adds nothing.
  pop.advance(1);  // step 15
  pop.sample();
  pop.sample();
  pop.advance(2);  // step 17 = 2 + 15: on the grid, sampled by advance
  pop.sample();
  const hines::Recording& ends = pop.recording();
  ASSERT_EQ(ends.t_ms.size(), 7u);
  EXPECT_DOUBLE_EQ(ends.t_ms[5], 15 * o.dt_ms);
  EXPECT_DOUBLE_EQ(ends.t_ms[6], 17 * o.dt_ms);
  EXPECT_EQ(ends.soma_mV[1].back(), pop.voltages(0)[two_cells()[0].node_at(0, 0.5)]);
}

// Neurons whose solves fail (a clamp of 1e308 nA overflows the right-hand side) make the next read
// throw tridiag::numerical_error counting them in every group and naming the lowest-numbered one.
TYPED_TEST(HinesPopulation, FailedNeuronsAreCountedInEveryGroup) {
  PopulationOptions o;
  o.packing = Packing::per_morphology;  // two groups
  const std::vector<CurrentClamp> clamps = {{0.1, 0, 1}, {1e308, 0, 1}, {1e308, 0, 1}, {0.1, 0, 1}, {1e308, 0, 1}};
  PopulationOf<TypeParam> pop(typename TypeParam::exec(), two_cells(), 5, clamps, o);
  ASSERT_EQ(pop.groups(), 2);
  pop.advance(3);  // asynchronous: the status is checked where results are read
  try {
    pop.voltages(0);
    ADD_FAILURE() << "no exception";
  } catch (const numerical_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("3 neurons failed"), std::string::npos) << what;
    EXPECT_NE(what.find("first neuron 1:"), std::string::npos) << what;
  }
}

TYPED_TEST(HinesPopulation, BadParametersThrow) {
  using Pop = PopulationOf<TypeParam>;
  const typename TypeParam::exec exec;
  const auto& cells = two_cells();
  auto with = [](auto change) {
    PopulationOptions o;
    change(o);
    return o;
  };
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.dt_ms = 0; })), invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.dt_ms = -0.025; })), invalid_argument);
  // Positive but so small that C/dt overflows, or that dt/2 is 0 under Crank-Nicolson: the message
  // names the dt given.
  for (const auto scheme : {hines::TimeScheme::backward_euler, hines::TimeScheme::crank_nicolson}) {
    for (const double dt : {1e-310, std::numeric_limits<double>::denorm_min()}) {
      try {
        Pop(exec, cells, 4, {}, with([&](PopulationOptions& o) {
              o.dt_ms = dt;
              o.scheme = scheme;
            }));
        ADD_FAILURE() << "dt_ms = " << dt << " accepted";
      } catch (const invalid_argument& e) {
        const std::string what = e.what();
        std::ostringstream given;
        given << "dt_ms = " << dt << " is too small";
        EXPECT_NE(what.find(given.str()), std::string::npos) << what;
      }
    }
  }
  EXPECT_THROW(Pop(exec, cells, index_type(-1), {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, {}, 4, {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.membrane.g_S_cm2 = -1e-4; })),
               invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.gnabar_S_cm2 = -0.12; })),
               invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.gl_S_cm2 = -0.0003; })),
               invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.celsius = -300; })), invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.celsius = -273.15; })), invalid_argument);
  EXPECT_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.celsius = 1e4; })), invalid_argument);
  EXPECT_NO_THROW(Pop(exec, cells, 4, {}, with([](PopulationOptions& o) { o.hh.celsius = -20; })));
  EXPECT_THROW(Pop(exec, cells, std::vector<int>{0, 2}, {}, {}), invalid_argument);          // no morphology 2
  EXPECT_THROW(Pop(exec, cells, 4, std::vector<CurrentClamp>(3), {}), invalid_argument);     // 3 clamps, 4 neurons
  EXPECT_THROW(Pop(exec, cells, 4, {{1.0, -1.0, 1.0}}, {}), invalid_argument);               // negative delay
  // Cells built or edited by hand are checked before anything is assembled from them.
  auto broken = [&](auto change) {
    std::vector<CompartmentalCell> edited = cells;
    change(edited[1]);
    return edited;
  };
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.parent[5] = 1 << 20; }), 4, {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.parent[5] = 5; }), 4, {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.area_um2.pop_back(); }), 4, {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.area_um2[3] = -1; }), 4, {}, {}), invalid_argument);
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.axial_conductance_uS[4] = 0; }), 4, {}, {}),
               invalid_argument);
  EXPECT_THROW(Pop(exec, broken([](CompartmentalCell& c) { c.nseg[0] = 1 << 20; }), 4, {}, {}), invalid_argument);
  // HH needs a soma at the root; without HH such a cell is fine.
  const auto no_soma = broken([](CompartmentalCell& c) { c.sections[0].type = 3; });
  EXPECT_THROW(Pop(exec, no_soma, 4, {}, with([](PopulationOptions& o) { o.hh_at_soma = true; })), invalid_argument);
  EXPECT_NO_THROW(Pop(exec, no_soma, 4, {}, {}));
  EXPECT_THROW(hines::assemble_backward_euler(broken([](CompartmentalCell& c) { c.parent[5] = 9999; })[1],
                                              PopulationOptions().membrane, 0.025,
                                              std::vector<double>(cells[1].size(), -65.0)),
               invalid_argument);
  Pop pop(exec, cells, 4, {}, {});
  EXPECT_THROW(pop.record({4}), invalid_argument);
  EXPECT_THROW(pop.record({0}, 0), invalid_argument);
  EXPECT_THROW(pop.voltages(-1), invalid_argument);
  EXPECT_THROW(pop.advance(-1), invalid_argument);
  // An empty population is fine.
  Pop empty(exec, cells, 0, {}, {});
  empty.advance(3);
  EXPECT_EQ(empty.neurons(), 0);
}

}  // namespace
}  // namespace tridiag::test
