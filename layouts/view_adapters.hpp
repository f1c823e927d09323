#pragma once
// Plain Kokkos Views as batch vectors: a contiguous rank-2 View of extents (systems, rows) already
// is a batch in a tridiag layout, told by its Kokkos layout type:
//   Kokkos::LayoutRight -> layouts::Flat,  Kokkos::LayoutLeft -> layouts::Interleaved.
// The adapter shares the View's memory (no copy) and is valid while the View lives.

#include <type_traits>

#include <tridiag/core/batch_vector.hpp>

namespace tridiag::layouts {

/// The tridiag layout of a Kokkos array layout (only LayoutRight and LayoutLeft have one).
template <class KokkosLayout>
struct layout_of;
template <>
struct layout_of<Kokkos::LayoutRight> {
  using type = Flat;
};
template <>
struct layout_of<Kokkos::LayoutLeft> {
  using type = Interleaved;
};

/// A BatchVector over a rank-2 View (systems, rows) with LayoutRight or LayoutLeft.
template <class View>
auto as_batch_vector(const View& view) {
  static_assert(Kokkos::is_view<View>::value && View::rank == 2,
                "as_batch_vector: expects a rank-2 Kokkos::View of extents (systems, rows)");
  using Layout = typename layout_of<typename View::array_layout>::type;
  using Scalar = typename View::value_type;
  using Memory = typename View::memory_space;
  using Vector = BatchVector<Scalar, Layout, Memory>;
  require(view.span_is_contiguous(), "as_batch_vector", "View '", view.label(),
          "' is not contiguous (a strided subview?); copy it into a contiguous View first");
  const Layout map(static_cast<index_type>(view.extent(0)), static_cast<index_type>(view.extent(1)));
  typename Vector::storage_type storage(view.data(), view.span());
  return Vector(storage, map);
}

}  // namespace tridiag::layouts
