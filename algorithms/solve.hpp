#pragma once
// tridiag::solve: one entry point for every fixed-size batch solver, with Algorithm::automatic
// choosing by execution space, layout and sizes (algorithms/automatic_choice.hpp).
//
//   auto used = tridiag::solve(exec, matrix, rhs, x, status, {tridiag::Algorithm::automatic});
//
// Same contract as each solver: asynchronous on `exec`, shapes checked first (throws
// tridiag::invalid_argument without writing), per-system status codes (core/status.hpp), x may
// be rhs but may share no storage with the matrix or otherwise overlap rhs (rejected: such an x
// gave wrong results with status 0 in Thomas, and in the periodic solver). Returns the algorithm
// that ran. A SolveWorkspace passed to every call of a time loop keeps the calls after the first
// from allocating (without one, each call allocates what its algorithm needs).

#include <tridiag/algorithms/automatic_choice.hpp>
#include <tridiag/algorithms/cyclic/cyclic_solve.hpp>
#include <tridiag/algorithms/partitioned/partitioned_solve.hpp>
#include <tridiag/algorithms/pivoting/pivoting_solve.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>

namespace tridiag {

struct SolveOptions {
  Algorithm algorithm = Algorithm::automatic;
  partitioned::Options partitioned = {};  ///< split of the partitioned solver (zeros: automatic)
  int team_size = 0;                      ///< team size of the cyclic solvers (0: automatic)
};

/// Memory tridiag::solve keeps between calls, for time loops: each algorithm's workspace, made by
/// the first call that needs it and again only when the batch's shape changes (or the partitioned
/// solver needs a larger buffer), so that calls of one shape allocate nothing after the first.
/// Thomas on host cores needs none (its c' lives in per-thread scratch) unless its systems are too
/// long for that scratch (over 64 MiB of c' each, 2^23 rows in double); the cyclic family never
/// does. The solvers' checks apply: a workspace may share no storage with the solve's vectors.
template <class Matrix, class Layout, class MemorySpace>
struct SolveWorkspace {
  thomas::Workspace<Matrix, Layout, MemorySpace> thomas;
  partitioned::Workspace<MemorySpace> partitioned;
  pivoting::Workspace<Matrix, Layout, MemorySpace> pivoting;
};

namespace impl {
/// Whether a workspace vector `w` (or pivoting's first vector) already has the batch's shape.
template <class W>
bool has_shape(const W& w, index_type systems, index_type rows) {
  return w.storage().data() != nullptr && w.systems() == systems && w.rows() == rows;
}

/// tridiag::solve with the caller's SolveWorkspace (nullptr: each solver allocates what it needs).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
Algorithm solve_with(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                     const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                     const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                     const StatusView<MemorySpace>& status, const SolveOptions& options,
                     SolveWorkspace<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>* workspace) {
  using Matrix = std::remove_const_t<MatrixScalar>;
  const index_type systems = matrix.systems(), rows = matrix.rows();
  const Algorithm algorithm = options.algorithm == Algorithm::automatic
                                  ? automatic_algorithm<ExecSpace, Layout>(exec, systems, rows)
                                  : options.algorithm;
  switch (algorithm) {
    case Algorithm::thomas:
      // A workspace exactly where thomas::solve without one would allocate it: on GPUs (whatever
      // the memory space: CUDA's managed memory is host-accessible too), and on host cores for
      // systems too long for per-thread scratch (they allocated on every call).
      if (workspace != nullptr && thomas::impl::no_workspace_kernel<ExecSpace, Matrix, Layout>(systems, rows) ==
                                      thomas::impl::NoWorkspaceKernel::workspace) {
        if (!has_shape(workspace->thomas, systems, rows))
          workspace->thomas = allocate_uninitialized<thomas::Workspace<Matrix, Layout, MemorySpace>>(
              "tridiag::solve_workspace_thomas", Layout(systems, rows));
        thomas::solve(exec, matrix, rhs, x, status, workspace->thomas);
      } else {
        thomas::solve(exec, matrix, rhs, x, status);
      }
      break;
    case Algorithm::partitioned:
      if (workspace != nullptr) {
        const std::size_t bytes = partitioned::workspace_bytes(exec, matrix, rhs, options.partitioned);
        if (workspace->partitioned.bytes() < bytes)
          workspace->partitioned = partitioned::Workspace<MemorySpace>("tridiag::solve_workspace_partitioned", bytes);
        partitioned::solve(exec, matrix, rhs, x, status, options.partitioned, workspace->partitioned);
      } else {
        partitioned::solve(exec, matrix, rhs, x, status, options.partitioned);
      }
      break;
    case Algorithm::cr: cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::cr, options.team_size); break;
    case Algorithm::pcr: cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::pcr, options.team_size); break;
    case Algorithm::cr_pcr:
      cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::cr_pcr, options.team_size);
      break;
    case Algorithm::pivoting:
      if (workspace != nullptr) {
        if (!has_shape(workspace->pivoting.diag, systems, rows))
          workspace->pivoting = pivoting::Workspace<Matrix, Layout, MemorySpace>("tridiag::solve_workspace_pivoting",
                                                                                 systems, rows);
        pivoting::solve(exec, matrix, rhs, x, status, workspace->pivoting);
      } else {
        pivoting::solve(exec, matrix, rhs, x, status);
      }
      break;
    case Algorithm::automatic: break;  // resolved above
    default:  // e.g. an integer from a configuration file cast to Algorithm: nothing would be solved
      require(false, "tridiag::solve", "unknown algorithm ", static_cast<int>(algorithm),
              " (not a value of tridiag::Algorithm)");
  }
  return algorithm;
}
}  // namespace impl

template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
Algorithm solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                const StatusView<MemorySpace>& status = {}, const SolveOptions& options = {}) {
  return impl::solve_with(exec, matrix, rhs, x, status, options,
                          static_cast<SolveWorkspace<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>*>(nullptr));
}

/// The same, keeping what the chosen algorithm needs in `workspace` between calls: in a time loop,
/// one SolveWorkspace made before the loop and passed to every call allocates on the first call
/// (and when the shape changes) only.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
Algorithm solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                const StatusView<MemorySpace>& status, const SolveOptions& options,
                SolveWorkspace<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>& workspace) {
  return impl::solve_with(exec, matrix, rhs, x, status, options, &workspace);
}

}  // namespace tridiag
