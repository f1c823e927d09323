#pragma once
// Constant-coefficient batches: every row of a system has the same sub, main and super diagonal
// (a, b, c), e.g. the Poisson matrix (-1, 2, -1), so that only the right-hand side moves through
// memory. LAPACK equivalent: ?gtsv, or ?gttrf + ?gttrs without pivoting, on a Toeplitz matrix.
//
// The coefficients are a Kokkos::View<Scalar*[3]> (ConstantCoefficients, any Kokkos layout):
// coefficients(t, 0), (t, 1), (t, 2) = a, b, c of triple t. A batch of `systems` right-hand sides
// takes 1 triple (one matrix for the whole batch) or any divisor of `systems`: system s uses
// triple s % triples, so triples == systems is one matrix per system (the convention of the
// several-right-hand-sides solve in thomas_factorization.hpp).
//
//   thomas::solve_constant       the Thomas core (serial_thomas.hpp) with rows that return the
//                                constants: bitwise equal to thomas::solve on the filled-in batch.
//                                Moves d, c' and x: read d, write c' and x, read both back, write
//                                x (7 values per unknown instead of 9; a, b, c are 3 per system).
//   thomas::factorize_constant   c' and 1/w depend only on (a, b, c) and n: computed once per
//   + thomas::solve(exec, f,     triple (a batch with one triple needs one pair of arrays of length
//     rhs, x)                    n, shared by every system and served from cache). A solve then
//                                reads d, writes x, reads x, writes x (4 values per unknown), with
//                                no division; bitwise equal to solve_constant.
// Status codes as for every solver (core/status.hpp); shapes checked on the host first.

#include <Kokkos_Core.hpp>
#include <string>
#include <tridiag/algorithms/thomas/serial_thomas.hpp>
#include <tridiag/algorithms/thomas/thomas_factorization.hpp>
#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/status.hpp>
#include <tridiag/layouts/interleaved.hpp>
#include <type_traits>

