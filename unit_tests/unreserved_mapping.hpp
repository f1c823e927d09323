#pragma once
// Host memory for tests of very large batches: an anonymous mapping without reserve, so that only
// the pages a test touches cost memory (the checks that reject or reroute such batches read a
// few rows at most).

#include <sys/mman.h>

#include <cstddef>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/layouts/variable_batch.hpp>
#include <vector>

namespace tridiag::test {

/// Whether a test may write its mapping. Tests that expect a check to reject the batch map it
/// read-only: should the check ever regress, the solve then crashes on its first store instead of
/// writing gigabytes.
enum class Access { read_write, read_only };

/// `bytes` of zero-filled host memory, unmapped on destruction; data() is nullptr when the system
/// refuses the mapping (the test should then skip).
class UnreservedMapping {
 public:
  explicit UnreservedMapping(std::size_t bytes, Access access = Access::read_write) : bytes_(bytes) {
    const int protection = access == Access::read_only ? PROT_READ : PROT_READ | PROT_WRITE;
    void* p = mmap(nullptr, bytes, protection, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : p;
  }
  ~UnreservedMapping() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  UnreservedMapping(const UnreservedMapping&) = delete;
  UnreservedMapping& operator=(const UnreservedMapping&) = delete;

  template <class T>
  T* data() const {
    return static_cast<T*>(data_);
  }

 private:
  std::size_t bytes_;
  void* data_;
};

/// A Flat batch of `systems` x `rows` in host memory over two unreserved mappings: a matrix whose
/// three diagonals are one zero-filled vector, and a right-hand side. ok() is false when a
/// mapping was refused (skip then). The vectors wrap the mappings: use them while this lives.
template <class Scalar, class MemorySpace>
class MappedFlatSystem {
 public:
  using Vector = BatchVector<Scalar, layouts::Flat, MemorySpace>;
  MappedFlatSystem(index_type systems, index_type rows, Access access = Access::read_write)
      : systems_(systems), rows_(rows), matrix_memory_(bytes(), access), rhs_memory_(bytes(), access) {}
  bool ok() const { return matrix_data() != nullptr && rhs_data() != nullptr; }
  Scalar* matrix_data() const { return matrix_memory_.template data<Scalar>(); }
  Scalar* rhs_data() const { return rhs_memory_.template data<Scalar>(); }
  TridiagonalBatch<Scalar, layouts::Flat, MemorySpace> matrix() const {
    const Vector diagonals = wrap(matrix_data());
    return {diagonals, diagonals, diagonals};
  }
  Vector rhs() const { return wrap(rhs_data()); }
  /// The same memory as a ragged batch of `systems` systems of `rows` rows, for the
  /// variable-batch solves: the diagonals (one vector, as matrix()) and the right-hand side, on one
  /// offsets View (made here, not in the constructor: the fixed-batch tests' batches may have more
  /// systems than an offsets View could hold).
  using Ragged = layouts::RaggedVector<Scalar, MemorySpace>;
  struct RaggedSystem {
    Ragged diagonals, rhs;
  };
  RaggedSystem ragged() const {
    const auto offsets = layouts::make_offsets<MemorySpace>(std::vector<index_type>(systems_, rows_));
    const auto wrap_ragged = [&](Scalar* data) {
      return Ragged(typename Ragged::storage_type(data, systems_ * rows_), offsets);
    };
    return {wrap_ragged(matrix_data()), wrap_ragged(rhs_data())};
  }

 private:
  std::size_t bytes() const { return static_cast<std::size_t>(systems_ * rows_) * sizeof(Scalar); }
  Vector wrap(Scalar* data) const {
    return Vector(typename Vector::storage_type(data, systems_ * rows_), layouts::Flat(systems_, rows_));
  }
  index_type systems_, rows_;
  UnreservedMapping matrix_memory_, rhs_memory_;
};

}  // namespace tridiag::test
