#pragma once
// Host entry points of the one-thread-per-system Thomas solver (cuThomasBatch / cuThomasVBatch):
//   thomas::solve          fixed batch, any layout (Interleaved or BlockInterleaved on GPUs,
//                          BlockInterleaved or Flat on host cores, where a thread solves a
//                          group of systems in lockstep: host_group_thomas.hpp);
//   thomas::solve_padded   variable batch in padded storage, stops at each n_s (NCP);
//   thomas::solve_ragged   variable batch in offset-indexed storage (NCP, no padding at all).
// A CP solve of a variable batch is thomas::solve on a padded batch prepared by
// layouts::pad_matrix; the size-aware variant is thomas::solve_size_aware (size_aware_solve.hpp)
// and constant-coefficient batches have thomas::solve_constant (constant_coefficients.hpp).
// All calls are asynchronous on `exec` (no hidden fence), validate shapes on the host first and
// throw tridiag::invalid_argument without writing anything on a mismatch.

#include <Kokkos_Core.hpp>
#include <climits>
#include <string>
#include <tridiag/algorithms/thomas/host_group_thomas.hpp>
#include <tridiag/algorithms/thomas/lockstep_rows.hpp>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <type_traits>

namespace tridiag::thomas {

/// Scratch needed by thomas::solve: one matrix-scalar per row (the modified upper diagonal).
template <class MatrixScalar, class Layout, class MemorySpace>
using Workspace = BatchVector<std::remove_const_t<MatrixScalar>, Layout, MemorySpace>;

/// Bytes of workspace a solve of `systems` x `rows` allocates on a GPU when none is passed (host
/// execution spaces use one system's, or one group's (host_group_thomas.hpp), worth of scratch
/// per thread instead).
template <class MatrixScalar, class Layout>
index_type workspace_bytes(index_type systems, index_type rows) {
  return Layout(systems, rows).required_span() * static_cast<index_type>(sizeof(MatrixScalar));
}

namespace impl {

/// Size of every system of a fixed batch.
struct FixedSize {
  index_type n;
  KOKKOS_FORCEINLINE_FUNCTION index_type operator()(index_type) const { return n; }
};
/// Sizes of a variable batch in offset-indexed storage, read from its offsets.
template <class Ragged>
struct RaggedSizes {
  Ragged vector;
  KOKKOS_FORCEINLINE_FUNCTION index_type operator()(index_type s) const { return vector.rows(s); }
};

/// The kernel of every Thomas entry: system s has sizes(s) rows. A named functor, not a lambda
/// (see "Kernels are functors" in core/kokkos_compat.hpp).
template <class Sizes, class A, class B, class C, class D, class X, class G, class Status>
struct ThomasKernel {
  Sizes sizes;
  A a;
  B b;
  C c;
  D d;
  X x;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int code = SerialThomas::invoke(sizes(s), rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s),
                                          rows_of(x, s), rows_of(g, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
template <class Sizes, class A, class B, class C, class D, class X, class G, class Status>
ThomasKernel<Sizes, A, B, C, D, X, G, Status> thomas_kernel(const Sizes& sizes, const A& a, const B& b, const C& c,
                                                            const D& d, const X& x, const G& g, const Status& status) {
  return {sizes, a, b, c, d, x, g, status};
}

/// The padded variable-batch kernel on GPUs: every thread runs the Thomas core for the padded
/// row count m, its system's rows beyond sizes(s) being virtual (lockstep_rows.hpp), so that the
/// lanes of a warp stay on one row and their loads stay coalesced.
template <class Sizes, class A, class B, class C, class D, class X, class G, class Status>
struct LockstepThomasKernel {
  index_type m;
  Sizes sizes;
  A a;
  B b;
  C c;
  D d;
  X x;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int code = lockstep_thomas(m, sizes(s), rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s),
                                     rows_of(x, s), rows_of(g, s));
    if (status.data() != nullptr) status(s) = code;
  }
};

template <class Sizes, class A, class B, class C, class D, class X, class G, class Status>
LockstepThomasKernel<Sizes, A, B, C, D, X, G, Status> lockstep_thomas_kernel(index_type m, const Sizes& sizes,
                                                                            const A& a, const B& b, const C& c,
                                                                            const D& d, const X& x, const G& g,
                                                                            const Status& status) {
  return {m, sizes, a, b, c, d, x, g, status};
}

/// True when ExecSpace runs on host cores (one thread per core, no warps).
template <class ExecSpace>
inline constexpr bool runs_on_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

/// Row accessor of a rank-1 View (a thread's own scratch rows).
template <class View>
struct ViewRows {
  View view;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(index_type i) const { return view(i); }
};

/// Largest per-thread scratch (g of one system: 2^23 rows in double) the host scratch kernel
/// takes; longer systems go to the workspace kernel. Kokkos 3.4's PerTeam holds an int, so
/// anything beyond INT_MAX would wrap; and each thread of the pool gets its own copy, which for
/// a few long systems would dwarf the batch itself.
inline constexpr std::size_t host_system_scratch_limit = std::size_t(64) << 20;
static_assert(host_system_scratch_limit <= static_cast<std::size_t>(INT_MAX));

/// The fixed-batch kernel on host execution spaces: one system per (one-thread) team, the
/// modified upper diagonal in the thread's team scratch. The scratch is reused by every system
/// the thread solves, so it stays in cache and never reaches memory: 5 values of memory traffic
/// per unknown (a, b, c, d read, x written; x is re-read from cache) instead of 7 with a global
/// workspace that is written back.
template <class ExecSpace, class Matrix, class A, class B, class C, class D, class X, class Status>
struct ThomasScratchKernel {
  using Scratch = Kokkos::View<Matrix*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  index_type n;
  A a;
  B b;
  C c;
  D d;
  X x;
  Status status;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const index_type s = member.league_rank();
    const Scratch g(member.team_scratch(0), n);
    const int code = SerialThomas::invoke(n, rows_of(a, s), rows_of(b, s), rows_of(c, s), rows_of(d, s), rows_of(x, s),
                                          ViewRows<Scratch>{g});
    if (status.data() != nullptr) status(s) = code;
  }
};

/// Which kernel thomas::solve runs on an execution space when the caller gives no workspace: the
/// host group kernel (host_group_thomas.hpp) or the one-system scratch kernel (ThomasScratchKernel),
/// both with c' in per-thread scratch, or else (GPUs; on host cores more than INT_MAX systems or
/// systems whose scratch exceeds the limits above) the workspace kernel, which allocates a
/// Workspace of the batch's shape on every call without one. One rule for thomas::solve and for
/// tridiag::solve's SolveWorkspace (algorithms/solve.hpp), which keeps a workspace exactly when
/// the solve would allocate one.
enum class NoWorkspaceKernel { group, one_system, workspace };
template <class ExecSpace, class Matrix, class Layout>
NoWorkspaceKernel no_workspace_kernel(index_type nsys, index_type n) {
  if constexpr (runs_on_host<ExecSpace>) {
    if (nsys <= INT_MAX) {
      using Scratch = Kokkos::View<Matrix*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
      using Group = HostGroup<Layout, Matrix>;
      if constexpr (Group::width > 0) {
        if (Scratch::shmem_size(Group::width * n) <= host_group_scratch_limit) return NoWorkspaceKernel::group;
      }
      if (Scratch::shmem_size(n) <= host_system_scratch_limit) return NoWorkspaceKernel::one_system;
    }
  }
  return NoWorkspaceKernel::workspace;
}

/// The caller's workspace after a shape check, or a fresh uninitialised one when none was given.
template <class MatrixScalar, class Layout, class MemorySpace>
Workspace<MatrixScalar, Layout, MemorySpace> workspace_for(
    const char* where, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
    const Workspace<MatrixScalar, Layout, MemorySpace>& given) {
  using W = Workspace<MatrixScalar, Layout, MemorySpace>;
  if (given.storage().data() != nullptr) {
    require_same_shape(where, "workspace", given, "matrix", matrix.diag);
    return given;
  }
  return allocate_uninitialized<W>("tridiag::thomas::workspace", Layout(matrix.systems(), matrix.rows()));
}
}  // namespace impl

