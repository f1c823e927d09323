#pragma once
// What the batched Hines solver tests share (test_hines_solve.cpp, test_staged_branch_parallel.cpp):
// one solve of a problem into a poisoned x and status, in place or not, with checks that inputs
// and padding are untouched; bitwise comparison; random populations of a cell and their accuracy
// against the oracle; systems on given trees and the tree shapes that break a wrong sweep.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tridiag/algorithms/hines/hines_batch_builder.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <utility>
#include <vector>

#include "hines/hines_checks.hpp"
#include "test_support.hpp"

namespace tridiag::test {

using hines::HinesSystem;
using hines::test::hines_accuracy;
using hines::test::random_step;
using hines::test::rounded;

/// "SubtreeParallel{auto, no padding, split_path 64}": a test's name for its options.
inline std::string name_of(const hines::algo::SubtreeParallel& options) {
  return "SubtreeParallel{" + (options.warps == 0 ? std::string("auto") : std::to_string(options.warps)) +
         (options.solve_padding ? "" : ", no padding") +
         (options.split_path > 0 ? ", split_path " + std::to_string(options.split_path) : std::string()) + "}";
}

template <class S>
using Solutions = std::vector<std::vector<S>>;

/// x (caller's order, pads dropped), the whole padded x (storage order, flat slot * rows + i)
/// and the status (caller's order) of one solve.
template <class S>
struct HinesResult {
  Solutions<S> x;
  std::vector<S> padded;
  std::vector<int> status;
};

template <class S>
bool same_bits(const std::vector<S>& u, const std::vector<S>& v) {
  return u.size() == v.size() && (u.empty() || std::memcmp(u.data(), v.data(), u.size() * sizeof(S)) == 0);
}
template <class S>
bool same_bits(const Solutions<S>& u, const Solutions<S>& v) {
  if (u.size() != v.size()) return false;
  for (std::size_t k = 0; k < u.size(); ++k)
    if (!same_bits(u[k], v[k])) return false;
  return true;
}

/// Raw storage of a BatchVector on the host (padding included), to prove inputs untouched.
template <class V>
std::vector<typename V::value_type> raw(const V& v) {
  auto host = create_host_copy(v);
  return std::vector<typename V::value_type>(host.storage().data(), host.storage().data() + host.storage().extent(0));
}

/// Solves problem with Algorithm into a NaN-poisoned x and a -999 status, checks that the block
/// layouts' padding of x was not written and (check_inputs) that a, b, d, rhs were not modified.
/// Few Kokkos operations per call: on a loaded 2-core machine each OpenMP one costs a time slice.
template <class C, class Algorithm = hines::algo::PerNeuron>
HinesResult<typename C::scalar> run(
    const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
    Algorithm algorithm = {}, bool check_inputs = true) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const auto& batch = problem.matrix;
  std::vector<std::vector<S>> before;
  if (check_inputs) before = {raw(batch.a()), raw(batch.b()), raw(batch.d()), raw(problem.rhs)};
  using X = BatchVector<S, typename C::layout, M>;
  const typename C::layout xmap(batch.systems(), batch.rows());
  const X x(typename X::storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), xmap.required_span()), xmap);
  fill_storage(x, nan_of<S>());
  StatusView<M> status(Kokkos::view_alloc(Kokkos::WithoutInitializing, "status"), batch.systems());
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  hines::solve(exec, batch, problem.rhs, x, status, {}, algorithm);
  exec.fence();
  if (check_inputs) {
    const std::vector<std::vector<S>> after = {raw(batch.a()), raw(batch.b()), raw(batch.d()), raw(problem.rhs)};
    for (int k = 0; k < 4; ++k)
      EXPECT_TRUE(same_bits(before[k], after[k])) << "input "
                                                  << "abdr"[k] << " modified";
  }
  // One host copy of x serves the padding check, the padded and the per-neuron views.
  const auto hx = create_host_copy(x);
  const auto& map = hx.mapping();
  std::vector<bool> real_element(static_cast<std::size_t>(map.required_span()), false);
  HinesResult<S> r;
  r.padded.resize(static_cast<std::size_t>(batch.systems() * batch.rows()));
  r.x.resize(problem.neuron_at_slot.size());
  for (index_type s = 0; s < batch.systems(); ++s) {
    const index_type k = problem.neuron_at_slot[s];
    for (index_type i = 0; i < batch.rows(); ++i) {
      real_element[map.offset(s, i)] = true;
      r.padded[s * batch.rows() + i] = hx(s, i);
    }
    r.x[k].assign(&r.padded[s * batch.rows()], &r.padded[s * batch.rows()] + problem.size_of(k));
  }
  for (std::size_t e = 0; e < real_element.size(); ++e)
    if (!real_element[e]) EXPECT_TRUE(hx.storage()(e) != hx.storage()(e)) << "padding element " << e << " written";
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  r.status.resize(problem.neuron_at_slot.size());
  for (std::size_t s = 0; s < r.status.size(); ++s) r.status[problem.neuron_at_slot[s]] = st(s);
  return r;
}

