#pragma once
// Status codes are int row numbers: every solve given a status View must reject systems of more
// than INT_MAX rows before it reads or writes anything. The checks here build such batches on
// host memory mapped read-only without reserve (unreserved_mapping.hpp): never touched, and a
// regressed check crashes on its first store instead of writing gigabytes. Device spaces skip.
#include <climits>
#include <string>

#include <tridiag/core/status.hpp>

#include "test_support.hpp"
#include "unreserved_mapping.hpp"

namespace tridiag::test {

/// What the rejection says (core/status.hpp, check_status_rows).
inline const std::string status_rows_rejected = "cannot name their rows";

/// Rows of the one system of the checks: one more than a status code can name.
inline constexpr index_type rows_beyond_int_max = index_type(INT_MAX) + 1;

/// Calls check(system, spare, status) with two read-only MappedFlatSystem<float> of one system of
/// rows_beyond_int_max rows (system: a matrix and a right-hand side; spare: memory for a
/// factorization's two vectors, as its matrix() diagonal and rhs()) and a status View of one
/// entry. Skips on device spaces and where the mappings are refused.
template <class MemorySpace, class Check>
void with_a_system_beyond_int_max_rows(const Check& check) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    GTEST_SKIP() << "host execution spaces only";
  } else {
    const MappedFlatSystem<float, MemorySpace> system(1, rows_beyond_int_max, Access::read_only),
        spare(1, rows_beyond_int_max, Access::read_only);
    if (!system.ok() || !spare.ok()) GTEST_SKIP() << "cannot map 4 x 8 GiB";
    StatusView<MemorySpace> status("status", 1);
    check(system, spare, status);
  }
}

/// The ragged form: solve(matrix, rhs, status) on that system as a ragged batch of one system
/// must throw tridiag::invalid_argument saying that a status code cannot name its rows.
template <class MemorySpace, class Solve>
void expect_ragged_status_beyond_int_max_rejected(const Solve& solve) {
  with_a_system_beyond_int_max_rows<MemorySpace>([&](const auto& system, const auto&, const auto& status) {
    const auto batch = system.ragged();
    expect_invalid_argument([&] { solve(batch.diagonals, batch.rhs, status); }, status_rows_rejected);
  });
}

}  // namespace tridiag::test
