#pragma once
// Host entry point of the one-thread-per-system pivoting solver (LAPACK ?gtsv on every system):
//   pivoting::solve(exec, matrix, rhs, x, status, workspace)
// For tridiagonal matrices that are not diagonally dominant (or SPD), where thomas::solve may
// break down or lose accuracy: indefinite and random matrices, zero diagonal entries. For
// diagonally dominant matrices thomas::solve gives the same accuracy with less traffic.
// Any layout; as for Thomas, Interleaved or BlockInterleaved<32> on GPUs (a warp's 32 systems read
// one cache line per row), BlockInterleaved or Flat on host cores. Asynchronous on `exec` (no
// hidden fence); shapes are validated on the host first and tridiag::invalid_argument is thrown
// before anything is written.

#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/pivoting/serial_gtsv.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/core/vector_workspace.hpp>

namespace tridiag::pivoting {

/// Scratch of pivoting::solve: the upper triangular factor U of every system, three BatchVectors
/// of the batch's layout and shape (?gtsv's D, DU and DL on exit). The eliminated right-hand side
/// needs no scratch: it lives in x. 3 matrix scalars per row; rows n-1 are never written.
template <class Matrix, class Layout, class MemorySpace>
struct BandWorkspace : VectorWorkspace<BandWorkspace<Matrix, Layout, MemorySpace>, Matrix, Layout, MemorySpace> {
  using base = VectorWorkspace<BandWorkspace, Matrix, Layout, MemorySpace>;
  using vector_type = typename base::vector_type;
  vector_type diag;    ///< U(i,i), the pivots
  vector_type upper;   ///< U(i,i+1)
  vector_type upper2;  ///< U(i,i+2), nonzero only where rows i and i+1 were interchanged

  BandWorkspace() = default;
  /// Allocates (uninitialised: every element read is written first) for `systems` x `rows`.
  BandWorkspace(const std::string& label, index_type systems, index_type rows)
      : BandWorkspace(label, Layout(systems, rows)) {}
  BandWorkspace(const std::string& label, const Layout& map)
      : diag(base::allocate("pivoting::Workspace", label + "_diag", map)),
        upper(base::allocate("pivoting::Workspace", label + "_upper", map)),
        upper2(base::allocate("pivoting::Workspace", label + "_upper2", map)) {}

  /// The vectors, named as the checks of a solve name them (core/vector_workspace.hpp).
  std::array<std::pair<const char*, const vector_type*>, 3> named_vectors() const {
    return {{{"workspace.diag", &diag}, {"workspace.upper", &upper}, {"workspace.upper2", &upper2}}};
  }
};

/// The workspace type of a solve with matrix scalar MatrixScalar (const or not).
template <class MatrixScalar, class Layout, class MemorySpace>
using Workspace = BandWorkspace<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>;

/// Bytes of workspace a solve of `systems` x `rows` allocates when none is passed.
template <class MatrixScalar, class Layout>
index_type workspace_bytes(index_type systems, index_type rows) {
  return 3 * Layout(systems, rows).required_span() * static_cast<index_type>(sizeof(MatrixScalar));
}

namespace impl {
/// Kernel of pivoting::solve (a functor, see "Kernels are functors" in core/kokkos_compat.hpp).
template <class A, class B, class C, class D, class X, class U, class Status>
struct GtsvKernel {
  index_type n;
  A a;
  B b;
  C c;
  D d;
  X x;
  U u0, u1, u2;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int code = SerialGtsv::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s), rows_of(x, s),
                                        rows_of(u0, s), rows_of(u1, s), rows_of(u2, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
}  // namespace impl

/// Solves A x = rhs for every system of the batch by Gaussian elimination with partial pivoting
/// (LAPACK ?gtsv; SerialGtsv), one thread per system. The matrix is only read. Matrix scalars:
/// float or double; rhs and x: the same, or Kokkos::complex of it. x may be the same BatchVector
/// as rhs (in place); an x or workspace vector sharing storage with anything else the solve reads
/// or writes is rejected (tridiag::invalid_argument). `status` (optional, one int per system) gets each system's code: 0, k > 0
/// when U(k,k) is exactly zero (singular, ?gtsv's INFO) or a pivot candidate is not finite, -k for
/// a non-finite solution (SerialGtsv says which row k names); a failed system's x is NaN and the
/// other systems are unaffected. `workspace` (optional) avoids an allocation per call: pass a
/// Workspace of the batch's shape (3 matrix scalars per row, workspace_bytes) in a time loop.
/// Memory traffic: 13 values per row (Thomas: 9).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {},
           Workspace<MatrixScalar, Layout, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "pivoting::solve: the batch's memory space is not accessible from ExecSpace");
  static_assert(is_real_scalar_v<std::remove_const_t<MatrixScalar>>,
                "pivoting::solve: the matrix scalar must be float or double (pivoting compares magnitudes)");
  static_assert(is_rhs_scalar_of_v<std::remove_const_t<RhsScalar>, std::remove_const_t<MatrixScalar>>,
                "pivoting::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it");
  constexpr const char* where = "pivoting::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  workspace = tridiag::impl::checked_workspace(where, "tridiag::pivoting::workspace", matrix, rhs, x, workspace);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  if (nsys == 0) return;
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  const auto u0 = workspace.diag, u1 = workspace.upper, u2 = workspace.upper2;
  Kokkos::parallel_for(
      "tridiag::pivoting::solve", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys),
      impl::GtsvKernel<decltype(a), decltype(b), decltype(c), BatchVector<RhsScalar, Layout, MemorySpace>,
                       BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>, decltype(u0),
                       StatusView<MemorySpace>>{n, a, b, c, rhs, x, u0, u1, u2, status});
}

}  // namespace tridiag::pivoting
