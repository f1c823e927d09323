#pragma once
// The one place where tridiag decides which algorithm Algorithm::automatic runs: by execution
// space, layout, batch size and system size. Every threshold here comes from a measurement; the
// source of each is named beside it. Change them only with a perf_tests run that shows why.

#include <type_traits>

#include <Kokkos_Core.hpp>

#include <tridiag/core/types.hpp>
#include <tridiag/layouts/layouts.hpp>

namespace tridiag {

/// The solvers behind tridiag::solve.
enum class Algorithm {
  automatic,    ///< chosen by automatic_algorithm() below
  thomas,       ///< thomas::solve: one thread per system
  partitioned,  ///< partitioned::solve: several threads per system (chunks + interface PCR)
  cr,           ///< cyclic::solve with Algorithm::cr: one team per system in scratch
  pcr,          ///< cyclic::solve with Algorithm::pcr
  cr_pcr,       ///< cyclic::solve with Algorithm::cr_pcr
  pivoting      ///< pivoting::solve: partial pivoting (LAPACK ?gtsv), any non-singular matrix
};

inline const char* name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::automatic: return "automatic";
    case Algorithm::thomas: return "thomas";
    case Algorithm::partitioned: return "partitioned";
    case Algorithm::cr: return "cr";
    case Algorithm::pcr: return "pcr";
    case Algorithm::cr_pcr: return "cr_pcr";
    case Algorithm::pivoting: return "pivoting";
  }
  return "unknown";
}

namespace impl {
template <class Layout>
constexpr bool interleaved_family = std::is_same_v<Layout, layouts::Interleaved> ||
                                    std::is_same_v<Layout, layouts::UnifiedVector> ||
                                    (Layout::system_granularity >= 32);
}

/// The algorithm Algorithm::automatic picks for `systems` systems of `n` rows in Layout on
/// ExecSpace. Only solvers without pivoting are chosen: they assume diagonally dominant or SPD
/// matrices, as every caller of a batched tridiagonal solver in a simulation has; ask for
/// Algorithm::pivoting explicitly otherwise.
template <class ExecSpace, class Layout>
Algorithm automatic_algorithm(const ExecSpace& exec, index_type systems, index_type n) {
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host) {
    // One system per thread while there are systems for every thread; a few long systems are
    // split across threads instead (partitioned::plan), else most cores idle.
    const index_type threads = exec.concurrency();
    return systems >= threads || n < 64 ? Algorithm::thomas : Algorithm::partitioned;
  }
  // GPU. H100, commit 770c66c (docs/performance.md, "Latest measurements"): one thread per
  // system on an interleaved layout leaves the GPU idle below ~25,600 systems (0.88 ms at
  // 2,560 x 512 against 0.046 ms for the partitioned solver on the flat layout) and reaches 51% of
  // copy bandwidth at 256,000 systems, where the partitioned solver reaches 77-80% on the flat
  // layout but only 24-37% on the interleaved one (its coalesced staging needs each system's
  // rows contiguous). Long systems always need several threads per system.
  if (n > 4096) return Algorithm::partitioned;
  if (impl::interleaved_family<Layout>) return systems >= 25600 ? Algorithm::thomas : Algorithm::partitioned;
  return Algorithm::partitioned;
}

}  // namespace tridiag