/// Solves A x = rhs for every system of the batch, one thread per system (on host cores without a
/// workspace, one thread per group of systems solved in lockstep: host_group_thomas.hpp).
/// x may be the same BatchVector as rhs (in place); an x or workspace that shares storage with
/// anything else the solve reads (the matrix, rhs) is rejected (tridiag::invalid_argument).
/// `status` (optional, one int per system) gets each system's status code; `workspace` (optional)
/// avoids an allocation per call: pass a Workspace of the batch's shape when solving inside a time
/// loop.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}, Workspace<MatrixScalar, Layout, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  if (workspace.data() != nullptr)
    tridiag::impl::check_workspace_apart(where, "the workspace", workspace, matrix, rhs, x);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  if constexpr (impl::runs_on_host<ExecSpace>) {
    // Host without a caller's workspace: per-thread scratch, either a group of systems solved in
    // lockstep per thread (host_group_thomas.hpp) or one system per thread (ThomasScratchKernel),
    // by the layout (systems of more than host_system_scratch_limit bytes of g take the workspace
    // kernel below). Same arithmetic in the same order as the workspace kernel: bitwise the same
    // results.
    using Matrix = std::remove_const_t<MatrixScalar>;
    const auto kernel = impl::no_workspace_kernel<ExecSpace, Matrix, Layout>(nsys, n);
    if (workspace.storage().data() == nullptr && kernel != impl::NoWorkspaceKernel::workspace) {
      if (nsys == 0) return;
      using MatrixVector = typename TridiagonalBatch<MatrixScalar, Layout, MemorySpace>::vector_type;
      using RhsVector = BatchVector<RhsScalar, Layout, MemorySpace>;
      using XVector = BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>;
      using Group = impl::HostGroup<Layout, Matrix>;
      if constexpr (Group::width > 0) {
        using Kernel = impl::HostGroupThomasKernel<Group::width, Group::adjacent, ExecSpace, Matrix, MatrixVector,
                                                   MatrixVector, MatrixVector, RhsVector, XVector,
                                                   StatusView<MemorySpace>>;
        if (kernel == impl::NoWorkspaceKernel::group) {
          auto policy = compat::light_weight(Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(Kernel::groups(nsys)), 1));
          policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes(n)));
          Kokkos::parallel_for("tridiag::thomas::solve", policy, Kernel{nsys, n, a, b, c, rhs, x, status});
          return;
        }
      }
      using Kernel = impl::ThomasScratchKernel<ExecSpace, Matrix, MatrixVector, MatrixVector, MatrixVector,
                                               RhsVector, XVector, StatusView<MemorySpace>>;
      auto policy = compat::light_weight(Kokkos::TeamPolicy<ExecSpace>(exec, static_cast<int>(nsys), 1));
      policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::Scratch::shmem_size(n)));
      Kokkos::parallel_for("tridiag::thomas::solve", policy, Kernel{n, a, b, c, rhs, x, status});
      return;
    }
  }
  workspace = impl::workspace_for(where, matrix, workspace);
  if (nsys == 0) return;
  const auto g = workspace;
  Kokkos::parallel_for("tridiag::thomas::solve",
                       compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
                       impl::thomas_kernel(impl::FixedSize{n}, a, b, c, rhs, x, g, status));
}