/// The same status codes as `reference` (PerNeuron's run), NaN where it is NaN, elsewhere
/// |x - reference| <= 4096 eps max |reference| per neuron: a net for wrong answers (which are off
/// by O(1)); accuracy itself is checked against the oracle (expect_accurate). Both solves
/// are within those bounds, not within a few units of each other: the split's pivots reach a
/// segment's end through composed maps (4e-13 of max |x| measured on the backward-Euler steps of
/// the shared cells, double).
template <class S>
void expect_close(const HinesResult<S>& r, const HinesResult<S>& reference, const std::string& what) {
  ASSERT_EQ(r.status, reference.status) << what;
  ASSERT_EQ(r.x.size(), reference.x.size()) << what;
  for (std::size_t k = 0; k < r.x.size(); ++k) {
    ASSERT_EQ(r.x[k].size(), reference.x[k].size()) << what;
    double scale = 0;
    for (S v : reference.x[k]) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    const double bound = 4096 * static_cast<double>(std::numeric_limits<S>::epsilon()) * scale;
    for (std::size_t i = 0; i < r.x[k].size(); ++i) {
      const double u = static_cast<double>(r.x[k][i]), v = static_cast<double>(reference.x[k][i]);
      if (v != v) {
        ASSERT_TRUE(u != u) << what << ", neuron " << k << ", row " << i << ": not NaN";
        continue;
      }
      ASSERT_LE(std::fabs(u - v), bound) << what << ", neuron " << k << ", row " << i;
    }
  }
}

/// algo::Automatic on `problem` (the default, and without splits) against `reference`,
/// PerNeuron's run: bitwise, but where it splits a trunk (automatic_splits_trunks: on a GPU, small
/// batches of cells with long unbranched paths), then expect_close.
template <class C>
void expect_automatic_matches(const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
                              const HinesResult<typename C::scalar>& reference, const std::string& what,
                              bool solve_padding = true) {
  using S = typename C::scalar;
  hines::algo::Automatic automatic;
  automatic.solve_padding = solve_padding;
  const HinesResult<S> r = run<C>(problem, automatic, false);
  if (hines::automatic_splits_trunks<S>(typename C::exec(), problem.matrix, automatic)) {
    expect_close(r, reference, what + ": Automatic (split trunks)");
  } else {
    EXPECT_TRUE(same_bits(r.x, reference.x)) << what << ": Automatic";
    EXPECT_EQ(r.status, reference.status) << what << ": Automatic";
  }
  automatic.split_trunks = false;
  EXPECT_FALSE(hines::automatic_splits_trunks<S>(typename C::exec(), problem.matrix, automatic)) << what;
  const HinesResult<S> unsplit = run<C>(problem, automatic, false);
  EXPECT_TRUE(same_bits(unsplit.x, reference.x)) << what << ": Automatic without splits";
  EXPECT_EQ(unsplit.status, reference.status) << what << ": Automatic without splits";
}

