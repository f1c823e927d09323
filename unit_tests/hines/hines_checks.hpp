#pragma once
// Test machinery of the batched Hines solver: the cells (every shared morphology and two seed
// size classes, discretised once per process), random backward-Euler systems on them, and the
// accuracy check against the long-double sequential oracle (reference_hines.hpp), with bounds
// derived from the algorithm's error analysis rather than picked to pass.
//
// The check (hines_accuracy):
//  - componentwise backward error (Oettli-Prager) of the computed x, in long double:
//      omega = max_i |rhs - A x|_i / (|A| |x| + |rhs|)_i.
//    Hines elimination is Gaussian elimination without pivoting in leaves-to-root order, so the
//    computed x solves (A + dA) x = rhs with |dA| <= gamma |L||U|, gamma ~ (2 c + 4) u over a row
//    with c children (u = eps/2). For the M-matrices used here (positive diagonal, non-positive
//    off-diagonal, diagonally dominant: every assembled cable and our random trees) |L||U| = |A|,
//    so omega <= (c_max + 2) eps; we allow 2 (c_max + 3) eps.
//  - forward error against the oracle: |x - x_ref| <= omega |A^-1| (|A||x| + |rhs|) to first
//    order, and for an M-matrix |A^-1| = M(A)^-1 = A^-1 >= 0 exactly; so the bound is
//    omega_bound * max_i y_i / max_i |x_i| with M(A) y = |A||x| + |rhs| solved by the oracle, plus
//    the oracle's own rounding to double (one double eps).
// A wrong solver (a swapped a/b, a wrong parent, a missed child) misses these by orders of
// magnitude; CheckerRejectsWrongAnswers (test_hines_oracle.cpp) proves the check bites.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <vector>

#include "hines/reference_hines.hpp"

#ifndef TRIDIAG_SHARED_DIR
#define TRIDIAG_SHARED_DIR "/work/shared"
#endif

namespace tridiag::hines::test {

inline std::string morphology_path(const std::string& file) {
  return std::string(TRIDIAG_SHARED_DIR) + "/morphologies/" + file;
}

/// A cell of the tests: a name for messages and its discretisation.
struct TestCell {
  std::string name;
  CompartmentalCell cell;
};

/// Every shared morphology at the default discretisation (max_length 20 um), then the seed size
/// classes small-low (107 rows) and big-high (1057 rows). Loaded once per process.
inline const std::vector<TestCell>& test_cells() {
  static const std::vector<TestCell> cells = [] {
    const char* files[] = {"mp_ma_40984_gc2.CNG.swc",   "HSN-fluoro02.CNG.swc", "tc200.CNG.swc",
                           "HSN-fluoro01.CNG.swc",      "control-1-wt.CNG.swc", "BG001.CNG.swc",
                           "10-2012-02-09-001.CNG.swc", "AA0013.swc",           "nrn_ordering.swc",
                           "C220498B-I4.CNG.swc",       "C080400A3.CNG.swc"};
    std::vector<TestCell> out;
    for (const char* f : files) out.push_back({f, discretize(load_swc(morphology_path(f)))});
    for (const SizeClass& c : seed_size_classes) {
      if (std::string(c.name) != "small-low" && std::string(c.name) != "big-high") continue;
      DiscretizationOptions o;
      o.max_length_um = c.max_length_um;
      out.push_back(
          {std::string(c.name) + " (" + c.shared_file + ")", discretize(load_swc(morphology_path(c.shared_file)), o)});
    }
    return out;
  }();
  return cells;
}

/// The test cell whose name starts with `prefix` ("AA0013.swc", "small-low"); throws if none does.
inline const TestCell& test_cell(const std::string& prefix) {
  for (const TestCell& c : test_cells())
    if (c.name.rfind(prefix, 0) == 0) return c;
  throw std::invalid_argument("no test cell named " + prefix);
}

/// The seed's six size classes (size_classes.hpp), each at its own max_length_um, named by class.
/// Loaded once per process.
inline const std::vector<TestCell>& size_class_cells() {
  static const std::vector<TestCell> cells = [] {
    std::vector<TestCell> out;
    for (const SizeClass& c : seed_size_classes) {
      DiscretizationOptions o;
      o.max_length_um = c.max_length_um;
      out.push_back({c.name, discretize(load_swc(morphology_path(c.shared_file)), o)});
    }
    return out;
  }();
  return cells;
}

/// The 11 shared cells (the first of test_cells) followed by the six size classes: what the
/// kernels' comparisons on real cells run over.
/// Built once per process.
inline const std::vector<TestCell>& shared_and_size_class_cells() {
  static const std::vector<TestCell> cells = [] {
    std::vector<TestCell> out(test_cells().begin(), test_cells().begin() + 11);
    for (const auto& c : size_class_cells()) out.push_back(c);
    return out;
  }();
  return cells;
}

/// One backward-Euler step (dt = 0.025 ms, passive membrane) from random voltages in
/// [-80, -50] mV, with a random current (nA) injected at the soma centre.
inline HinesSystem random_step(const CompartmentalCell& cell, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> v(-80.0, -50.0), current(-1.0, 1.0);
  std::vector<double> v_now(cell.size()), injected(cell.size(), 0.0);
  for (double& vi : v_now) vi = v(gen);
  injected[cell.node_at(0, 0.5)] = current(gen);
  return assemble_backward_euler(cell, {1e-4, -65}, 0.025, v_now, injected);
}

/// A random tree (forest when forest_every > 0: every forest_every-th row is a root) of n rows
/// whose matrix is a diagonally dominant M-matrix with a != b, so that a swapped lower/upper is
/// caught; rhs of both signs.
inline HinesSystem random_tree(int n, std::uint64_t seed, int forest_every = 0) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  HinesSystem s;
  s.parent.assign(n, -1);
  s.a.assign(n, 0.0);
  s.b.assign(n, 0.0);
  s.d.assign(n, 0.0);
  s.rhs.assign(n, 0.0);
  for (int i = 1; i < n; ++i) {
    if (forest_every > 0 && i % forest_every == 0) continue;
    s.parent[i] = std::uniform_int_distribution<int>(std::max(0, i - 9), i - 1)(gen);
    s.a[i] = -(0.1 + u(gen));
    s.b[i] = -(0.1 + 2 * u(gen));
  }
  for (int i = 0; i < n; ++i) {
    s.d[i] += 0.05 + u(gen);
    s.rhs[i] = 2 * u(gen) - 1;
    if (s.parent[i] >= 0) {
      s.d[i] += -s.a[i];
      s.d[s.parent[i]] += -s.b[i];
    }
  }
  return s;
}

