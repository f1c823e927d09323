#pragma once
// Faults that a test injects into a measurement, so that each check of the bench has a test that
// makes it fail (bench_cli_checks.py, the injected_* cases): a check that no input can trip is
// otherwise never seen to work. Only the test binary tridiag-bench-faults injects them, as
// TRIDIAG_BENCH_FAULT says (bench_faults_injected.cpp); the installed tridiag-bench is linked with
// bench_faults_none.cpp, where every function below returns false.
//
//   TRIDIAG_BENCH_FAULT=wrong-solution:ALGORITHM   the sampled solution of each measurement of
//                                                   ALGORITHM (its CSV name) is changed before the
//                                                   oracle compares it
//   TRIDIAG_BENCH_FAULT=changed-inputs:ALGORITHM   the hines sweep: the sampled device inputs of
//                                                   ALGORITHM differ from the generated ones
//   TRIDIAG_BENCH_FAULT=unverified-copy            the copy sweep: no copy matches its source
//   TRIDIAG_BENCH_FAULT=unwritten-solution:ALGORITHM  the tridiag sweep: every timed call of
//                                                   ALGORITHM writes status 0 and no solution (a
//                                                   solver that leaves x alone)

#include <cmath>
#include <string>
#include <vector>

namespace tridiag::bench::faults {

/// Whether the sampled solution of a measurement of `algorithm` is to be made wrong.
bool wrong_solution(const std::string& algorithm);

/// Whether the sampled device inputs of a hines measurement of `algorithm` are to look changed.
bool changed_inputs(const std::string& algorithm);

/// Whether every copy of the copy reference is to fail its verification.
bool unverified_copy();

/// Whether the timed calls of a tridiag measurement of `algorithm` are to write status 0 and leave
/// the solution alone.
bool unwritten_solution(const std::string& algorithm);

/// The change that wrong_solution and changed_inputs make: the first value moves by more than any
/// error bound of the bench (1 + its magnitude).
inline void corrupt(std::vector<double>& values) {
  if (!values.empty()) values[0] += 1.0 + std::abs(values[0]);
}

}  // namespace tridiag::bench::faults
