#pragma once
// Shared by the variable-batch tests (CP, NCP, size-aware): random sizes with an empty and a
// single-row system mixed in, and the per-system check against the long-double banded LU.

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference/banded_lu.hpp"
#include "test_support.hpp"

namespace tridiag::test {

/// Sizes uniform in [lo, hi], with an empty system and a single-row system mixed in.
inline std::vector<index_type> random_sizes(index_type systems, index_type lo, index_type hi, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<index_type> u(lo, hi);
  std::vector<index_type> sizes(systems);
  for (auto& n : sizes) n = u(gen);
  if (systems > 3) {
    sizes[1] = 0;
    sizes[2] = 1;
  }
  return sizes;
}

/// Checks x_s (first sizes[s] rows of system s of the padded flat host array) against the oracle.
template <class S>
void expect_variable_solution(const HostBatch<S>& h, const std::vector<index_type>& sizes, const std::vector<S>& x,
                              const std::string& what) {
  const long double eps = eps_of<S>();
  for (index_type s = 0; s < h.systems; ++s) {
    const index_type n = sizes[s];
    auto cut = [&](const std::vector<S>& v) {
      return std::vector<long double>(v.begin() + s * h.rows, v.begin() + s * h.rows + n);
    };
    std::vector<long double> ref;
    ASSERT_TRUE(banded_lu_solve(cut(h.a), cut(h.b), cut(h.c), cut(h.d), ref));
    // Diagonally dominant with margin >= 0.5: cond_inf <= 2 max|row| / margin is small, so a
    // plain n * eps bound (with headroom) is already tight enough to catch a wrong solver.
    const long double bound = 64.0L * (n + 1) * eps;
    EXPECT_TRUE(forward_error(x, s * h.rows, ref) <= bound) << what << ": system " << s << " (n = " << n << ")";
  }
}

/// Ragged (offset-indexed) copy of the first sizes[s] rows of each system of a padded flat host
/// array of nmax rows per system.
template <class V, class S>
void upload_ragged(const std::vector<S>& padded, const std::vector<index_type>& sizes, index_type nmax, const V& v) {
  auto host = Kokkos::create_mirror_view(v.storage());
  index_type k = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (index_type i = 0; i < sizes[s]; ++i) host(k++) = padded[s * nmax + i];
  Kokkos::deep_copy(v.storage(), host);
}

/// The padded flat host array of a ragged vector (NaN in the padding).
template <class V>
std::vector<typename V::value_type> download_ragged(const V& v, const std::vector<index_type>& sizes, index_type nmax) {
  using S = typename V::value_type;
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.storage());
  std::vector<S> padded(sizes.size() * nmax, std::numeric_limits<S>::quiet_NaN());
  index_type k = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (index_type i = 0; i < sizes[s]; ++i) padded[s * nmax + i] = host(k++);
  return padded;
}

}  // namespace tridiag::test
