#pragma once
// Variable batches: systems of different sizes n_s in one batch (cuThomasVBatch, Section 3.1).
// Two storages:
//  * padded: an ordinary BatchVector whose `rows` is the largest n_s, plus a sizes View. Rows
//    i >= n_s of system s are padding. A CP ("computing padding") solver computes them too and
//    needs them to be identity rows (pad_matrix does that); an NCP solver stops at n_s.
//  * offset-indexed (RaggedVector): system s occupies storage[offsets(s), offsets(s+1)),
//    contiguous, with no padding at all (the Flat layout with per-system sizes; CSR-like).
// pad() and unpad() convert between the two on the device.

#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>

namespace tridiag::layouts {

/// Offsets View of a variable batch: offsets(s) is where system s starts, offsets(systems) the
/// total size. Built on the host from the sizes, checked, and copied to MemorySpace.
template <class MemorySpace>
Kokkos::View<index_type*, MemorySpace> make_offsets(const std::vector<index_type>& sizes,
                                                    const std::string& label = "tridiag::offsets") {
  Kokkos::View<index_type*, Kokkos::HostSpace> host(label, sizes.size() + 1);
  index_type total = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    require(sizes[s] >= 0, "layouts::make_offsets", "system ", s, " has negative size ", sizes[s]);
    host(s) = total;
    total += sizes[s];
  }
  host(sizes.size()) = total;
  return Kokkos::create_mirror_view_and_copy(MemorySpace(), host);
}

/// Sizes View (one n_s per system) in MemorySpace, from host sizes; checked non-negative.
template <class MemorySpace>
Kokkos::View<index_type*, MemorySpace> make_sizes(const std::vector<index_type>& sizes,
                                                  const std::string& label = "tridiag::sizes") {
  Kokkos::View<index_type*, Kokkos::HostSpace> host(label, sizes.size());
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    require(sizes[s] >= 0, "layouts::make_sizes", "system ", s, " has negative size ", sizes[s]);
    host(s) = sizes[s];
  }
  return Kokkos::create_mirror_view_and_copy(MemorySpace(), host);
}

/// Offset-indexed ("ragged") storage of one vector of a variable batch.
template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class RaggedVector {
 public:
  using scalar_type = Scalar;
  using value_type = std::remove_const_t<Scalar>;
  using memory_space = MemorySpace;
  using storage_type = Kokkos::View<Scalar*, MemorySpace>;
  using offsets_type = Kokkos::View<const index_type*, MemorySpace>;

  RaggedVector() = default;

  /// Allocates storage for the systems described by `offsets` (see make_offsets).
  RaggedVector(const std::string& label, const offsets_type& offsets) : offsets_(offsets) {
    require(offsets.extent(0) >= 1, "RaggedVector", "offsets View must have systems + 1 entries");
    systems_ = static_cast<index_type>(offsets.extent(0)) - 1;
    storage_ = storage_type(label, total_size());
  }

  /// Wraps existing storage; throws if it is smaller than offsets(systems).
  RaggedVector(const storage_type& storage, const offsets_type& offsets) : storage_(storage), offsets_(offsets) {
    require(offsets.extent(0) >= 1, "RaggedVector", "offsets View must have systems + 1 entries");
    systems_ = static_cast<index_type>(offsets.extent(0)) - 1;
    const index_type total = total_size();
    require(static_cast<index_type>(storage.extent(0)) >= total, "RaggedVector", "storage holds ",
            storage.extent(0), " scalars, offsets need ", total);
  }

  template <class Other, class = std::enable_if_t<std::is_same_v<std::add_const_t<Other>, Scalar> &&
                                                  !std::is_same_v<Other, Scalar>>>
  RaggedVector(const RaggedVector<Other, MemorySpace>& other)
      : storage_(other.storage()), offsets_(other.offsets()), systems_(other.systems()) {}

  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type s, index_type i) const {
    return storage_(offsets_(s) + i);
  }
  /// n_s, the size of system s.
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type s) const { return offsets_(s + 1) - offsets_(s); }
  KOKKOS_FORCEINLINE_FUNCTION index_type systems() const { return systems_; }
  const storage_type& storage() const { return storage_; }
  const offsets_type& offsets() const { return offsets_; }

 private:
  index_type total_size() const {
    index_type total = 0;
    Kokkos::deep_copy(total, Kokkos::subview(offsets_, systems_));
    return total;
  }
  storage_type storage_;
  offsets_type offsets_;
  index_type systems_ = 0;
};

namespace impl {
// Kernels of this file: named functors, not lambdas (see core/kokkos_compat.hpp).
template <class Sizes, class Offsets>
struct SizesFromOffsets {
  Sizes sizes;
  Offsets offsets;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const { sizes(s) = offsets(s + 1) - offsets(s); }
};
template <class Sizes>
struct LargestSize {
  Sizes sizes;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s, index_type& m) const {
    m = sizes(s) > m ? sizes(s) : m;
  }
};
template <class Ragged, class Padded>
struct PadKernel {
  Ragged ragged;
  Padded padded;
  typename Padded::value_type fill;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    using Value = typename Padded::value_type;
    const index_type s = k % nsys, i = k / nsys;
    padded(s, i) = i < ragged.rows(s) ? Value(ragged(s, i)) : fill;
  }
};
template <class Padded, class Ragged>
struct UnpadKernel {
  Padded padded;
  Ragged ragged;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = k % nsys, i = k / nsys;
    if (i < ragged.rows(s)) ragged(s, i) = padded(s, i);
  }
};
template <class Vector, class Rhs, class Sizes>
struct PadMatrixKernel {
  Vector a, b, c;
  Rhs rhs;
  Sizes sizes;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    using Scalar = typename Vector::value_type;
    using RhsScalar = typename Rhs::value_type;
    const index_type s = k % nsys, i = k / nsys, n = sizes(s);
    if (i >= n) {
      a(s, i) = Scalar(0);
      b(s, i) = Scalar(1);
      c(s, i) = Scalar(0);
      rhs(s, i) = RhsScalar(0);
    } else if (i == n - 1) {
      c(s, i) = Scalar(0);
    }
  }
};
}  // namespace impl

