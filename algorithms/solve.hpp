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
// that ran.

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

template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
Algorithm solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                const StatusView<MemorySpace>& status = {}, const SolveOptions& options = {}) {
  const Algorithm algorithm = options.algorithm == Algorithm::automatic
                                  ? automatic_algorithm<ExecSpace, Layout>(exec, matrix.systems(), matrix.rows())
                                  : options.algorithm;
  switch (algorithm) {
    case Algorithm::thomas: thomas::solve(exec, matrix, rhs, x, status); break;
    case Algorithm::partitioned: partitioned::solve(exec, matrix, rhs, x, status, options.partitioned); break;
    case Algorithm::cr: cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::cr, options.team_size); break;
    case Algorithm::pcr: cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::pcr, options.team_size); break;
    case Algorithm::cr_pcr:
      cyclic::solve(exec, matrix, rhs, x, status, cyclic::Algorithm::cr_pcr, options.team_size);
      break;
    case Algorithm::pivoting: pivoting::solve(exec, matrix, rhs, x, status); break;
    case Algorithm::automatic: break;  // resolved above
    default:  // e.g. an integer from a configuration file cast to Algorithm: nothing would be solved
      require(false, "tridiag::solve", "unknown algorithm ", static_cast<int>(algorithm),
              " (not a value of tridiag::Algorithm)");
  }
  return algorithm;
}

}  // namespace tridiag
