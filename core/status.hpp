#pragma once
// Per-system outcome of a batched solve. Device code never throws: every solver writes one int
// per system into an optional status View, and tridiag::check() turns failures into an exception
// on the host when the caller wants one.

#include <climits>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/core/errors.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag {

/// Status codes, LAPACK-INFO style:
///   0   the system was solved;
///   k>0 zero, tiny (below the smallest normal number) or non-finite pivot at row k (1-based):
///       the matrix is singular or the algorithm without pivoting broke down on it;
///   -k  a non-finite value appeared at row k (1-based) although every pivot up to there was
///       fine: non-finite input in the right-hand side, or overflow.
/// A failed system's solution is set to NaN; the other systems of the batch are unaffected.
namespace status_code {
constexpr int ok = 0;
}

/// An optional per-system status array; a default-constructed (empty) View means "do not record".
template <class MemorySpace>
using StatusView = Kokkos::View<int*, MemorySpace>;

namespace impl {
/// Host-boundary check of every solver: `status` is empty (not recorded) or has one entry per
/// system of the batch.
template <class MemorySpace>
void check_status(const char* where, const StatusView<MemorySpace>& status, index_type systems) {
  require(status.data() == nullptr || static_cast<index_type>(status.extent(0)) == systems, where, "status has ",
          status.extent(0), " entries, the batch has ", systems, " systems");
}

/// Host-boundary check of every solver that records a status, given its longest system: status
/// codes are int row numbers, so a status (if given) can name the rows of systems of at most
/// INT_MAX rows only (beyond that the codes wrapped: row 2^32 read 0, "solved"). Fixed batches
/// pass their rows (check_solve_arguments), variable batches their longest system.
template <class MemorySpace>
void check_status_rows(const char* where, const StatusView<MemorySpace>& status, index_type longest_rows) {
  require(status.data() == nullptr || longest_rows <= INT_MAX, where, "systems of up to ", longest_rows,
          " rows: a status code (an int row number) cannot name their rows; solve without a status (a failed "
          "system's x is still NaN) or split the systems");
}
}  // namespace impl

/// Human-readable meaning of one status code.
inline std::string describe_status(int code) {
  if (code == status_code::ok) return "ok";
  if (code > 0) return "zero, tiny or non-finite pivot at row " + std::to_string(code);
  return "non-finite value at row " + std::to_string(-code);
}

/// Throws tridiag::numerical_error naming (at most) the first five failed systems when any entry
/// of `status` is nonzero. Copies the status to the host (this fences).
template <class MemorySpace>
void check(const StatusView<MemorySpace>& status, const char* where = "tridiag::check") {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status);
  std::vector<index_type> failed;
  for (index_type s = 0; s < static_cast<index_type>(host.extent(0)); ++s)
    if (host(s) != status_code::ok) failed.push_back(s);
  if (failed.empty()) return;
  std::string msg = std::string(where) + ": " + std::to_string(failed.size()) + " of " +
                    std::to_string(host.extent(0)) + " systems failed";
  for (std::size_t k = 0; k < failed.size() && k < 5; ++k)
    msg += "; system " + std::to_string(failed[k]) + ": " + describe_status(host(failed[k]));
  throw numerical_error(msg);
}

}  // namespace tridiag
