#include "bench_hines_oracle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace tridiag::bench {

std::vector<long double> hines_reference_solve(const std::vector<int>& parent, const std::vector<double>& a,
                                               const std::vector<double>& b, const std::vector<double>& d,
                                               const std::vector<long double>& rhs, index_type size) {
  std::vector<long double> w(d.begin(), d.begin() + size), x(rhs.begin(), rhs.begin() + size);
  // Leaves to root: row i eliminates b(i), its entry in the parent's row.
  for (index_type i = size - 1; i >= 0; --i) {
    const int p = parent[i];
    if (p < 0) continue;
    const long double factor = static_cast<long double>(b[i]) / w[i];
    w[p] -= factor * a[i];
    x[p] -= factor * x[i];
  }
  // Root to leaves.
  for (index_type i = 0; i < size; ++i) {
    if (parent[i] >= 0) x[i] -= static_cast<long double>(a[i]) * x[parent[i]];
    x[i] /= w[i];
  }
  return x;
}

HinesCheck check_hines_sample(const HinesSample& s, double eps) {
  HinesCheck r;
  std::ostringstream why;
  const index_type n = s.size, rows = static_cast<index_type>(s.d.size());
  if (s.status != 0) {
    why << "status " << s.status << " on neuron " << s.id;
    r.wrong = true;
  }
  // Reference solution and the conditioning vector y = A^-1 (|A||x_ref| + |rhs|).
  std::vector<long double> rhs(s.rhs.begin(), s.rhs.begin() + n);
  const std::vector<long double> ref = hines_reference_solve(s.parent, s.a, s.b, s.d, rhs, n);
  std::vector<long double> scale(static_cast<std::size_t>(n));
  std::vector<int> children(static_cast<std::size_t>(n), 0);
  for (index_type i = 0; i < n; ++i) scale[i] = std::fabs(s.d[i] * ref[i]) + std::fabs(rhs[i]);
  for (index_type i = 0; i < n; ++i) {
    const int p = s.parent[i];
    if (p < 0) continue;
    scale[i] += std::fabs(s.a[i] * ref[p]);
    scale[p] += std::fabs(s.b[i] * ref[i]);
    ++children[p];
  }
  const std::vector<long double> y = hines_reference_solve(s.parent, s.a, s.b, s.d, scale, n);
  long double err = 0, xnorm = 0, ynorm = 0;
  for (index_type i = 0; i < n; ++i) {
    const long double e = std::fabs(static_cast<long double>(s.x[i]) - ref[i]);
    if (!(e <= err)) err = e;  // NaN-propagating max
    xnorm = std::max(xnorm, std::fabs(ref[i]));
    ynorm = std::max(ynorm, std::fabs(y[i]));
  }
  const int c_max = n > 0 ? *std::max_element(children.begin(), children.end()) : 0;
  const long double omega = 2.0L * (c_max + 3) * eps;
  const long double double_eps = std::numeric_limits<double>::epsilon();
  r.rel_error = static_cast<double>(xnorm > 0 ? err / xnorm : err);
  r.bound = static_cast<double>(2.0L * omega * (xnorm > 0 ? ynorm / xnorm : ynorm) + double_eps);
  if (!(r.rel_error <= r.bound)) {
    if (!r.wrong) why << "relative forward error " << r.rel_error << " > bound " << r.bound << " on neuron " << s.id;
    r.wrong = true;
  }
  // Pad rows: identity rows, solved exactly.
  for (index_type i = n; i < rows; ++i) {
    const double expected = s.rhs[i] / s.d[i];
    if (!(s.x[i] == expected)) {
      if (!r.wrong) why << "pad row " << i << " of neuron " << s.id << " holds " << s.x[i] << ", expected " << expected;
      r.wrong = true;
      break;
    }
  }
  r.why = why.str();
  return r;
}

}  // namespace tridiag::bench
