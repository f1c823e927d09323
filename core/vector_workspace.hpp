#pragma once
// A solver's workspace of several batch vectors of the batch's shape, in matrix scalars
// (periodic::Workspace: z and g; pivoting::Workspace: U's three diagonals): VectorWorkspace, the
// base that allocates them uninitialised and answers for their shape, and checked_workspace, the
// host step of every solve that takes one: the caller's workspace after its checks, or a fresh one.

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag {

/// Base of a workspace Derived whose members are BatchVectors of one type. Derived lists them in
/// named_vectors(), a std::array of {name in error messages, address}; the first answers
/// systems(), rows() and allocated().
template <class Derived, class Matrix, class Layout, class MemorySpace>
struct VectorWorkspace {
  using vector_type = BatchVector<Matrix, Layout, MemorySpace>;
  using layout_type = Layout;

  index_type systems() const { return first().systems(); }
  index_type rows() const { return first().rows(); }
  /// False for a default-constructed (empty) workspace.
  bool allocated() const { return first().storage().data() != nullptr; }

 protected:
  /// One vector of `map`, uninitialised: the solver writes every element before it reads it.
  /// `where` names the workspace in the message of a bad extent.
  static vector_type allocate(const char* where, const std::string& label, const Layout& map) {
    impl::check_extents(where, map);
    return allocate_uninitialized<vector_type>(label, map);
  }

 private:
  const vector_type& first() const { return *static_cast<const Derived&>(*this).named_vectors()[0].second; }
};

namespace impl {
/// The workspace a solve runs on: the caller's, once none of its vectors shares storage with the
/// matrix, rhs, x or another of its vectors and each has the matrix's shape (else
/// tridiag::invalid_argument, in that order, naming the vectors); or, when the caller passed none
/// (allocated() false), a fresh uninitialised one labelled `label`.
template <class Workspace, class Matrix, class Rhs, class X>
Workspace checked_workspace(const char* where, const char* label, const Matrix& matrix, const Rhs& rhs, const X& x,
                            const Workspace& given) {
  if (!given.allocated())
    return Workspace(label, typename Workspace::layout_type(matrix.systems(), matrix.rows()));
  const auto vectors = given.named_vectors();
  for (const auto& [name, vector] : vectors) check_workspace_apart(where, name, *vector, matrix, rhs, x);
  for (std::size_t i = 0; i < vectors.size(); ++i)
    for (std::size_t j = i + 1; j < vectors.size(); ++j)
      require_apart(where, vectors[i].first, *vectors[i].second, vectors[j].first, *vectors[j].second);
  for (const auto& [name, vector] : vectors) require_same_shape(where, name, *vector, "matrix", matrix.diag);
  return given;
}
}  // namespace impl

}  // namespace tridiag