/// `count` random backward-Euler steps of one cell, rounded to S.
template <class S>
std::vector<HinesSystem> population(const hines::CompartmentalCell& cell, int count, std::uint64_t seed) {
  std::vector<HinesSystem> out;
  for (int k = 0; k < count; ++k) out.push_back(rounded<S>(random_step(cell, seed + k)));
  return out;
}

/// `count` random steps of the test cells, neuron k on cell 5 k mod (number of cells): every
/// cell, interleaved, in a mixed batch.
template <class S>
std::vector<HinesSystem> mixed_population(std::size_t count, std::uint64_t seed) {
  const auto& cells = hines::test::test_cells();
  std::vector<HinesSystem> out;
  for (std::size_t k = 0; k < count; ++k)
    out.push_back(rounded<S>(random_step(cells[(5 * k) % cells.size()].cell, seed + k)));
  return out;
}

/// The rows of `cell` without children, increasing.
inline std::vector<int> leaves_of(const hines::CompartmentalCell& cell) {
  std::vector<bool> has_child(cell.size(), false);
  for (int i = 1; i < cell.size(); ++i) has_child[cell.parent[i]] = true;
  std::vector<int> leaves;
  for (int i = 0; i < cell.size(); ++i)
    if (!has_child[i]) leaves.push_back(i);
  return leaves;
}

template <class S>
void expect_accurate(const std::vector<HinesSystem>& systems, const HinesResult<S>& r, const std::string& what,
                     long double omega_factor = 1) {
  for (std::size_t k = 0; k < systems.size(); ++k) {
    ASSERT_EQ(r.status[k], 0) << what << ", neuron " << k;
    const auto acc = hines_accuracy(systems[k], r.x[k], eps_of<S>());
    ASSERT_TRUE(acc.ok(omega_factor)) << what << ", neuron " << k << ": " << acc << " (seed " << test_seed() << ")";
  }
}

/// A system on the tree `parent` (any Hines numbering) whose matrix is a diagonally dominant
/// M-matrix with a != b (as random_tree), rhs of both signs.
inline HinesSystem on_tree(const std::vector<int>& parent, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = static_cast<int>(parent.size());
  HinesSystem s;
  s.parent = parent;
  s.a.assign(n, 0.0);
  s.b.assign(n, 0.0);
  s.d.assign(n, 0.0);
  s.rhs.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    s.d[i] += 0.05 + u(gen);
    s.rhs[i] = 2 * u(gen) - 1;
    if (parent[i] < 0) continue;
    s.a[i] = -(0.1 + u(gen));
    s.b[i] = -(0.1 + 2 * u(gen));
    s.d[i] += -s.a[i];
    s.d[parent[i]] += -s.b[i];
  }
  return s;
}

/// Neurons on {-1, 0, 1, 0}, whose sweep reads a parent's rhs at its first child (out of row
/// order), with non-finite rhs rows in several places and, last, a zero pivot (leaf 3) that
/// outranks a bad rhs: PerNeuron's codes -1, -2, -1, -3, -4, 4 (the cases of test_hines_solve.cpp,
/// for the kernels checked against PerNeuron).
template <class S>
std::vector<HinesSystem> out_of_order_rhs_failures(std::uint64_t seed) {
  const S nan = nan_of<S>(), inf = std::numeric_limits<S>::infinity();
  const std::vector<std::vector<std::pair<int, S>>> bad_rhs = {
      {{0, nan}, {2, nan}}, {{1, nan}, {2, nan}}, {{3, inf}, {0, nan}}, {{2, -inf}}, {{3, nan}}, {}};
  std::vector<HinesSystem> out;
  for (std::size_t c = 0; c < bad_rhs.size(); ++c) {
    HinesSystem sys = rounded<S>(on_tree({-1, 0, 1, 0}, seed + c));
    for (const auto& [row, value] : bad_rhs[c]) sys.rhs[row] = static_cast<double>(value);
    if (c + 1 == bad_rhs.size()) {
      sys.rhs[0] = static_cast<double>(nan);
      sys.d[3] = 0;
    }
    out.push_back(sys);
  }
  return out;
}

