#pragma once
// Host entry point of the one-thread-per-system periodic (cyclic) tridiagonal solver:
//   periodic::solve(exec, matrix, rhs, x, status, workspace)
// Row i of system s reads, indices modulo n,
//   lower(s,i) x(s,(i-1) mod n) + diag(s,i) x(s,i) + upper(s,i) x(s,(i+1) mod n) = rhs(s,i):
// unlike every other solver, lower(s,0) (= A(0,n-1)) and upper(s,n-1) (= A(n-1,0)) ARE read
// (serial_sherman_morrison.hpp, with n = 1 and 2). Periodic boundary conditions: ring cables,
// cubic splines through closed curves, ADI sweeps on periodic grids.
// Sherman-Morrison reduction to two Thomas solves per system; stable for diagonally dominant
// matrices. Any layout (same advice as thomas::solve). Asynchronous on `exec` (no hidden fence);
// shapes are validated on the host first and tridiag::invalid_argument is thrown before anything
// is written.

#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include <tridiag/algorithms/periodic/serial_sherman_morrison.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/core/vector_workspace.hpp>

namespace tridiag::periodic {

/// Scratch of periodic::solve: two BatchVectors of the batch's layout and shape, matrix scalars.
template <class Matrix, class Layout, class MemorySpace>
struct CorrectionWorkspace
    : VectorWorkspace<CorrectionWorkspace<Matrix, Layout, MemorySpace>, Matrix, Layout, MemorySpace> {
  using base = VectorWorkspace<CorrectionWorkspace, Matrix, Layout, MemorySpace>;
  using vector_type = typename base::vector_type;
  vector_type z;  ///< z = T^-1 u, the Sherman-Morrison correction direction
  vector_type g;  ///< Thomas' modified upper diagonal of T (shared by both solves)

  CorrectionWorkspace() = default;
  /// Allocates (uninitialised: every element read is written first) for `systems` x `rows`.
  CorrectionWorkspace(const std::string& label, index_type systems, index_type rows)
      : CorrectionWorkspace(label, Layout(systems, rows)) {}
  CorrectionWorkspace(const std::string& label, const Layout& map)
      : z(base::allocate("periodic::Workspace", label + "_z", map)),
        g(base::allocate("periodic::Workspace", label + "_g", map)) {}

  /// The vectors, named as the checks of a solve name them (core/vector_workspace.hpp).
  std::array<std::pair<const char*, const vector_type*>, 2> named_vectors() const {
    return {{{"workspace.z", &z}, {"workspace.g", &g}}};
  }
};

/// The workspace type of a solve with matrix scalar MatrixScalar (const or not).
template <class MatrixScalar, class Layout, class MemorySpace>
using Workspace = CorrectionWorkspace<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>;

/// Bytes of workspace a solve of `systems` x `rows` allocates when none is passed.
template <class MatrixScalar, class Layout>
index_type workspace_bytes(index_type systems, index_type rows) {
  return 2 * Layout(systems, rows).required_span() * static_cast<index_type>(sizeof(MatrixScalar));
}

namespace impl {
/// Kernel of periodic::solve (a functor, see "Kernels are functors" in core/kokkos_compat.hpp).
template <class A, class B, class C, class D, class X, class Z, class G, class Status>
struct ShermanMorrisonKernel {
  index_type n;
  A a;
  B b;
  C c;
  D d;
  X x;
  Z z;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int code = SerialShermanMorrison::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s),
                                                   rows_of(x, s), rows_of(z, s), rows_of(g, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
}  // namespace impl

/// Solves the periodic systems A x = rhs of the batch (corners lower(s,0), upper(s,n-1) read), one
/// thread per system (SerialShermanMorrison). The matrix is only read. Matrix scalars: float or
/// double; rhs and x: the same, or Kokkos::complex of it. x may be the same BatchVector as rhs (in
/// place); an x or workspace vector sharing storage with anything else the solve reads or writes
/// is rejected (tridiag::invalid_argument). `status` (optional, one int per system) gets each system's code, as Thomas: k > 0 bad
/// pivot of the modified matrix at row k, or k = n when the Sherman-Morrison denominator
/// 1 + v^T z is zero, tiny or not finite (A singular); -k non-finite value at row k. Rounding
/// can leave the denominator of an exactly singular A near epsilon instead of zero: such a system
/// passes with a huge x (as with LAPACK's ?gesv on the dense matrix, which misses most of them
/// too), so check the residual where A may be singular. A failed
/// system's x is NaN, the other systems are unaffected. `workspace` (optional) avoids an
/// allocation per call (2 matrix scalars per row, workspace_bytes).
/// Memory traffic: 20 values per row (Thomas: 9).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {},
           Workspace<MatrixScalar, Layout, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "periodic::solve: the batch's memory space is not accessible from ExecSpace");
  static_assert(is_real_scalar_v<std::remove_const_t<MatrixScalar>>,
                "periodic::solve: the matrix scalar must be float or double");
  static_assert(is_rhs_scalar_of_v<std::remove_const_t<RhsScalar>, std::remove_const_t<MatrixScalar>>,
                "periodic::solve: the right-hand side must be the matrix scalar or Kokkos::complex of it");
  constexpr const char* where = "periodic::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  workspace = tridiag::impl::checked_workspace(where, "tridiag::periodic::workspace", matrix, rhs, x, workspace);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  if (nsys == 0) return;
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  const auto z = workspace.z, g = workspace.g;
  Kokkos::parallel_for(
      "tridiag::periodic::solve", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys),
      impl::ShermanMorrisonKernel<decltype(a), decltype(b), decltype(c), BatchVector<RhsScalar, Layout, MemorySpace>,
                                  BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>, decltype(z),
                                  decltype(g), StatusView<MemorySpace>>{n, a, b, c, rhs, x, z, g, status});
}

}  // namespace tridiag::periodic