namespace tridiag::thomas {

/// One (a, b, c) triple per entry: coefficients(t, 0) = a (sub), (t, 1) = b (main), (t, 2) = c
/// (super). Any rank-2 View with a static second extent of 3 is accepted; this is the usual one.
template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using ConstantCoefficients = Kokkos::View<Scalar* [3], MemorySpace>;

namespace impl {
/// Row accessor of a diagonal that is one constant: the Thomas core reads it like any other.
template <class Scalar>
struct ConstantRows {
  Scalar value;
  KOKKOS_FORCEINLINE_FUNCTION Scalar operator()(index_type) const { return value; }
};

template <class Coefficients>
constexpr void check_coefficients_type() {
  static_assert(Kokkos::is_view<Coefficients>::value && Coefficients::rank == 2 && Coefficients::static_extent(1) == 3,
                "thomas: constant coefficients must be a View<Scalar*[3]> (a, b, c per triple)");
}

/// Host-boundary checks of the constant-coefficient solves: x has rhs's shape, the triples divide
/// the systems, the status (if any) has one entry per system and systems whose rows it can name
/// (check_status_rows), and x overlaps rhs only by being it (in place).
template <class Rhs, class X, class MemorySpace>
void check_constant_arguments(const char* where, index_type triples, const Rhs& rhs, const X& x,
                              const StatusView<MemorySpace>& status) {
  require_same_shape(where, "x", x, "rhs", rhs);
  require((rhs.systems() == 0 && triples >= 0) || (triples > 0 && rhs.systems() % triples == 0), where, "rhs has ",
          rhs.systems(), " systems, not a multiple of the ", triples, " coefficient triples");
  tridiag::impl::check_status(where, status, rhs.systems());
  tridiag::impl::check_status_rows(where, status, rhs.rows());
  tridiag::impl::require_in_place_or_apart(where, x, rhs);
}

/// Kernel of solve_constant: system s, matrix triple s % triples. A named functor (core/kokkos_compat.hpp).
template <class Coefficients, class D, class X, class G, class Status>
struct ConstantThomasKernel {
  index_type n, triples;
  Coefficients coefficients;
  D d;
  X x;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    using Matrix = typename Coefficients::non_const_value_type;
    const index_type t = s % triples;
    const int code =
        SerialThomas::invoke(n, ConstantRows<Matrix>{coefficients(t, 0)}, ConstantRows<Matrix>{coefficients(t, 1)},
                             ConstantRows<Matrix>{coefficients(t, 2)}, rows_of(d, s), rows_of(x, s), rows_of(g, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
}  // namespace impl

/// Solves every system s of rhs with the constant matrix of triple s % triples, one thread per
/// system. x may be rhs (in place). `status` (optional) gets one code per system; `workspace`
/// (optional, rhs's shape) avoids an allocation per call inside a time loop. An x that shares
/// storage with the coefficients or overlaps rhs without being it, or a workspace that shares
/// storage with the coefficients, rhs or x, is rejected (tridiag::invalid_argument): every system
/// reads its triple when it starts, after other systems may have written theirs.
template <class ExecSpace, class Coefficients, class RhsScalar, class Layout, class MemorySpace>
void solve_constant(const ExecSpace& exec, const Coefficients& coefficients,
                    const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
                    const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
                    const StatusView<MemorySpace>& status = {},
                    Workspace<typename Coefficients::non_const_value_type, Layout, MemorySpace> workspace = {}) {
  impl::check_coefficients_type<Coefficients>();
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Coefficients::memory_space>::accessible,
                "thomas::solve_constant: rhs or coefficients not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve_constant";
  const index_type triples = static_cast<index_type>(coefficients.extent(0));
  impl::check_constant_arguments(where, triples, rhs, x, status);
  tridiag::impl::require_apart(where, "x", x, "the coefficients", coefficients);
  const index_type nsys = rhs.systems(), n = rhs.rows();
  using Matrix = typename Coefficients::non_const_value_type;
  using W = Workspace<Matrix, Layout, MemorySpace>;
  if (workspace.storage().data() != nullptr) {
    require_same_shape(where, "workspace", workspace, "rhs", rhs);
    tridiag::impl::require_apart(where, "the workspace", workspace, "the coefficients", coefficients);
    tridiag::impl::require_apart(where, "the workspace", workspace, "rhs", rhs);
    tridiag::impl::require_apart(where, "the workspace", workspace, "x", x);
  } else {
    workspace = allocate_uninitialized<W>("tridiag::thomas::workspace", Layout(nsys, n));
  }
  if (nsys == 0) return;
  Kokkos::parallel_for(
      "tridiag::thomas::solve_constant", compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
      impl::ConstantThomasKernel<Coefficients, BatchVector<RhsScalar, Layout, MemorySpace>,
                                 BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>, W,
                                 StatusView<MemorySpace>>{n, triples, coefficients, rhs, x, workspace, status});
}

/// Factors of a constant-coefficient batch: per triple t and row i, 1/w_i and g_i = c'_i (as in
/// thomas::Factorization), plus the triple's a. `Layout` orders the (triples x rows) factor
/// arrays: Interleaved (default) reads them coalesced when each GPU thread has its own triple;
/// with one triple every layout is one contiguous array of length n.
template <class Scalar, class Layout = layouts::Interleaved,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct ConstantFactorization {
  using vector_type = BatchVector<Scalar, Layout, MemorySpace>;
  Kokkos::View<Scalar*, MemorySpace> lower;  ///< a of each triple (set by factorize_constant)
  vector_type inverse_pivot;                 ///< 1 / w_i
  vector_type upper_factor;                  ///< g_i = c / w_i

  ConstantFactorization() = default;
  /// Storage for the factors of `triples` constant matrices of `rows` rows.
  ConstantFactorization(const std::string& label, index_type triples, index_type rows)
      : inverse_pivot(label + "_inverse_pivot", triples, rows), upper_factor(label + "_upper_factor", triples, rows) {}

  index_type triples() const { return inverse_pivot.systems(); }
  index_type rows() const { return inverse_pivot.rows(); }
  /// Bytes the factors occupy.
  index_type bytes() const {
    return (2 * inverse_pivot.mapping().required_span() + triples()) * index_type(sizeof(Scalar));
  }
};

namespace impl {
/// Kernel of factorize_constant: one thread per triple.
template <class Coefficients, class Lower, class InvW, class G, class Status>
struct ConstantFactorizeKernel {
  index_type n;
  Coefficients coefficients;
  Lower lower;
  InvW inv_w;
  G g;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type t) const {
    using Matrix = typename Coefficients::non_const_value_type;
    lower(t) = coefficients(t, 0);
    const int code = SerialThomasFactorize::invoke(
        n, ConstantRows<Matrix>{coefficients(t, 0)}, ConstantRows<Matrix>{coefficients(t, 1)},
        ConstantRows<Matrix>{coefficients(t, 2)}, rows_of(inv_w, t), rows_of(g, t));
    if (status.data() != nullptr) status(t) = code;
  }
};
/// Kernel of the factorized constant solve: system s uses the factors of triple s % triples.
template <class Lower, class InvW, class G, class D, class X, class Status>
struct ConstantSolveFactoredKernel {
  index_type n, triples;
  Lower lower;
  InvW inv_w;
  G g;
  D d;
  X x;
  Status status;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    using Matrix = typename Lower::non_const_value_type;
    const index_type t = s % triples;
    const int code = SerialThomasSolveFactored::invoke(n, ConstantRows<Matrix>{lower(t)}, rows_of(inv_w, t),
                                                       rows_of(g, t), rows_of(d, s), rows_of(x, s));
    if (status.data() != nullptr) status(s) = code;
  }
};
}  // namespace impl

/// Computes the factors of every triple for systems of factors.rows() rows; factors.triples()
/// must equal coefficients.extent(0). `status` (optional) has one entry per triple: a bad pivot at
/// row k gives k and NaN factors, whose solves then give NaN and the same status. The factors'
/// arrays (factors.lower when it is kept: allocated, of one entry per triple) may share no storage
/// with the coefficients or with each other (tridiag::invalid_argument): a triple's factors would
/// overwrite coefficients another triple has still to read, or each other.
template <class ExecSpace, class Coefficients, class Layout, class MemorySpace>
void factorize_constant(
    const ExecSpace& exec, const Coefficients& coefficients,
    ConstantFactorization<typename Coefficients::non_const_value_type, Layout, MemorySpace>& factors,
    const StatusView<MemorySpace>& status = {}) {
  impl::check_coefficients_type<Coefficients>();
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Coefficients::memory_space>::accessible,
                "thomas::factorize_constant: factors or coefficients not accessible from ExecSpace");
  constexpr const char* where = "thomas::factorize_constant";
  const index_type triples = static_cast<index_type>(coefficients.extent(0));
  require(factors.triples() == triples, where, "the factorization holds ", factors.triples(),
          " triples, the coefficients have ", triples);
  // Rows come from inverse_pivot: an upper_factor of another shape (a public member assigned
  // after construction) was written out of bounds.
  require_same_shape(where, "factors.upper_factor", factors.upper_factor, "factors.inverse_pivot",
                     factors.inverse_pivot);
  tridiag::impl::check_status(where, status, triples);
  tridiag::impl::check_status_rows(where, status, factors.rows());
  const bool keep_lower =
      factors.lower.data() != nullptr && static_cast<index_type>(factors.lower.extent(0)) == triples;
  {
    using tridiag::impl::require_apart;
    require_apart(where, "factors.inverse_pivot", factors.inverse_pivot, "the coefficients", coefficients);
    require_apart(where, "factors.upper_factor", factors.upper_factor, "the coefficients", coefficients);
    require_apart(where, "factors.inverse_pivot", factors.inverse_pivot, "factors.upper_factor", factors.upper_factor);
    if (keep_lower) {
      require_apart(where, "factors.lower", factors.lower, "the coefficients", coefficients);
      require_apart(where, "factors.lower", factors.lower, "factors.inverse_pivot", factors.inverse_pivot);
      require_apart(where, "factors.lower", factors.lower, "factors.upper_factor", factors.upper_factor);
    }
  }
  if (!keep_lower)
    factors.lower = Kokkos::View<typename Coefficients::non_const_value_type*, MemorySpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::thomas::constant_lower"), triples);
  if (triples == 0) return;
  const auto lower = factors.lower;
  const auto inv_w = factors.inverse_pivot, g = factors.upper_factor;
  Kokkos::parallel_for(
      "tridiag::thomas::factorize_constant",
      compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, triples)),
      impl::ConstantFactorizeKernel<Coefficients, decltype(lower), decltype(inv_w), decltype(g),
                                    StatusView<MemorySpace>>{factors.rows(), coefficients, lower, inv_w, g, status});
}