/// Trees that a wrong fold (a parent started twice or never, a partial entry lost, a register
/// carried across a branch or a root) gets wrong.
inline std::vector<std::vector<int>> fold_shapes(std::uint64_t seed) {
  std::vector<std::vector<int>> shapes = {
      {-1},                                       // one compartment
      {-1, 0, 0, 0, 0, 0},                        // a star: five leaves, the highest reached first
      {-1, 0, 0, 1, 1, 1, 2, 2, 2, 2},            // branch points of 2, 3 and 4 children
      {-1, -1, 0, 0, 1, 1, 0},                    // two trees, no child right after its parent
      {-1, 0, -1, -1, 2, 2, 2, -1, 7, 0, 4, -1},  // lone roots inside and last, a root's far child
      {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},     // unbranched (Thomas)
  };
  // A comb: the chain 0..19, rows 20..39 hang off rows 19..0, rows 40..59 off rows 0..19.
  std::vector<int> comb(60, -1);
  for (int i = 1; i < 60; ++i) comb[i] = i < 20 ? i - 1 : (i < 40 ? 39 - i : i - 40);
  shapes.push_back(comb);
  // Children anywhere above their parent (parent uniform in [0, i)), one row in 15 a new root.
  std::mt19937_64 gen(seed);
  for (int n : {40, 150, 300}) {
    std::vector<int> p(n, -1);
    for (int i = 1; i < n; ++i)
      if (std::uniform_int_distribution<int>(0, 14)(gen) != 0) p[i] = std::uniform_int_distribution<int>(0, i - 1)(gen);
    shapes.push_back(p);
  }
  return shapes;
}

/// hines::solve with x = rhs (a copy of problem.rhs made first), status per neuron.
template <class C, class Algorithm = hines::algo::PerNeuron>
HinesResult<typename C::scalar> run_in_place(
    const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
    Algorithm algorithm = {}) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const auto& batch = problem.matrix;
  BatchVector<S, typename C::layout, M> x("x", batch.systems(), batch.rows());
  hines::set_rhs(problem, hines::copy_solution(problem, problem.rhs), x);
  StatusView<M> status("status", batch.systems());
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  hines::solve(exec, batch, x, x, status, {}, algorithm);
  exec.fence();
  HinesResult<S> r;
  r.x = hines::copy_solution(problem, x);
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  r.status.resize(problem.neuron_at_slot.size());
  for (std::size_t s = 0; s < r.status.size(); ++s) r.status[problem.neuron_at_slot[s]] = st(s);
  return r;
}

/// Solves `problem` with `algorithm` out of place and in place: the same bits and status codes
/// as `reference` (PerNeuron's run of the same problem); check_inputs as run's.
template <class C, class Algorithm>
void expect_same_as(const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
                    const Algorithm& algorithm, const HinesResult<typename C::scalar>& reference, const std::string& what,
                    bool check_inputs = false) {
  const auto r = run<C>(problem, algorithm, check_inputs);
  EXPECT_TRUE(same_bits(r.x, reference.x)) << what;
  EXPECT_EQ(r.status, reference.status) << what;
  const auto in_place = run_in_place<C>(problem, algorithm);
  EXPECT_TRUE(same_bits(in_place.x, reference.x)) << what << " in place";
  EXPECT_EQ(in_place.status, reference.status) << what << " in place";
}

/// x of one solve, every row of every slot (slot * rows + i, storage order), and the status by slot.
template <class S>
struct SlotResult {
  std::vector<S> x;
  std::vector<int> status;
};

