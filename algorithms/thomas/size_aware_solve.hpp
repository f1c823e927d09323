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
// The arithmetic is the Thomas core's (serial_thomas.hpp), run in lockstep per group (see impl
// below), so results are bitwise equal to thomas::solve_padded / solve_ragged (NCP) and CP of the
// same systems. Traffic: 9 values per real unknown, nothing for padding.
// Measured (H100, commit 86f169d + this change, `tridiag-bench vbatch --exec cuda`), time over CP's,
// sizes uniform in 256..512: double 0.84 (256,000 systems), 0.98 (25,600), 1.0 (2,560); float
// 0.95, 1.04, 0.89. Sizes 1..512: 0.60-0.97. Where all threads are resident at once (few systems,
// or float) time follows the longest system whatever the order; NCP on padded interleaved storage
// took 3-7x CP's time (its lanes split).

#include <Kokkos_Core.hpp>
#include <string>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <type_traits>

namespace tridiag::thomas {

namespace impl {
// Lockstep. The threads of a group run the Thomas core for the group's largest size m, rows
// n..m-1 of a smaller system being virtual identity rows (a = c = d = 0, b = 1, and c(n-1) = 0 to
// cut the coupling, as layouts::pad_matrix does for CP) that are neither loaded nor stored. A warp
// then never splits into lanes sweeping forward and lanes sweeping back, which would break the
// coalescing of its loads (measured on an H100: NCP on padded interleaved storage, whose lanes
// do split, takes 3-7x CP's time). The real rows get the same operations as NCP (bitwise equal).

/// Read-only rows: row i < n from storage, else `fill`.
template <class Scalar>
struct VirtualPaddedRows {
  const Scalar* data;
  index_type stride, n;
  Scalar fill;
  KOKKOS_FORCEINLINE_FUNCTION Scalar operator()(index_type i) const { return i < n ? data[i * stride] : fill; }
};
/// Written rows: row i < n in storage, else a per-thread sink (the padding is never stored).
template <class Scalar>
struct SinkPaddedRows {
  Scalar* data;
  index_type stride, n;
  Scalar* sink;
  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type i) const { return i < n ? data[i * stride] : *sink; }
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
      const index_type base = plan.offset(k, 0);  // pointers formed only for a non-empty group
      Value x_sink = Value(0);
      Matrix g_sink = Matrix(0);
      code = SerialThomas::invoke(m, VirtualPaddedRows<Matrix>{a.data() + base, w, n, Matrix(0)},
                                  VirtualPaddedRows<Matrix>{b.data() + base, w, n, Matrix(1)},
                                  VirtualPaddedRows<Matrix>{c.data() + base, w, n - 1, Matrix(0)},
                                  VirtualPaddedRows<Value>{d.data() + base, w, n, Value(0)},
                                  SinkPaddedRows<Value>{x.data() + base, w, n, &x_sink},
                                  SinkPaddedRows<Matrix>{g.data() + base, w, n, &g_sink});
    }
    if (status.data() != nullptr) status(plan.system(k)) = code;
  }
};
}  // namespace impl

/// Solves every system of a size-grouped variable batch, one thread per system. All vectors must
/// share one plan (the same SizeGroupedPlan object or a copy of it); x may be rhs. `status`
/// (optional) is indexed by system, in the caller's numbering. `workspace` (optional, same plan)
/// avoids an allocation per call. Asynchronous on exec; throws tridiag::invalid_argument before
/// any kernel runs when the vectors disagree.
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
  using Matrix = std::remove_const_t<MatrixScalar>;
  if (workspace.storage().data() != nullptr) {
    same("workspace", workspace);
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
      Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<index_type>>(exec, 0,
                                                                                                       plan.systems()),
      impl::SizeAwareThomasKernel<Vector, Vector, Vector, layouts::GroupedVector<RhsScalar, MemorySpace>,
                                  layouts::GroupedVector<std::remove_const_t<RhsScalar>, MemorySpace>,
                                  layouts::GroupedVector<Matrix, MemorySpace>, StatusView<MemorySpace>>{
          lower, diag, upper, rhs, x, workspace, status});
}

}  // namespace tridiag::thomas
