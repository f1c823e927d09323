#pragma once
// The data of one tridiag measurement, generated where it is solved (never transferred):
// a batch of random, strictly diagonally dominant tridiagonal systems in a given layout, the
// solution vector, the Thomas workspace and the status array, all preallocated so that the timed
// region allocates nothing.
//
// Values come from a counter-based generator (the splitmix64 finaliser applied to
// seed + counter * golden ratio): element (s, i) of a vector depends only on the seed, s, i and the
// vector, so every layout, execution space and memory space holds the same matrices, and any
// work item can draw its element without shared state.

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/layouts/layouts.hpp>

namespace tridiag::bench {

/// Uniform double in [-1, 1) for (seed, counter).
KOKKOS_INLINE_FUNCTION double hash_uniform(std::uint64_t seed, std::uint64_t counter) {
  std::uint64_t z = seed + (counter + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;  // 53 random bits
}

/// Row i of a random system of n rows, drawn from (seed, key), key = (system * stride + i) * 8:
/// a, c uniform in [-1, 1) (0 outside the matrix), b = +-(|a| + |c| + m) with m uniform in
/// [0.5, 1) (strictly diagonally dominant), d uniform in [-1, 1).
struct RandomRow {
  double a, b, c, d;
};
KOKKOS_INLINE_FUNCTION RandomRow random_row(std::uint64_t seed, std::uint64_t key, index_type i, index_type n) {
  const double lower = i > 0 ? hash_uniform(seed, key + 0) : 0.0;
  const double upper = i + 1 < n ? hash_uniform(seed, key + 1) : 0.0;
  const double margin = 0.75 + 0.25 * hash_uniform(seed, key + 2);
  const double sign = hash_uniform(seed, key + 3) < 0 ? -1.0 : 1.0;
  const double al = lower < 0 ? -lower : lower, au = upper < 0 ? -upper : upper;
  return {lower, sign * (al + au + margin), upper, hash_uniform(seed, key + 4)};
}

/// The number of nonzero entries among the first `count` of a status View (a named functor).
template <class Status>
struct CountNonzeroStatus {
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s, index_type& nonzero) const {
    nonzero += status(s) != 0 ? 1 : 0;
  }
};

/// "block_interleaved32" etc.: the layout's name plus its block width, as in the unit tests.
template <class Layout>
std::string layout_label() {
  std::string name = Layout::name();
  if constexpr (Layout::system_granularity > 1) name += std::to_string(Layout::system_granularity);
  return name;
}

template <class Scalar>
constexpr const char* precision_name() {
  return std::is_same_v<Scalar, float> ? "float" : "double";
}

template <class Scalar, class Layout, class Memory>
struct Problem {
  using scalar_type = Scalar;
  using layout_type = Layout;
  using memory_space = Memory;

  index_type systems = 0, rows = 0;
  TridiagonalSystem<Scalar, Layout, Memory> data;          ///< a, b, c, d (packed for UnifiedVector)
  BatchVector<Scalar, Layout, Memory> x;                   ///< solution
  /// Host memory: thomas::solve keeps c' in per-thread scratch when given no workspace, as users
  /// call it; a GPU solve gets a preallocated workspace so that no allocation is timed.
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;
  thomas::Workspace<Scalar, Layout, Memory> workspace;     ///< c' of the Thomas forward sweep (GPU only)
  StatusView<Memory> status;                               ///< one int per system

  Problem(index_type nsys, index_type n)
      : systems(nsys), rows(n),
        data(allocate_system<Layout, Scalar, Memory>("tridiag::bench", nsys, n)),
        x("tridiag::bench_x", nsys, n),
        workspace(host_memory ? thomas::Workspace<Scalar, Layout, Memory>()
                              : thomas::Workspace<Scalar, Layout, Memory>("tridiag::bench_workspace", nsys, n)),
        status("tridiag::bench_status", nsys) {}

  /// Before each measurement (the measurements of a layout share this problem): x NaN and every
  /// status -1, so that a row or a status the measured solver did not write fails the check
  /// instead of passing with what an earlier measurement left.
  void poison_outputs() const {
    Kokkos::deep_copy(x.storage(), std::numeric_limits<Scalar>::quiet_NaN());
    Kokkos::deep_copy(status, -1);
  }

  /// Every byte this measurement allocates: matrix and right-hand side (one packed allocation for
  /// UnifiedVector), solution, workspace, status; layout padding included.
  std::int64_t memory_bytes() const {
    std::set<const void*> seen;
    std::int64_t bytes = 0;
    auto add = [&](const auto& view) {
      using V = std::decay_t<decltype(view)>;
      if (view.data() == nullptr || !seen.insert(static_cast<const void*>(view.data())).second) return;
      bytes += static_cast<std::int64_t>(view.span() * sizeof(typename V::value_type));
    };
    add(data.matrix.lower.storage());
    add(data.matrix.diag.storage());
    add(data.matrix.upper.storage());
    add(data.rhs.storage());
    add(x.storage());
    add(workspace.storage());
    add(status);
    return bytes;
  }
};

/// Fills the problem on `exec` (which must reach Memory): for every system s and row i,
///   a, c uniform in [-1, 1), b = +-(|a| + |c| + m) with m uniform in [0.5, 1), d uniform in [-1, 1),
/// with a(s, 0) = c(s, n-1) = 0 (outside the matrix; cuSPARSE requires the zeros), and x = NaN so
/// that a row no solver wrote shows in the check. Asynchronous on exec.
template <class Exec, class Scalar, class Layout, class Memory>
void generate(const Exec& exec, const Problem<Scalar, Layout, Memory>& p, std::uint64_t seed) {
  static_assert(Kokkos::SpaceAccessibility<Exec, Memory>::accessible, "generate: Memory not reachable from Exec");
  const index_type nsys = p.systems, n = p.rows, total = nsys * n;
  if (total == 0) return;
  const auto a = p.data.matrix.lower, b = p.data.matrix.diag, c = p.data.matrix.upper, d = p.data.rhs;
  const auto x = p.x;
  // Walk the storage in order: row-major for Flat, system-fastest for the interleaved family.
  const bool system_major = std::is_same_v<Layout, layouts::Flat>;
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
  Kokkos::parallel_for(
      "tridiag::bench::generate", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, total),
      KOKKOS_LAMBDA(const index_type k) {
        const index_type s = system_major ? k / n : k % nsys;
        const index_type i = system_major ? k % n : k / nsys;
        const RandomRow r = random_row(seed, (std::uint64_t(s) * std::uint64_t(n) + std::uint64_t(i)) * 8u, i, n);
        a(s, i) = Scalar(r.a);
        c(s, i) = Scalar(r.c);
        b(s, i) = Scalar(r.b);
        d(s, i) = Scalar(r.d);
        x(s, i) = nan;
      });
}

/// The systems the oracle checks: the first, the last and up to 14 others drawn from the seed
/// (all of them for small batches), ascending.
inline std::vector<index_type> sample_systems(index_type systems, std::uint64_t seed) {
  std::set<index_type> ids;
  if (systems <= 0) return {};
  ids.insert(0);
  ids.insert(systems - 1);
  for (std::uint64_t k = 0; ids.size() < 16 && ids.size() < std::size_t(systems) && k < 1000; ++k) {
    const double u = 0.5 * (hash_uniform(seed ^ 0x5eed5eedULL, k) + 1.0);  // [0, 1)
    ids.insert(static_cast<index_type>(u * double(systems)) % systems);
  }
  return {ids.begin(), ids.end()};
}

}  // namespace tridiag::bench