/// hines::solve of `problem` with `algorithm` over an x whose rows all hold `sentinel` first, or
/// (in_place) with x = rhs, a copy of problem.rhs whose pad rows hold `sentinel`; status -999
/// first. For checks that pad rows are left alone and that failed neurons are written over.
template <class C, class Algorithm>
SlotResult<typename C::scalar> solve_over_sentinel(
    const hines::HinesProblem<typename C::scalar, typename C::layout, typename C::memory>& problem,
    Algorithm algorithm, typename C::scalar sentinel, bool in_place) {
  using S = typename C::scalar;
  using M = typename C::memory;
  const auto& batch = problem.matrix;
  const index_type systems = batch.systems(), rows = batch.rows();
  BatchVector<S, typename C::layout, M> x("x", systems, rows);
  if (in_place) hines::set_rhs(problem, hines::copy_solution(problem, problem.rhs), x);
  auto hx = create_host_copy(x);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = in_place ? problem.size_of(problem.neuron_at_slot[s]) : 0; i < rows; ++i) hx(s, i) = sentinel;
  Kokkos::deep_copy(x.storage(), hx.storage());
  StatusView<M> status("status", systems);
  Kokkos::deep_copy(status, -999);
  typename C::exec exec;
  hines::solve(exec, batch, in_place ? x : problem.rhs, x, status, {}, algorithm);
  exec.fence();
  Kokkos::deep_copy(hx.storage(), x.storage());
  SlotResult<S> r;
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) r.x.push_back(hx(s, i));
  auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  r.status.assign(st.data(), st.data() + systems);
  return r;
}

/// Checks a solve without padding (`skipped`) against the same solve with it (`padded`, both
/// solve_over_sentinel): the same status per slot; on real rows the same bits (NaN on every real
/// row of a failed neuron); every pad row still `sentinel`.
template <class S, class Problem>
void expect_padding_skipped(const Problem& problem, const SlotResult<S>& padded, const SlotResult<S>& skipped,
                            S sentinel, const std::string& what) {
  const index_type systems = problem.matrix.systems(), rows = problem.matrix.rows();
  ASSERT_EQ(skipped.status, padded.status) << what;
  for (index_type s = 0; s < systems; ++s) {
    const index_type n = problem.size_of(problem.neuron_at_slot[s]);
    const auto at = [&](const SlotResult<S>& r, index_type i) { return r.x[s * rows + i]; };
    const std::vector<S> mine(skipped.x.begin() + s * rows, skipped.x.begin() + s * rows + n);
    const std::vector<S> theirs(padded.x.begin() + s * rows, padded.x.begin() + s * rows + n);
    EXPECT_TRUE(same_bits(mine, theirs)) << what << ", slot " << s;
    if (skipped.status[s] != 0)
      for (index_type i = 0; i < n; ++i) ASSERT_TRUE(at(skipped, i) != at(skipped, i)) << what << ", failed slot " << s;
    for (index_type i = n; i < rows; ++i) {
      const S v = at(skipped, i);
      ASSERT_TRUE(std::memcmp(&v, &sentinel, sizeof(S)) == 0) << what << ", slot " << s << ": pad row " << i << " written";
    }
  }
}

/// For each of the shared cells and size classes (hines::test::shared_and_size_class_cells), under
/// a SCOPED_TRACE of its name: `count` random steps of it (`first_count` for the cell at index
/// `first`: on a GPU a full block of 32 and a partial one), their problem and PerNeuron's run of
/// it (every status 0), passed to body(c, systems, problem, reference), c the cell's index.
template <class C, class Body>
void for_each_real_cell(std::size_t first, int first_count, int count, const Body& body) {
  using S = typename C::scalar;
  const auto& cells = hines::test::shared_and_size_class_cells();
  for (std::size_t c = 0; c < cells.size(); ++c) {
    SCOPED_TRACE(cells[c].name);
    const auto systems = population<S>(cells[c].cell, c == first ? first_count : count, test_seed() + 100 * c);
    const auto problem = hines::make_problem<S, typename C::layout, typename C::memory>(systems);
    const auto reference = run<C>(problem, hines::algo::PerNeuron{}, false);
    for (int k : reference.status) ASSERT_EQ(k, 0);
    body(c, systems, problem, reference);
  }
}

}  // namespace tridiag::test
