#pragma once
// The size-aware variable-batch Thomas solver, the third variant beside CP and NCP
// (thomas_solve.hpp): one thread per system over size-grouped storage (layouts::SizeGroupedPlan,
// layouts/variable_batch.hpp). Threads are numbered by position in the plan (systems sorted by
// size, largest first), so the threads of a warp hold one group of similar sizes, read it
// coalesced and stop at nearly the same row: time follows the mean size, not the largest one.
//
// Usage, with the plan built once and reused for every time step:
//   layouts::SizeGroupedPlan<M> plan(sizes);                         // host, O(systems log systems)
//   layouts::GroupedVector<double, M> a("a", plan), ..., x("x", plan);
//   // assemble into v(plan.position(s), i), or layouts::pack(exec, ragged, v) from ragged storage
//   thomas::solve_size_aware(exec, a, b, c, d, x, status);          // status indexed by system s
//
// The arithmetic is the Thomas core's (serial_thomas.hpp), run in lockstep per group
// (lockstep_rows.hpp), so results are bitwise equal to thomas::solve_padded / solve_ragged (NCP) and CP of the
// same systems. Traffic: 9 values per real unknown, nothing for padding.
// Measured (H100, commit 86f169d + this change, `tridiag-bench vbatch --exec cuda`), time over CP's,
// sizes uniform in 256..512: double 0.84 (256,000 systems), 0.98 (25,600), 1.0 (2,560); float
// 0.95, 1.04, 0.89. Sizes 1..512: 0.60-0.97. Where all threads are resident at once (few systems,
// or float) time follows the longest system whatever the order; NCP on padded interleaved storage
// took 3-7x CP's time (its lanes split).

#include <Kokkos_Core.hpp>
#include <string>
#include <tridiag/algorithms/thomas/lockstep_rows.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <type_traits>

namespace tridiag::thomas {

namespace impl {
/// Rows of one system in group-interleaved storage: row i at data[i * stride].
template <class Scalar>
struct StridedRows {
  Scalar* data;
  index_type stride;
  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type i) const { return data[i * stride]; }
};

/// Kernel of solve_size_aware: position k, system plan.system(k). A named functor
/// (core/kokkos_compat.hpp).
template <class A, class B, class C, class D, class X, class G, class Status>
struct SizeAwareThomasKernel {
  A a;
  B b;
  C c;
  D d;
  X x;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    using Matrix = typename G::value_type;
    using Value = typename X::value_type;
    const auto& plan = b.plan();
    const index_type n = plan.rows(k), m = plan.group_rows(k), w = plan.group_width();
    int code = status_code::ok;
    if (m > 0) {
      // The group's threads run in lockstep for its largest size m (lockstep_rows.hpp). Pointers
      // are formed only for a non-empty group.
      const index_type base = plan.offset(k, 0);
      code = lockstep_thomas(m, n, StridedRows<const Matrix>{a.data() + base, w},
                             StridedRows<const Matrix>{b.data() + base, w}, StridedRows<const Matrix>{c.data() + base, w},
                             StridedRows<const typename D::value_type>{d.data() + base, w},
                             StridedRows<Value>{x.data() + base, w}, StridedRows<Matrix>{g.data() + base, w});
    }
    if (status.data() != nullptr) status(plan.system(k)) = code;
  }
};
}  // namespace impl

/// Solves every system of a size-grouped variable batch, one thread per system. All vectors must
/// share one plan (the same SizeGroupedPlan object or a copy of it); x may be rhs (in place).
/// `status` (optional) is indexed by system, in the caller's numbering. `workspace` (optional,
/// same plan) avoids an allocation per call. Asynchronous on exec; throws
/// tridiag::invalid_argument before any kernel runs when the vectors disagree, when x shares
/// storage with a diagonal or overlaps rhs without being it, or when the workspace shares storage
/// with the diagonals, rhs or x (as thomas::solve: the Thomas core writes x(i) before it reads
/// upper(i), and reads x and the workspace back).
template <class ExecSpace, class MatrixScalar, class RhsScalar, class MemorySpace>
void solve_size_aware(const ExecSpace& exec, const layouts::GroupedVector<MatrixScalar, MemorySpace>& lower,
                      const layouts::GroupedVector<MatrixScalar, MemorySpace>& diag,
                      const layouts::GroupedVector<MatrixScalar, MemorySpace>& upper,
                      const layouts::GroupedVector<RhsScalar, MemorySpace>& rhs,
                      const layouts::GroupedVector<std::remove_const_t<RhsScalar>, MemorySpace>& x,
                      const StatusView<MemorySpace>& status = {},
                      layouts::GroupedVector<std::remove_const_t<MatrixScalar>, MemorySpace> workspace = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve_size_aware: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve_size_aware";
  const auto& plan = diag.plan();
  auto same = [&](const char* name, const auto& v) {
    require(v.plan().order().data() == plan.order().data() && v.systems() == plan.systems(), where, name,
            " does not share the diagonal's SizeGroupedPlan (", v.systems(), " vs ", plan.systems(), " systems)");
  };
  same("lower", lower);
  same("upper", upper);
  same("rhs", rhs);
  same("x", x);
  tridiag::impl::check_status(where, status, plan.systems());
  tridiag::impl::check_status_rows(where, status, plan.largest());
  const tridiag::impl::Diagonals<layouts::GroupedVector<MatrixScalar, MemorySpace>> matrix{lower, diag, upper};
  tridiag::impl::check_x_apart(where, matrix, rhs, x);
  using Matrix = std::remove_const_t<MatrixScalar>;
  if (workspace.storage().data() != nullptr) {
    same("workspace", workspace);
    tridiag::impl::check_workspace_apart(where, "the workspace", workspace, matrix, rhs, x);
  } else {
    workspace = layouts::GroupedVector<Matrix, MemorySpace>(
        typename layouts::GroupedVector<Matrix, MemorySpace>::storage_type(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::thomas::workspace"), plan.required_span()),
        plan);
  }
  if (plan.systems() == 0) return;
  using Vector = layouts::GroupedVector<MatrixScalar, MemorySpace>;
  // Dynamic schedule: on host cores a static split of the sorted order would hand the first
  // thread all the largest systems. CUDA ignores it (a block per 32 x k positions).
  Kokkos::parallel_for(
      "tridiag::thomas::solve_size_aware",
      compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<index_type>>(
          exec, 0, plan.systems())),
      impl::SizeAwareThomasKernel<Vector, Vector, Vector, layouts::GroupedVector<RhsScalar, MemorySpace>,
                                  layouts::GroupedVector<std::remove_const_t<RhsScalar>, MemorySpace>,
                                  layouts::GroupedVector<Matrix, MemorySpace>, StatusView<MemorySpace>>{
          lower, diag, upper, rhs, x, workspace, status});
}

}  // namespace tridiag::thomas
