#pragma once
// TridiagonalBatch: the matrices of a batch of tridiagonal systems, one BatchVector per diagonal.
// Row i of system s reads
//     lower(s, i) * x(i-1) + diag(s, i) * x(i) + upper(s, i) * x(i+1) = rhs(s, i),
// so lower(s, 0) and upper(s, n-1) lie outside the matrix: the solvers of tridiagonal systems
// never read them (LAPACK keeps dl and du one shorter instead; storing n of each keeps every
// layout's rows aligned). periodic::solve reads them as the corners A(0, n-1) and A(n-1, 0).

#include <string>
#include <utility>

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/status.hpp>

namespace tridiag {

namespace impl {
/// Throws unless the lower and upper diagonals have the diagonal's shape: the solvers index all
/// three through the diagonal's shape, and the diagonals are public members (one assigned after
/// construction is checked again by every solver).
template <class Matrix>
void check_diagonal_shapes(const char* where, const Matrix& matrix) {
  require_same_shape(where, "the matrix's lower diagonal", matrix.lower, "its diagonal", matrix.diag);
  require_same_shape(where, "the matrix's upper diagonal", matrix.upper, "its diagonal", matrix.diag);
}
}  // namespace impl

template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct TridiagonalBatch {
  using scalar_type = Scalar;
  using layout_type = Layout;
  using memory_space = MemorySpace;
  using vector_type = BatchVector<Scalar, Layout, MemorySpace>;

  vector_type lower, diag, upper;

  TridiagonalBatch() = default;

  /// Wraps three diagonals of one shape (throws tridiag::invalid_argument otherwise).
  TridiagonalBatch(const vector_type& lower_, const vector_type& diag_, const vector_type& upper_)
      : lower(lower_), diag(diag_), upper(upper_) {
    impl::check_diagonal_shapes("TridiagonalBatch", *this);
  }

  /// Allocates the three diagonals (zero-initialised).
  TridiagonalBatch(const std::string& label, index_type systems, index_type rows)
      : lower(label + "_lower", systems, rows), diag(label + "_diag", systems, rows),
        upper(label + "_upper", systems, rows) {}

  /// A batch of non-const scalars converts to one of const scalars.
  template <class Other, class = std::enable_if_t<std::is_same_v<std::add_const_t<Other>, Scalar> &&
                                                  !std::is_same_v<Other, Scalar>>>
  TridiagonalBatch(const TridiagonalBatch<Other, Layout, MemorySpace>& other)
      : lower(other.lower), diag(other.diag), upper(other.upper) {}

  index_type systems() const { return diag.systems(); }
  index_type rows() const { return diag.rows(); }
};

namespace impl {
/// Throws unless `written` (a vector the solve writes: x or a workspace vector) shares no storage
/// with the matrix, whose diagonals every solver reads after it has written some of x (Thomas
/// reads upper(i) after writing x(i); periodic's second sweep rereads the whole matrix).
template <class Matrix, class W>
void check_apart_from_matrix(const char* where, const char* name, const W& written, const Matrix& matrix) {
  require_apart(where, name, written, "the matrix's lower diagonal", matrix.lower);
  require_apart(where, name, written, "the matrix's diagonal", matrix.diag);
  require_apart(where, name, written, "the matrix's upper diagonal", matrix.upper);
}

/// Throws unless a workspace vector the caller passed shares no storage with the matrix, rhs or x
/// (a workspace that is x or rhs gave wrong results with status 0).
template <class Matrix, class Rhs, class X, class W>
void check_workspace_apart(const char* where, const char* name, const W& workspace, const Matrix& matrix,
                           const Rhs& rhs, const X& x) {
  check_apart_from_matrix(where, name, workspace, matrix);
  require_apart(where, name, workspace, "rhs", rhs);
  require_apart(where, name, workspace, "x", x);
}

/// The diagonals of a matrix that an entry point takes one by one (the variable-batch solvers:
/// RaggedVector, GroupedVector), seen as a matrix by the checks here (they read .lower, .diag and
/// .upper).
template <class Vector>
struct Diagonals {
  const Vector& lower;
  const Vector& diag;
  const Vector& upper;
};

/// Throws unless x shares no storage with the matrix and overlaps rhs only by being it (in place).
template <class Matrix, class Rhs, class X>
void check_x_apart(const char* where, const Matrix& matrix, const Rhs& rhs, const X& x) {
  check_apart_from_matrix(where, "x", x, matrix);
  require_in_place_or_apart(where, x, rhs);
}

/// The host-boundary checks every fixed-batch solver starts with: the three diagonals, rhs and x
/// have one shape (check_diagonal_shapes), the status (if given) one entry per system and systems
/// whose rows it can name (status codes are int row numbers: beyond INT_MAX rows they would wrap,
/// to 0 among others), and x shares no storage with the matrix and overlaps rhs only by being it
/// (in place). Throws tridiag::invalid_argument.
template <class Matrix, class Rhs, class X, class MemorySpace>
void check_solve_arguments(const char* where, const Matrix& matrix, const Rhs& rhs, const X& x,
                           const StatusView<MemorySpace>& status) {
  check_diagonal_shapes(where, matrix);
  require_same_shape(where, "rhs", rhs, "matrix", matrix.diag);
  require_same_shape(where, "x", x, "matrix", matrix.diag);
  check_status(where, status, matrix.systems());
  check_status_rows(where, status, matrix.rows());
  check_x_apart(where, matrix, rhs, x);
}
}  // namespace impl

/// A matrix batch and its right-hand side. For the Unified-Vector layout the four vectors share one
/// packed allocation (layouts/unified_vector.hpp); for every other layout they are separate.
template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct TridiagonalSystem {
  TridiagonalBatch<Scalar, Layout, MemorySpace> matrix;
  BatchVector<Scalar, Layout, MemorySpace> rhs;
};

/// Allocates a batch of `systems` tridiagonal systems of `rows` unknowns in the given layout.
template <class Layout, class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
TridiagonalSystem<Scalar, Layout, MemorySpace> allocate_system(const std::string& label, index_type systems,
                                                               index_type rows) {
  using vector = BatchVector<Scalar, Layout, MemorySpace>;
  if constexpr (std::is_same_v<Layout, layouts::UnifiedVector>) {
    using U = layouts::UnifiedVector;
    const U packed(systems, rows, U::packed_width, 0);
    impl::check_extents("allocate_system", packed);
    typename vector::storage_type storage(label + "_packed", packed.required_span());
    auto component = [&](int k) { return vector(storage, U(systems, rows, U::packed_width, k)); };
    return {{component(U::lower), component(U::diagonal), component(U::upper)}, component(U::rhs)};
  } else {
    return {TridiagonalBatch<Scalar, Layout, MemorySpace>(label, systems, rows), vector(label + "_rhs", systems, rows)};
  }
}

}  // namespace tridiag