/// Sizes n_s of a ragged batch, read from its offsets (device View, same memory space).
template <class ExecSpace, class Scalar, class MemorySpace>
Kokkos::View<index_type*, MemorySpace> sizes_of(const ExecSpace& exec, const RaggedVector<Scalar, MemorySpace>& v) {
  Kokkos::View<index_type*, MemorySpace> sizes("tridiag::sizes", v.systems());
  auto offsets = v.offsets();
  Kokkos::parallel_for(
      "tridiag::layouts::sizes_of", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, v.systems()),
      impl::SizesFromOffsets<decltype(sizes), decltype(offsets)>{sizes, offsets});
  return sizes;
}

namespace impl {
template <class Padded, class Sizes>
void check_padded_sizes(const char* where, const Padded& padded, const Sizes& sizes) {
  require(static_cast<index_type>(sizes.extent(0)) == padded.systems(), where, "sizes has ", sizes.extent(0),
          " entries, the padded batch has ", padded.systems(), " systems");
  index_type largest = 0;
  Kokkos::parallel_reduce(
      "tridiag::layouts::largest_size",
      Kokkos::RangePolicy<typename Sizes::execution_space, Kokkos::IndexType<index_type>>(0, sizes.extent(0)),
      LargestSize<Sizes>{sizes},
      Kokkos::Max<index_type>(largest));
  require(largest <= padded.rows(), where, "largest system has ", largest, " rows, the padded batch holds ",
          padded.rows());
}
}  // namespace impl

/// padded(s, i) = ragged(s, i) for i < n_s and `fill` for n_s <= i < rows. Asynchronous on exec.
template <class ExecSpace, class SrcScalar, class DstScalar, class Layout, class MemorySpace>
void pad(const ExecSpace& exec, const RaggedVector<SrcScalar, MemorySpace>& ragged,
         const BatchVector<DstScalar, Layout, MemorySpace>& padded, DstScalar fill = DstScalar(0)) {
  require(ragged.systems() == padded.systems(), "layouts::pad", "ragged batch has ", ragged.systems(),
          " systems, padded batch ", padded.systems());
  auto sizes = sizes_of(exec, ragged);
  exec.fence();
  impl::check_padded_sizes("layouts::pad", padded, sizes);
  const index_type nsys = padded.systems(), total = nsys * padded.rows();
  Kokkos::parallel_for(
      "tridiag::layouts::pad", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
      impl::PadKernel<RaggedVector<SrcScalar, MemorySpace>, BatchVector<DstScalar, Layout, MemorySpace>>{ragged, padded,
                                                                                                     fill, nsys});
}

/// ragged(s, i) = padded(s, i) for i < n_s. Asynchronous on exec.
template <class ExecSpace, class SrcScalar, class DstScalar, class Layout, class MemorySpace>
void unpad(const ExecSpace& exec, const BatchVector<SrcScalar, Layout, MemorySpace>& padded,
           const RaggedVector<DstScalar, MemorySpace>& ragged) {
  require(ragged.systems() == padded.systems(), "layouts::unpad", "ragged batch has ", ragged.systems(),
          " systems, padded batch ", padded.systems());
  auto sizes = sizes_of(exec, ragged);
  exec.fence();
  impl::check_padded_sizes("layouts::unpad", padded, sizes);
  const index_type nsys = padded.systems(), total = nsys * padded.rows();
  Kokkos::parallel_for(
      "tridiag::layouts::unpad", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
      impl::UnpadKernel<BatchVector<SrcScalar, Layout, MemorySpace>, RaggedVector<DstScalar, MemorySpace>>{padded, ragged,
                                                                                                       nsys});
}

/// Turns the padding rows of a padded matrix batch (and right-hand side) into identity rows
/// (lower 0, diag 1, upper 0, rhs 0) and cuts the coupling from the last real row into the
/// padding (upper(s, n_s - 1) = 0), so that a CP solver, which runs over all rows, returns the
/// true solution in rows i < n_s and zeros in the padding.
template <class ExecSpace, class Scalar, class RhsScalar, class Layout, class MemorySpace, class Sizes>
void pad_matrix(const ExecSpace& exec, const TridiagonalBatch<Scalar, Layout, MemorySpace>& matrix,
                const BatchVector<RhsScalar, Layout, MemorySpace>& rhs, const Sizes& sizes) {
  require_same_shape("layouts::pad_matrix", "matrix", matrix.diag, "rhs", rhs);
  impl::check_padded_sizes("layouts::pad_matrix", matrix.diag, sizes);
  const index_type nsys = matrix.systems(), total = nsys * matrix.rows();
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  Kokkos::parallel_for(
      "tridiag::layouts::pad_matrix", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
      impl::PadMatrixKernel<BatchVector<Scalar, Layout, MemorySpace>, BatchVector<RhsScalar, Layout, MemorySpace>, Sizes>{
          a, b, c, rhs, sizes, nsys});
}

}  // namespace tridiag::layouts
