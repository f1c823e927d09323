#pragma once
// The oracle of the `hines` sweep (STYLE 6.6/6.7): sampled neurons, copied to the host outside any
// timed region, are solved again by a plain sequential Hines elimination in long double written
// here (Kokkos-free, never optimised, sharing no code with algorithms/hines), and the benchmark's
// solution must agree within a bound derived from the algorithm's error analysis:
//
//   Hines elimination is Gaussian elimination without pivoting, leaves to root, so the computed x
//   solves (A + dA) x = rhs with |dA| <= gamma |L||U|, gamma ~ (2 c + 4) u over a row with c
//   children (u = eps/2); for the M-matrices the sweep generates (d > 0, a, b <= 0, diagonally
//   dominant) |L||U| = |A|. To first order |x - x_ref| <= omega A^-1 (|A||x| + |rhs|) with A^-1 >= 0,
//   so the relative forward error max_i |x_i - x_ref,i| / max_i |x_ref,i| is bounded by
//     2 (c_max + 3) eps * max_i y_i / max_i |x_ref,i| + eps(double),   A y = |A||x_ref| + |rhs|,
//   twice the bound of the unit tests (unit_tests/hines/hines_checks.hpp). A wrong solver (swapped
//   a/b, a missed child, a wrong parent, stale data) misses it by orders of magnitude.
// Pad rows (size <= i < rows, identity rows) must hold exactly rhs(i) / d(i).

#include <string>
#include <vector>

#include <tridiag/core/types.hpp>

namespace tridiag::bench {

/// One sampled neuron: its tree, its coefficients as the device held them (converted to double,
/// exactly) and the solution under test, for every row of the padded batch.
struct HinesSample {
  index_type id = -1;          ///< storage slot in the batch (for messages)
  index_type size = 0;         ///< real rows; rows size .. a.size()-1 are padding
  std::vector<int> parent;     ///< size entries, parent[i] < i, -1 for a root
  std::vector<double> a, b, d, rhs, x;  ///< every row of the padded batch
  int status = 0;              ///< the solver's status for this neuron
};

struct HinesCheck {
  double rel_error = 0;  ///< relative forward error over the real rows (NaN if x holds a NaN)
  double bound = 0;      ///< see the file comment
  bool wrong = false;    ///< error above the bound, non-finite, a wrong pad row or a nonzero status
  std::string why;       ///< when wrong: what
};

/// x = A^-1 rhs for the Hines matrix (d, a, b, parent) of `size` rows, in long double (the
/// plain two-sweep algorithm, ICCS 2017 Algorithm 1). Exposed for the oracle's own self-check.
std::vector<long double> hines_reference_solve(const std::vector<int>& parent, const std::vector<double>& a,
                                               const std::vector<double>& b, const std::vector<double>& d,
                                               const std::vector<long double>& rhs, index_type size);

/// Checks one sample computed in a scalar of machine epsilon `eps`.
HinesCheck check_hines_sample(const HinesSample& sample, double eps);

}  // namespace tridiag::bench