/// Solves with the factors of factorize_constant: system s of rhs uses triple s % triples (one
/// triple: every system shares one pair of factor arrays). x may be rhs; rhs may use any layout.
/// An x that shares storage with the factors or overlaps rhs without being it is rejected
/// (tridiag::invalid_argument): the factors of a triple are read by all of its systems.
template <class ExecSpace, class MatrixScalar, class FactorLayout, class RhsScalar, class Layout, class MemorySpace>
void solve(const ExecSpace& exec, const ConstantFactorization<MatrixScalar, FactorLayout, MemorySpace>& factors,
           const BatchVector<RhsScalar, Layout, MemorySpace>& rhs,
           const BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>& x,
           const StatusView<MemorySpace>& status = {}) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "thomas::solve: the batch's memory space is not accessible from ExecSpace");
  constexpr const char* where = "thomas::solve (constant, factorized)";
  const index_type triples = factors.triples(), n = factors.rows();
  require(factors.lower.data() != nullptr || triples == 0, where,
          "the factorization has not been computed (call thomas::factorize_constant first)");
  // The factors are public members: one assigned after factorize_constant with another shape was
  // read through inverse_pivot's shape (out-of-bounds reads, no error).
  require(triples == 0 || static_cast<index_type>(factors.lower.extent(0)) == triples, where, "factors.lower has ",
          factors.lower.extent(0), " entries, the factorization holds ", triples, " triples");
  require_same_shape(where, "factors.upper_factor", factors.upper_factor, "factors.inverse_pivot",
                     factors.inverse_pivot);
  require(rhs.rows() == n, where, "rhs has ", rhs.rows(), " rows, the factorization ", n);
  impl::check_constant_arguments(where, triples, rhs, x, status);
  impl::check_apart_from_factors(where, "x", x, factors);
  const index_type nsys = rhs.systems();
  if (nsys == 0) return;
  const auto lower = factors.lower;
  const auto inv_w = factors.inverse_pivot, g = factors.upper_factor;
  Kokkos::parallel_for("tridiag::thomas::solve_constant_factored",
                       compat::light_weight(Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, nsys)),
                       impl::ConstantSolveFactoredKernel<
                           decltype(lower), decltype(inv_w), decltype(g), BatchVector<RhsScalar, Layout, MemorySpace>,
                           BatchVector<std::remove_const_t<RhsScalar>, Layout, MemorySpace>, StatusView<MemorySpace>>{
                           n, triples, lower, inv_w, g, rhs, x, status});
}

}  // namespace tridiag::thomas
