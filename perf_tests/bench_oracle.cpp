#include "bench_oracle.hpp"

#include <cmath>
#include <sstream>

#include "reference/lapack_oracle.hpp"  // unit_tests/reference: Kokkos-free LAPACKE wrapper

namespace tridiag::bench {

OracleResult check_with_lapack(const HostSamples& samples, double eps) {
  OracleResult r;
  const index_type n = samples.n;
  r.bound = error_bound(n, eps);
  std::ostringstream why;
  for (std::size_t k = 0; k < samples.ids.size(); ++k) {
    auto slice = [&](const std::vector<double>& v) {
      const auto begin = v.begin() + static_cast<std::ptrdiff_t>(k * n);
      return std::vector<double>(begin, begin + n);
    };
    const auto a = slice(samples.a), b = slice(samples.b), c = slice(samples.c), d = slice(samples.d);
    const auto x = slice(samples.x);
    std::vector<double> ref;
    const int info = test::lapack_gtsv(a, b, c, d, ref);
    if (info != 0) {
      if (!r.wrong) why << "LAPACK dgtsv info " << info << " on system " << samples.ids[k];
      r.wrong = true;
      continue;
    }
    if (!samples.status.empty() && samples.status[k] != 0) {
      if (!r.wrong) why << "status " << samples.status[k] << " on system " << samples.ids[k];
      r.wrong = true;
    }
    double err = 0, norm = 0;
    for (index_type i = 0; i < n; ++i) {
      const double e = std::fabs(x[i] - ref[i]);
      if (!(e <= err)) err = e;  // NaN-propagating max
      norm = std::fmax(norm, std::fabs(ref[i]));
    }
    const double rel = norm > 0 ? err / norm : err;
    if (!std::isnan(r.max_rel_error) && !(rel <= r.max_rel_error)) {  // a NaN sticks
      r.max_rel_error = rel;
      r.worst_system = samples.ids[k];
    }
    if (!(rel <= r.bound)) {
      if (!r.wrong) why << "relative forward error " << rel << " > bound " << r.bound << " on system " << samples.ids[k];
      r.wrong = true;
    }
  }
  r.why = why.str();
  return r;
}

}  // namespace tridiag::bench