/// Variable batch in padded storage, NCP: system s is solved on its first sizes(s) rows only;
/// rows at and beyond sizes(s) of x are not written (nor loaded). On GPUs the threads of a warp
/// run in lockstep to the padded row count (lockstep_rows.hpp), so the time follows the padded
/// size while the traffic follows the real sizes; on host cores each system stops at its size. `sizes`: a rank-1 View of index_type
/// (layouts::make_sizes), one entry per system, in the batch's memory space.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class Layout, class MemorySpace, class Sizes>
void solve_padded(const ExecSpace& exec, const TridiagonalBatch<MatrixScalar, Layout, MemorySpace>& matrix,
                  const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                  const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x, const Sizes& sizes,
                  const StatusView<MemorySpace>& status = {},
                  Workspace<MatrixScalar, Layout, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve_padded: the batch's memory space is not accessible from ExecSpace");
  static_assert(layouts::impl::is_sizes_view<Sizes, MemorySpace>,
                "thomas::solve_padded: sizes must be a rank-1 View of index_type in the batch's memory space");
  constexpr const char* where = "thomas::solve_padded";
  tridiag::impl::check_solve_arguments(where, matrix, rhs, x, status);
  if (workspace.data() != nullptr)
    tridiag::impl::check_workspace_apart(where, "the workspace", workspace, matrix, rhs, x);
  layouts::impl::check_padded_sizes(where, exec, matrix.diag, sizes);
  workspace = impl::workspace_for(where, matrix, workspace);
  const index_type nsys = matrix.systems(), n = matrix.rows();
  if (nsys == 0) return;
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  const auto g = workspace;
  const auto policy = compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys));
  if constexpr (impl::runs_on_host<ExecSpace>) {
    // A host thread runs alone: each system simply stops at its size.
    Kokkos::parallel_for("tridiag::thomas::solve_padded", policy, impl::thomas_kernel(sizes, a, b, c, rhs, x, g, status));
  } else {
    Kokkos::parallel_for("tridiag::thomas::solve_padded", policy,
                         impl::lockstep_thomas_kernel(n, sizes, a, b, c, rhs, x, g, status));
  }
}

