#pragma once
// Conversion between any two layouts, on the device that owns the data. One kernel serves every
// pair: it walks (system, row) and lets each BatchVector's mapping place the element.

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>

namespace tridiag::layouts {

namespace impl {
/// dst(s, i) = src(s, i) for work item k = i * systems + s (a functor: see core/kokkos_compat.hpp).
template <class Src, class Dst>
struct ConvertKernel {
  Src src;
  Dst dst;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = k % nsys, i = k / nsys;
    dst(s, i) = src(s, i);
  }
};
}  // namespace impl

/// dst(s, i) = src(s, i) for every system and row. Padding of dst is left untouched.
/// Asynchronous on `exec`. Throws tridiag::invalid_argument on a shape mismatch (nothing written).
template <class ExecSpace, class SrcScalar, class SrcLayout, class DstScalar, class DstLayout, class MemorySpace>
void convert(const ExecSpace& exec, const BatchVector<SrcScalar, SrcLayout, MemorySpace>& src,
             const BatchVector<DstScalar, DstLayout, MemorySpace>& dst) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::convert: the vectors' memory space is not accessible from ExecSpace");
  require_same_shape("layouts::convert", "source", src, "destination", dst);
  const index_type nsys = src.systems();
  const index_type total = nsys * src.rows();
  if (total == 0) return;
  // Consecutive work items take consecutive systems of one row: coalesced for the interleaved
  // family, which is what the GPU solvers mostly read.
  Kokkos::parallel_for(
      "tridiag::layouts::convert", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
      impl::ConvertKernel<BatchVector<SrcScalar, SrcLayout, MemorySpace>, BatchVector<DstScalar, DstLayout, MemorySpace>>{
          src, dst, nsys});
}

/// Converts the three diagonals of a matrix batch.
template <class ExecSpace, class SrcScalar, class SrcLayout, class DstScalar, class DstLayout, class MemorySpace>
void convert(const ExecSpace& exec, const TridiagonalBatch<SrcScalar, SrcLayout, MemorySpace>& src,
             const TridiagonalBatch<DstScalar, DstLayout, MemorySpace>& dst) {
  require_same_shape("layouts::convert", "source matrix", src.diag, "destination matrix", dst.diag);
  convert(exec, src.lower, dst.lower);
  convert(exec, src.diag, dst.diag);
  convert(exec, src.upper, dst.upper);
}

}  // namespace tridiag::layouts
