// The accuracy check of the Hines solver tests (hines_checks.hpp) bites: it passes the oracle's
// own answer rounded to float or double, and fails answers that are wrong by a little (one entry
// off by 1000 eps) or structurally (lower and upper swapped, a child ignored). Kokkos-free.

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "hines/hines_checks.hpp"

namespace tridiag::hines::test {
namespace {

template <class S>
std::vector<S> as(const std::vector<double>& v) {
  return std::vector<S>(v.begin(), v.end());
}

template <class S>
void expect_check_bites(const HinesSystem& exact_sys) {
  const HinesSystem sys = rounded<S>(exact_sys);
  const long double eps = std::numeric_limits<S>::epsilon();
  const std::vector<double> ref = hines_solve_reference(sys.a, sys.b, sys.d, sys.rhs, sys.parent);
  const Accuracy good = hines_accuracy(sys, as<S>(ref), eps);
  EXPECT_TRUE(good.ok()) << good;

  // One entry (the largest) off by 1000 eps, relative.
  std::vector<double> off = ref;
  const auto big =
      std::max_element(off.begin(), off.end(), [](double u, double v) { return std::fabs(u) < std::fabs(v); });
  *big *= 1 + 1000 * static_cast<double>(eps);
  const Accuracy perturbed = hines_accuracy(sys, as<S>(off), eps);
  EXPECT_FALSE(perturbed.ok()) << perturbed;

  // Lower and upper swapped (the transposed system; the same for a symmetric assembled cable).
  if (sys.a != sys.b) {
    const std::vector<double> swapped = hines_solve_reference(sys.b, sys.a, sys.d, sys.rhs, sys.parent);
    const Accuracy transposed = hines_accuracy(sys, as<S>(swapped), eps);
    EXPECT_FALSE(transposed.ok()) << transposed;
  }

  // The last child of the root ignored (cut from the tree).
  HinesSystem cut = sys;
  for (int i = cut.size() - 1; i > 0; --i)
    if (cut.parent[i] == 0) {
      cut.parent[i] = -1;
      break;
    }
  const std::vector<double> wrong_tree = hines_solve_reference(cut.a, cut.b, cut.d, cut.rhs, cut.parent);
  const Accuracy pruned = hines_accuracy(sys, as<S>(wrong_tree), eps);
  EXPECT_FALSE(pruned.ok()) << pruned;
}

TEST(HinesAccuracyCheck, RejectsWrongAnswersOnARandomTree) {
  expect_check_bites<float>(random_tree(300, 11));
  expect_check_bites<double>(random_tree(300, 11));
}

TEST(HinesAccuracyCheck, RejectsWrongAnswersOnAnAssembledCell) {
  const CompartmentalCell& cell = test_cells().front().cell;
  expect_check_bites<float>(random_step(cell, 5));
  expect_check_bites<double>(random_step(cell, 5));
}

TEST(HinesAccuracyCheck, CellConditionIsBounded) {
  // The forward bound is omega_bound times the componentwise condition || |A^-1| (|A||x| + |b|) ||
  // / ||x||, measured at 800 to 14,000 on the test cells (dt = 0.025 ms: zero-area nodes and
  // short, thick segments couple strongly against small C/dt). So the forward bound is loose (about
  // 1e-11 in double, 1e-2 in float) and the tight, structure-revealing check is the backward
  // error (a few eps, see RejectsWrongAnswers*); this guards the forward bound's usefulness.
  for (const TestCell& c : test_cells()) {
    SCOPED_TRACE(c.name);
    const HinesSystem sys = random_step(c.cell, 3);
    const std::vector<double> ref = hines_solve_reference(sys.a, sys.b, sys.d, sys.rhs, sys.parent);
    const Accuracy r = hines_accuracy(sys, ref, std::numeric_limits<double>::epsilon());
    EXPECT_TRUE(r.ok()) << r;
    EXPECT_LT(r.forward_bound, 1e5L * r.omega_bound) << r;
  }
}

}  // namespace
}  // namespace tridiag::hines::test