/// The system with every coefficient rounded to Scalar, so that the oracle solves exactly the
/// matrix the solver sees.
template <class Scalar>
HinesSystem rounded(HinesSystem s) {
  for (auto* v : {&s.a, &s.b, &s.d, &s.rhs})
    for (double& e : *v) e = static_cast<double>(static_cast<Scalar>(e));
  return s;
}

/// Outcome of hines_accuracy; ok() when both errors are within their bounds (and finite).
struct Accuracy {
  long double omega = 0, omega_bound = 0, forward = 0, forward_bound = 0;
  /// omega_factor: the backward error may be that many times its bound (a solver whose rounding
  /// path differs from the sequential sweep's, e.g. a split trunk; 1 for the others).
  bool ok(long double omega_factor = 1) const { return omega <= omega_factor * omega_bound && forward <= forward_bound; }
};

inline std::ostream& operator<<(std::ostream& os, const Accuracy& r) {
  return os << "backward error " << static_cast<double>(r.omega) << " (bound " << static_cast<double>(r.omega_bound)
            << "), forward error " << static_cast<double>(r.forward) << " (bound "
            << static_cast<double>(r.forward_bound) << ")";
}

/// Accuracy of x (computed in a type of epsilon `eps`) as a solution of `sys` (see file comment).
template <class X>
Accuracy hines_accuracy(const HinesSystem& sys, const std::vector<X>& x, long double eps) {
  const int n = sys.size();
  Accuracy r;
  if (static_cast<int>(x.size()) != n) {
    r.omega = r.forward = std::numeric_limits<long double>::infinity();
    return r;
  }
  std::vector<long double> res(n), den(n);
  std::vector<int> children(n, 0);
  for (int i = 0; i < n; ++i) {
    const long double xi = static_cast<long double>(x[i]);
    res[i] += static_cast<long double>(sys.rhs[i]) - sys.d[i] * xi;
    den[i] += std::fabs(sys.d[i] * xi) + std::fabs(static_cast<long double>(sys.rhs[i]));
    const int p = sys.parent[i];
    if (p < 0) continue;
    const long double xp = static_cast<long double>(x[p]);
    res[i] -= sys.a[i] * xp;  // row i, column p
    den[i] += std::fabs(sys.a[i] * xp);
    res[p] -= sys.b[i] * xi;  // row p, column i
    den[p] += std::fabs(sys.b[i] * xi);
    ++children[p];
  }
  for (int i = 0; i < n; ++i) {
    const long double w = den[i] > 0 ? std::fabs(res[i]) / den[i] : (res[i] == 0 ? 0 : INFINITY);
    if (!(w <= r.omega)) r.omega = w;  // NaN-propagating max
  }
  const int c_max = n > 0 ? *std::max_element(children.begin(), children.end()) : 0;
  r.omega_bound = 2 * (c_max + 3) * eps;

  // |x - x_ref| <= omega_bound M(A)^-1 (|A||x| + |rhs|), M(A) the comparison matrix.
  const std::vector<double> ref = hines_solve_reference(sys.a, sys.b, sys.d, sys.rhs, sys.parent);
  std::vector<double> ma(n), mb(n), md(n), y_rhs(den.begin(), den.end());
  for (int i = 0; i < n; ++i) {
    ma[i] = -std::fabs(sys.a[i]);
    mb[i] = -std::fabs(sys.b[i]);
    md[i] = std::fabs(sys.d[i]);
  }
  const std::vector<double> y = hines_solve_reference(ma, mb, md, y_rhs, sys.parent);
  long double err = 0, xnorm = 0, ynorm = 0;
  for (int i = 0; i < n; ++i) {
    const long double e = std::fabs(static_cast<long double>(x[i]) - ref[i]);
    if (!(e <= err)) err = e;
    xnorm = std::max(xnorm, std::fabs(static_cast<long double>(ref[i])));
    ynorm = std::max(ynorm, static_cast<long double>(y[i]));
  }
  r.forward = xnorm > 0 ? err / xnorm : err;
  const long double double_eps = std::numeric_limits<double>::epsilon();
  r.forward_bound = xnorm > 0 ? 1.01L * r.omega_bound * ynorm / xnorm + double_eps : 1.01L * r.omega_bound * ynorm;
  return r;
}

}  // namespace tridiag::hines::test
