#pragma once
// Conversion between any two layouts, on the device that owns the data. One kernel serves every
// pair: it walks (system, row) and lets each BatchVector's mapping place the element.

#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>

namespace tridiag::layouts {

namespace impl {
/// The checks of convert: the same shape, and dst sharing no storage with src (an element written
/// before it is read would be lost: converting in place between layouts is not possible).
template <class Src, class Dst>
void check_convert(const char* name_src, const Src& src, const char* name_dst, const Dst& dst) {
  require_same_shape("layouts::convert", name_src, src, name_dst, dst);
  tridiag::impl::require_apart("layouts::convert", name_dst, dst, name_src, src);
}

template <class ExecSpace, class Src, class Dst>
void launch_convert(const ExecSpace& exec, const Src& src, const Dst& dst) {
  const index_type nsys = src.systems();
  const index_type total = nsys * src.rows();
  if (total == 0) return;
  // Consecutive work items take consecutive systems of one row: coalesced for the interleaved
  // family, which is what the GPU solvers mostly read.
  Kokkos::parallel_for("tridiag::layouts::convert",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
                       tridiag::impl::CopyElements<Dst, Src>{dst, src, nsys});
}
}  // namespace impl

/// dst(s, i) = src(s, i) for every system and row. Padding of dst is left untouched. Scalars of
/// different types convert as an assignment does (as Kokkos::deep_copy's would): double to float
/// rounds, and a value beyond float's range becomes infinity, which a solver then reports as a
/// non-finite input. Asynchronous on `exec`. Throws tridiag::invalid_argument, with nothing
/// written, on a shape mismatch or when dst shares storage with src.
template <class ExecSpace, class SrcScalar, class SrcLayout, class DstScalar, class DstLayout, class MemorySpace>
void convert(const ExecSpace& exec, const BatchVector<SrcScalar, SrcLayout, MemorySpace>& src,
             const BatchVector<DstScalar, DstLayout, MemorySpace>& dst) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::convert: the vectors' memory space is not accessible from ExecSpace");
  impl::check_convert("source", src, "destination", dst);
  impl::launch_convert(exec, src, dst);
}

/// Converts the three diagonals of a matrix batch. Every check (each diagonal's shape, no
/// destination diagonal sharing storage with a source diagonal or another destination one) is
/// made before anything is written.
template <class ExecSpace, class SrcScalar, class SrcLayout, class DstScalar, class DstLayout, class MemorySpace>
void convert(const ExecSpace& exec, const TridiagonalBatch<SrcScalar, SrcLayout, MemorySpace>& src,
             const TridiagonalBatch<DstScalar, DstLayout, MemorySpace>& dst) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::convert: the matrices' memory space is not accessible from ExecSpace");
  const BatchVector<SrcScalar, SrcLayout, MemorySpace>* const from[] = {&src.lower, &src.diag, &src.upper};
  const BatchVector<DstScalar, DstLayout, MemorySpace>* const to[] = {&dst.lower, &dst.diag, &dst.upper};
  const char* const names_src[] = {"source lower diagonal", "source diagonal", "source upper diagonal"};
  const char* const names_dst[] = {"destination lower diagonal", "destination diagonal",
                                   "destination upper diagonal"};
  for (int k = 0; k < 3; ++k) {
    require_same_shape("layouts::convert", names_src[k], *from[k], "source diagonal", src.diag);
    for (int j = 0; j < 3; ++j) impl::check_convert(names_src[j], *from[j], names_dst[k], *to[k]);
    for (int j = 0; j < k; ++j)  // two destinations in one storage: the last conversion would win
      tridiag::impl::require_apart("layouts::convert", names_dst[k], *to[k], names_dst[j], *to[j]);
  }
  for (int k = 0; k < 3; ++k) impl::launch_convert(exec, *from[k], *to[k]);
}

}  // namespace tridiag::layouts
