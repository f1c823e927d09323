#pragma once
// Status codes are int row numbers: every solve given a status View must reject systems of more
// than INT_MAX rows before it reads or writes anything. The checks here build such batches on
// mapped, untouched host memory (unreserved_mapping.hpp); device spaces skip.
#include <climits>

#include <tridiag/core/status.hpp>

#include "test_support.hpp"
#include "unreserved_mapping.hpp"

namespace tridiag::test {

/// One ragged system of 2^31 rows in float (its diagonals one mapped vector, its right-hand side
/// another, solved in place): solve(matrix, rhs, status) must throw tridiag::invalid_argument
/// saying that a status code cannot name its rows.
template <class MemorySpace, class Solve>
void expect_ragged_status_beyond_int_max_rejected(const Solve& solve) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    GTEST_SKIP() << "host execution spaces only";
  } else {
    const MappedFlatSystem<float, MemorySpace> mapped(1, index_type(INT_MAX) + 1, Access::read_only);
    if (!mapped.ok()) GTEST_SKIP() << "cannot map 2 x 8 GiB";
    const auto batch = mapped.ragged();
    StatusView<MemorySpace> status("status", 1);
    expect_invalid_argument([&] { solve(batch.diagonals, batch.rhs, status); }, "cannot name their rows");
  }
}

}  // namespace tridiag::test
