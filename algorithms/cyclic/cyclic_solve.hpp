#pragma once
// Host entry of the team-per-system cyclic solvers (CR, PCR, CR-PCR):
//   cyclic::solve(exec, matrix, rhs, x, status, algorithm)
// One team per system (TeamPolicy, league = systems): the team loads its system into team scratch
// (level 0) once, solves there and writes x once. Any layout (one source, written against the
// row accessor); Flat is best (a team then reads one contiguous system). The whole system must fit
// in team scratch: cyclic::scratch_bytes tells how much a system of n rows needs and
// cyclic::scratch_capacity how much the execution space offers; longer systems are for the
// partitioned solver. Asynchronous on `exec` (no hidden fence); shapes and sizes are validated on
// the host first and tridiag::invalid_argument is thrown before anything is written.
//
// When to use which (STYLE 5): thomas::solve (one thread per system) is the fastest wherever the
// batch alone fills the device: many systems on a GPU, and on host cores. The cyclic solvers are
// for a GPU with too few systems for that (fewer than about the device's resident thread count):
// they put up to n/2 threads on each system. On host spaces the teams are one thread each (see
// impl::team_size_for); there CR runs within 2x of Thomas and CR-PCR and PCR far slower (2000
// systems, n = 256, double, Serial, 2026-11-28 on the development machine: Thomas 2.1 ms, CR 4.3,
// CR-PCR 9.9, PCR 35.9 ms), PCR being O(n log n). CR is the default: the fastest of the three on
// the H100 too (docs/performance.md), and the only one that is backward stable on weakly
// diagonally dominant and SPD matrices (docs/numerics.md).

#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/cyclic/team_cr.hpp>
#include <tridiag/algorithms/cyclic/team_cr_pcr.hpp>
#include <tridiag/algorithms/cyclic/team_pcr.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::cyclic {

/// Which team solver cyclic::solve runs.
enum class Algorithm {
  cr,     ///< TeamCR: least work and scratch, deep levels nearly serial (default)
  pcr,    ///< TeamPCR: fewest steps, all rows busy, twice the scratch
  cr_pcr  ///< TeamCRPCR with its default threshold: CR, then PCR below 64 unknowns
};

/// "cr", "pcr" or "cr_pcr" (the tags' names; perf CSV columns).
inline const char* name(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::cr: return TeamCR::name();
    case Algorithm::pcr: return TeamPCR::name();
    case Algorithm::cr_pcr: return TeamCRPCR::name();
  }
  return "unknown";
}

/// Team scratch (bytes, level 0) that cyclic::solve requests per team for systems of n rows.
template <class MatrixScalar, class RhsScalar = MatrixScalar>
std::size_t scratch_bytes(index_type n, Algorithm algorithm = Algorithm::cr) {
  switch (algorithm) {
    case Algorithm::cr: return TeamCR::scratch_bytes<MatrixScalar, RhsScalar>(n);
    case Algorithm::pcr: return TeamPCR::scratch_bytes<MatrixScalar, RhsScalar>(n);
    case Algorithm::cr_pcr: return TeamCRPCR::scratch_bytes<MatrixScalar, RhsScalar>(n);
  }
  return 0;
}

/// Team scratch (bytes, level 0) a team of ExecSpace may request (Kokkos' scratch_size_max(0):
/// 32 KiB on host spaces and 40 KiB on CUDA in Kokkos 3.4).
template <class ExecSpace>
std::size_t scratch_capacity() {
  return static_cast<std::size_t>(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
}

namespace impl {
/// The automatic team size. GPU: the smallest power of two >= ceil(n / 2) (one thread per kept
/// row of CR's first level, two rows per thread in PCR), at most `limit`. Host spaces: 1. A
/// host team's barrier is a real rendezvous of OS threads, paid 2 log2 n times per system, while
/// the league alone keeps every core busy: 2000 systems, n = 256, double, OpenMP on 2 cores took
/// 190-450 ms with teams of 2 and 10-13 ms with teams of 1 (thomas::solve: 10-12 ms).
template <class ExecSpace>
int team_size_for(index_type n, int limit) {
  if (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) return 1;
  int size = 1;
  while (size < limit && size < (n + 1) / 2) size *= 2;
  return size > limit ? (limit > 0 ? limit : 1) : size;
}

inline int threshold_of(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::cr: return 1;
    case Algorithm::pcr: return no_failure;  // never reduce: PCR on all n rows
    case Algorithm::cr_pcr: return TeamCRPCR::default_threshold;
  }
  return 1;
}

/// Kernel of cyclic::solve: one team per system (a functor, see "Kernels are functors" in
/// core/kokkos_compat.hpp).
template <class A, class B, class C, class D, class X, class Status>
struct TeamCyclicKernel {
  index_type n;
  int threshold;
  std::size_t bytes;
  A a;
  B b;
  C c;
  D d;
  X x;
  Status status;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const index_type s = member.league_rank();
    void* scratch = member.team_scratch(0).get_shmem(bytes);
    const int code = team_cyclic_solve(member, n, threshold, rows_of(a, s), rows_of(b, s), rows_of(c, s),
                                       rows_of(d, s), rows_of(x, s), scratch);
    if (status.data() != nullptr) Kokkos::single(Kokkos::PerTeam(member), [&]() { status(s) = code; });
  }
};

