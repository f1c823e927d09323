// The step tables of algo::WarpStaged (warp_staged_steps.hpp), on the host: every row once per
// sweep, dummies reading the source row and writing the sink, barriers for every group at once,
// and a walk of the tables in lockstep, in the kernel's order of loads and stores
// (warp_staged_kernel.hpp), against the textbook sweeps, on the shapes that break a wrong sweep,
// random trees and forests and the 107-row size class, for 1, 2, 4 and 8 groups; a table with a
// carry dropped fails that walk; the warp's cheaper levels (warp_level_cost) never add steps.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <tridiag/algorithms/hines/warp_staged_steps.hpp>
#include <vector>

#include "hines/hines_checks.hpp"
#include "hines/hines_solve_runs.hpp"
#include "test_support.hpp"

namespace tridiag::test {
namespace {

using hines::test::random_tree;
using hines::test::size_class_cells;

/// The step tables `t` (for `groups` groups) walked on the host as the kernel's lanes walk them,
/// every group of a step loading before any group stores (warp_staged_kernel.hpp's order), on a
/// system of `parent`; the largest difference from the textbook sweeps, relative.
double walk_steps(const std::vector<int>& parent, std::uint64_t seed, int groups, const hines::impl::WarpStepTables& t) {
  const int n = static_cast<int>(parent.size());
  const HinesSystem sys = on_tree(parent, seed);
  std::vector<double> D(n + 3), R(n + 3);
  for (int i = 0; i < n; ++i) D[i] = sys.d[i], R[i] = sys.rhs[i];
  D[n] = 1, R[n] = 1, D[n + 1] = 1, R[n + 1] = 0, D[n + 2] = 0, R[n + 2] = 0;
  const auto& E = t.elimination;
  const auto& T = t.substitution;
  auto at = [&](const std::vector<hines::impl::WarpStep>& table, int s, int g) { return table[s * groups + g]; };
  std::vector<double> wi(groups), xi(groups), wn(groups), xn(groups), wp(groups), xp(groups);
  for (int g = 0; g < groups; ++g) wi[g] = D[at(E, 0, g).load], xi[g] = R[at(E, 0, g).load];
  for (int s = 0; s < t.steps; ++s) {
    for (int g = 0; g < groups; ++g) {
      const int next = s + 1 < t.steps ? at(E, s + 1, g).load : n;
      wn[g] = D[next], xn[g] = R[next], wp[g] = D[at(E, s, g).parent], xp[g] = R[at(E, s, g).parent];
    }
    bool barrier = false;
    for (int g = 0; g < groups; ++g) {
      const auto e = at(E, s, g);
      const double a = e.load < n ? sys.a[e.load] : sys.a[0], b = e.load < n ? sys.b[e.load] : sys.b[0];
      const double r = xi[g] / wi[g], c = a / wi[g];
      wp[g] -= b * c;
      xp[g] -= b * r;
      R[e.store] = r, D[e.store] = c;
      const bool carry = e.flags & hines::impl::warp_step_carry;
      if (!carry) D[e.parent] = wp[g], R[e.parent] = xp[g];
      wi[g] = carry ? wp[g] : wn[g];
      xi[g] = carry ? xp[g] : xn[g];
      barrier = barrier || (e.flags & hines::impl::warp_step_barrier);
      EXPECT_EQ(barrier, (e.flags & hines::impl::warp_step_barrier) != 0) << "a barrier for some groups only";
    }
    if (barrier)
      for (int g = 0; g < groups; ++g) {
        const int next = s + 1 < t.steps ? at(E, s + 1, g).load : n;
        wi[g] = D[next], xi[g] = R[next];
      }
  }
  std::vector<double> rn(groups), cn(groups), previous(groups, 0.0), xpv(groups);
  for (int g = 0; g < groups; ++g) rn[g] = R[at(T, 0, g).load], cn[g] = D[at(T, 0, g).load];
  for (int s = 0; s < t.steps; ++s) {
    if (at(T, s, 0).flags & hines::impl::warp_step_barrier)
      for (int g = 0; g < groups; ++g) rn[g] = R[at(T, s, g).load], cn[g] = D[at(T, s, g).load];
    const std::vector<double> r = rn, c = cn;
    for (int g = 0; g < groups; ++g) {
      const int next = s + 1 < t.steps ? at(T, s + 1, g).load : n;
      rn[g] = R[next], cn[g] = D[next];
      xpv[g] = (at(T, s, g).flags & hines::impl::warp_step_carry) ? previous[g] : R[at(T, s, g).parent];
    }
    for (int g = 0; g < groups; ++g) {
      const double x = r[g] - c[g] * xpv[g];
      R[at(T, s, g).store] = x;
      previous[g] = x;
    }
  }
  // The textbook sweeps (children in any order: differences of rounding only).
  std::vector<double> d = sys.d, rhs = sys.rhs, y(n);
  for (int i = n - 1; i >= 0; --i)
    if (parent[i] >= 0) {
      const double f = sys.b[i] / d[i];
      d[parent[i]] -= f * sys.a[i];
      rhs[parent[i]] -= f * rhs[i];
    }
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = (rhs[i] - (parent[i] >= 0 ? sys.a[i] * y[parent[i]] : 0.0)) / d[i];
    worst = std::max(worst, std::fabs(R[i] - y[i]) / std::max(1.0, std::fabs(y[i])));
  }
  return worst;
}

TEST(HinesWarpSteps, EveryRowOncePerSweepAndTheWalkSolves) {
  std::vector<std::vector<int>> shapes = fold_shapes(test_seed());
  for (int n : {1, 5, 64, 107, 300})
    for (int forest : {0, 7}) shapes.push_back(random_tree(n, test_seed() + n + forest, forest).parent);
  shapes.push_back(size_class_cells().front().cell.parent);
  for (std::size_t k = 0; k < shapes.size(); ++k)
    for (int groups : {1, 2, 4, 8}) {
      SCOPED_TRACE("shape " + std::to_string(k) + ", " + std::to_string(groups) + " groups");
      const int n = static_cast<int>(shapes[k].size());
      const auto t = hines::impl::make_warp_step_tables(shapes[k].data(), n, groups);
      ASSERT_EQ(t.elimination.size(), static_cast<std::size_t>(t.steps) * groups);
      for (const auto* table : {&t.elimination, &t.substitution}) {
        std::vector<int> seen(n, 0);
        for (const auto& e : *table) {
          if (e.load < n) {
            ++seen[e.load];
            EXPECT_EQ(e.store, e.load);
          } else {
            EXPECT_EQ(e.load, n);  // a dummy: the source row in, the sink row out
            EXPECT_EQ(e.store, n + 1);
          }
        }
        for (int i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "row " << i;
      }
      // Packed for the device: two ints per entry, both sweeps.
      EXPECT_EQ(hines::impl::pack_warp_steps(t).size(), 4 * t.elimination.size());
      EXPECT_LT(walk_steps(shapes[k], test_seed() + k, groups, t), 1e-12);
    }
}

TEST(HinesWarpSteps, CheapLevelsShortenTheTables) {
  // A further level costs the lanes of a warp a __syncwarp (warp_level_cost), not a team barrier
  // (impl::level_cost): the tables take more levels and shorter trunks, never more steps, and
  // still solve. The 107-row size class: 39 steps instead of 44.
  std::vector<std::vector<int>> shapes = fold_shapes(test_seed());
  for (int n : {64, 107, 300}) shapes.push_back(random_tree(n, test_seed() + n, 0).parent);
  const auto cell = size_class_cells().front().cell.parent;
  shapes.push_back(cell);
  for (std::size_t k = 0; k < shapes.size(); ++k)
    for (int groups : {2, 4, 8}) {
      SCOPED_TRACE("shape " + std::to_string(k) + ", " + std::to_string(groups) + " groups");
      const int n = static_cast<int>(shapes[k].size());
      const auto warp = hines::impl::make_warp_step_tables(shapes[k].data(), n, groups);
      const auto team = hines::impl::make_warp_step_tables(shapes[k].data(), n, groups, hines::impl::level_cost);
      EXPECT_LE(warp.steps, team.steps);
      EXPECT_LT(walk_steps(shapes[k], test_seed() + k, groups, team), 1e-12);
    }
  const int n = static_cast<int>(cell.size());
  EXPECT_LT(hines::impl::make_warp_step_tables(cell.data(), n, 4).steps,
            hines::impl::make_warp_step_tables(cell.data(), n, 4, hines::impl::level_cost).steps);
}

TEST(HinesWarpSteps, AWrongCarryIsCaught) {
  // The walk above notices tables whose carries are wrong (its oracle is independent of them): a
  // carry dropped makes the next row's early read stale. (Barriers: every group's flag at every
  // segment end, checked in the walk; the lockstep walk cannot see a missing one, the device
  // tests can.)
  const auto parent = size_class_cells().front().cell.parent;
  const int n = static_cast<int>(parent.size());
  const auto good = hines::impl::make_warp_step_tables(parent.data(), n, 4);
  ASSERT_LT(walk_steps(parent, test_seed(), 4, good), 1e-12);
  int carries = 0;
  for (const auto& e : good.elimination) carries += (e.flags & hines::impl::warp_step_carry) != 0;
  EXPECT_GT(carries, n / 4);  // unbranched stretches pass their entries in registers
  auto no_carry = good;
  const auto carried = std::find_if(no_carry.elimination.begin(), no_carry.elimination.end(),
                                    [](const auto& e) { return (e.flags & hines::impl::warp_step_carry) != 0; });
  carried->flags &= ~hines::impl::warp_step_carry;
  EXPECT_GT(walk_steps(parent, test_seed(), 4, no_carry), 1e-6);
}

}  // namespace
}  // namespace tridiag::test