/// Variable batch in offset-indexed storage (NCP without padding). All vectors share one offsets
/// View (same systems and sizes); x may be rhs (in place). An x that shares storage with a
/// diagonal or overlaps rhs without being it, or a workspace that shares storage with the
/// diagonals, rhs or x, is rejected (tridiag::invalid_argument), as by thomas::solve: Thomas
/// writes x(i) before it reads upper(i), and x and the workspace both hold values it reads back.
/// `workspace` (optional, same offsets View) avoids an allocation, and the read of the total size
/// that comes with it, per call.
template <class ExecSpace, class MatrixScalar, class RhsScalar, class MemorySpace>
void solve_ragged(const ExecSpace& exec, const layouts::RaggedVector<MatrixScalar, MemorySpace>& lower,
                  const layouts::RaggedVector<MatrixScalar, MemorySpace>& diag,
                  const layouts::RaggedVector<MatrixScalar, MemorySpace>& upper,
                  const layouts::RaggedVector<RhsScalar, MemorySpace>& rhs,
                  const layouts::RaggedVector<std::remove_const_t<RhsScalar>, MemorySpace>& x,
                  const StatusView<MemorySpace>& status = {},
                  layouts::RaggedVector<std::remove_const_t<MatrixScalar>, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve_ragged: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve_ragged";
  layouts::require_same_offsets(where, diag, std::pair{"lower", lower}, std::pair{"upper", upper},
                                std::pair{"rhs", rhs}, std::pair{"x", x});
  const bool given = workspace.storage().data() != nullptr;
  if (given) layouts::require_same_offsets(where, diag, std::pair{"workspace", workspace});
  layouts::impl::check_ragged_status(where, exec, status, diag);
  using Diagonal = layouts::RaggedVector<MatrixScalar, MemorySpace>;
  const tridiag::impl::Diagonals<Diagonal> matrix{lower, diag, upper};
  tridiag::impl::check_x_apart(where, matrix, rhs, x);
  if (given) tridiag::impl::check_workspace_apart(where, "the workspace", workspace, matrix, rhs, x);
  const index_type nsys = diag.systems();
  if (nsys == 0) return;
  using Matrix = std::remove_const_t<MatrixScalar>;
  layouts::RaggedVector<Matrix, MemorySpace> g = workspace;
  if (!given) {
    g = layouts::RaggedVector<Matrix, MemorySpace>::with_offsets_of(
        typename layouts::RaggedVector<Matrix, MemorySpace>::storage_type(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::thomas::workspace"), diag.required_span()),
        diag);
  }
  Kokkos::parallel_for(
      "tridiag::thomas::solve_ragged", compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
      impl::thomas_kernel(impl::RaggedSizes<std::remove_cv_t<std::remove_reference_t<decltype(diag)>>>{diag}, lower,
                          diag, upper, rhs, x, g, status));
}

}  // namespace tridiag::thomas