inline const char* label_of(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::cr: return "tridiag::cyclic::solve_cr";
    case Algorithm::pcr: return "tridiag::cyclic::solve_pcr";
    case Algorithm::cr_pcr: return "tridiag::cyclic::solve_cr_pcr";
  }
  return "tridiag::cyclic::solve";
}
}  // namespace impl

/// Solves A x = rhs for every system of the batch, one team per system, with `algorithm`
/// (default CR: see the top of this file). The matrix scalar is float or double; rhs and x may be Kokkos::complex of it
/// (a real matrix with a complex right-hand side). x may be the same BatchVector as rhs (in place).
/// `status` (optional, one int per system) gets each system's code (core/status.hpp; the row
/// reported for a failed pivot is the one whose reduced diagonal failed first, see TeamCRPCR).
/// `team_size`: 0 (default) picks it per space: on a GPU the smallest power of two >= n/2, capped
/// by the space's team_size_max; on host spaces 1, because a host team pays a real barrier per
/// step while one-thread teams run systems in parallel (measured 20-30x faster on OpenMP, see
/// team_size_for). Any other value is used as given, capped by team_size_max.
/// Throws tridiag::invalid_argument, before writing anything, on a shape mismatch, an `algorithm`
/// that is not a value of Algorithm, or when a system of n rows does not fit in the execution
/// space's team scratch (the message names n, the bytes needed and those available).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}, Algorithm algorithm = Algorithm::cr, int team_size = 0) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "cyclic::solve: the batch's memory space is not accessible from ExecSpace");
  using Matrix = std::remove_const_t<MatrixScalar>;
  using Value = std::remove_const_t<RhsScalar>;
  static_assert(is_real_scalar_v<Matrix>, "cyclic::solve: the matrix scalar must be float or double");
  static_assert(is_rhs_scalar_of_v<Value, Matrix>,
                "cyclic::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it");
  constexpr const char* where = "cyclic::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  // An integer cast to Algorithm would get no scratch (scratch_bytes: 0) and run CR past it.
  require(algorithm == Algorithm::cr || algorithm == Algorithm::pcr || algorithm == Algorithm::cr_pcr, where,
          "unknown algorithm ", static_cast<int>(algorithm), " (not a value of cyclic::Algorithm)");
  require(team_size >= 0, where, "team_size = ", team_size, " (0 picks one; otherwise positive)");
  require(nsys <= INT_MAX, where, "batch of ", nsys, " systems exceeds the league size limit ", INT_MAX);
  const std::size_t capacity = scratch_capacity<ExecSpace>();
  require(n <= impl::max_rows, where, "a system of n = ", n, " rows does not fit in team scratch (", capacity,
          " bytes on ", ExecSpace::name(), "): use the partitioned solver for systems this long");
  const std::size_t bytes = scratch_bytes<Matrix, Value>(n, algorithm);
  require(bytes <= capacity, where, "a system of n = ", n, " rows needs ", bytes, " bytes of team scratch for ",
          name(algorithm), ", ", ExecSpace::name(), " offers ", capacity,
          " (level 0): use the partitioned solver for systems this long");
  if (nsys == 0) return;

  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int threshold = impl::threshold_of(algorithm);
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  const impl::TeamCyclicKernel<decltype(a), decltype(b), decltype(c), BatchVector<RhsScalar, Layout, MemorySpace>,
                               BatchVector<Value, Layout, MemorySpace>, StatusView<MemorySpace>>
      kernel{n, threshold, bytes, a, b, c, rhs, x, status};
  const int league = static_cast<int>(nsys);
  Policy probe(exec, league, 1);
  probe.set_scratch_size(0, Kokkos::PerTeam(bytes));
  const int team_max = probe.team_size_max(kernel, Kokkos::ParallelForTag());
  const int team = team_size > 0 ? std::min(team_size, team_max) : impl::team_size_for<ExecSpace>(n, team_max);
  auto policy = compat::light_weight(Policy(exec, league, team));
  policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
  Kokkos::parallel_for(impl::label_of(algorithm), policy, kernel);
}

}  // namespace tridiag::cyclic
