#pragma once
// BatchVector: one value per (system, row) of a batch, stored in a Kokkos::View and addressed
// through a layout mapping (layouts/). This is the accessor every algorithm is written against:
// v(s, i) is row i of system s whatever the layout, at no run-time cost beyond the layout's
// offset arithmetic.

#include <limits>
#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <tridiag/core/errors.hpp>
#include <tridiag/core/types.hpp>
#include <tridiag/layouts/layouts.hpp>

namespace tridiag {

namespace impl {
/// Throws unless systems and rows are non-negative, the storage size (padding and a packed
/// UnifiedVector's other components included) fits in index_type, and a UnifiedVector's component
/// lies inside its width (else offsets leave the span, or several elements share one).
template <class Layout>
void check_extents(const char* where, const Layout& map) {
  require(map.systems >= 0 && map.rows >= 0, where, "negative extent: ", map.systems, " systems x ",
          map.rows, " rows");
  index_type width = 1;
  if constexpr (std::is_same_v<Layout, layouts::UnifiedVector>) {
    require(map.width >= 1 && map.component >= 0 && map.component < map.width, where, "UnifiedVector of width ",
            map.width, " and component ", map.component, ": needs width >= 1 and 0 <= component < width");
    width = map.width;
  }
  const index_type limit = std::numeric_limits<index_type>::max() / 8 / width;
  // systems first: stored_systems() rounds up, which would overflow next to the limit
  require(map.systems <= limit - Layout::system_granularity &&
              (map.rows == 0 || map.stored_systems() <= limit / map.rows),
          where, "batch of ", map.systems, " systems x ", map.rows, " rows overflows the index type");
}
}  // namespace impl

template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BatchVector {
 public:
  using scalar_type = Scalar;
  using value_type = std::remove_const_t<Scalar>;
  using layout_type = Layout;
  using memory_space = MemorySpace;
  using storage_type = Kokkos::View<Scalar*, MemorySpace>;

  BatchVector() = default;

  /// Allocates storage for `systems` x `rows` (zero-initialised, padding included).
  BatchVector(const std::string& label, index_type systems, index_type rows)
      : BatchVector(label, Layout(systems, rows)) {}

  /// Allocates storage for the given mapping (zero-initialised).
  BatchVector(const std::string& label, const Layout& map) : map_(map) {
    impl::check_extents("BatchVector", map);
    storage_ = storage_type(label, map.required_span());
  }

  /// Wraps existing storage without copying. Throws tridiag::invalid_argument when the storage is
  /// smaller than the layout needs (padding included).
  BatchVector(const storage_type& storage, const Layout& map) : storage_(storage), map_(map) {
    impl::check_extents("BatchVector", map);
    require(static_cast<index_type>(storage.extent(0)) >= map.required_span(), "BatchVector",
            "storage '", storage.label(), "' holds ", storage.extent(0), " scalars, the ", Layout::name(),
            " layout of ", map.systems, " systems x ", map.rows, " rows (", map.stored_systems(),
            " stored systems) needs ", map.required_span());
  }

  /// A BatchVector of non-const scalars converts to one of const scalars.
  template <class Other, class = std::enable_if_t<std::is_same_v<std::add_const_t<Other>, Scalar> &&
                                                  !std::is_same_v<Other, Scalar>>>
  BatchVector(const BatchVector<Other, Layout, MemorySpace>& other)
      : storage_(other.storage()), map_(other.mapping()) {}

  /// Row i of system s.
  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type s, index_type i) const {
    return storage_(map_.offset(s, i));
  }

  /// The first scalar of the storage (host and device): for kernels that walk a layout's storage
  /// directly, e.g. the Flat layout where row i of system s is data()[s * rows + i].
  KOKKOS_FORCEINLINE_FUNCTION Scalar* data() const { return storage_.data(); }
  KOKKOS_FORCEINLINE_FUNCTION index_type systems() const { return map_.systems; }
  KOKKOS_FORCEINLINE_FUNCTION index_type rows() const { return map_.rows; }
  const storage_type& storage() const { return storage_; }
  KOKKOS_FORCEINLINE_FUNCTION const Layout& mapping() const { return map_; }
  /// The scalars of the storage, from data() on, that the vector addresses (its mapping's span,
  /// padding included; the storage may be longer).
  index_type required_span() const { return map_.required_span(); }
  std::string label() const { return storage_.label(); }

 private:
  storage_type storage_;
  Layout map_;
};

/// A batch vector of the given mapping whose storage is left uninitialised: for workspaces a
/// solver writes before it reads (no fill kernel on the hot path).
template <class Vector>
Vector allocate_uninitialized(const std::string& label, const typename Vector::layout_type& map) {
  impl::check_extents("allocate_uninitialized", map);
  return Vector(typename Vector::storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                                              map.required_span()),
                map);
}

namespace impl {
template <class W>
inline constexpr bool is_batch_vector = false;
template <class Scalar, class Layout, class MemorySpace>
inline constexpr bool is_batch_vector<BatchVector<Scalar, Layout, MemorySpace>> = true;
template <class W>
inline constexpr bool is_unified_vector = false;
template <class Scalar, class MemorySpace>
inline constexpr bool is_unified_vector<BatchVector<Scalar, layouts::UnifiedVector, MemorySpace>> = true;

/// The bytes a vector addresses from its data() on: a Kokkos::View's span, or the required_span()
/// of a BatchVector, layouts::RaggedVector or layouts::GroupedVector. Host-side arithmetic on
/// extents only (nothing is read from the vector's memory).
template <class W>
std::size_t addressed_bytes(const W& w) {
  std::size_t scalars;
  if constexpr (Kokkos::is_view<W>::value) {
    scalars = w.span();
  } else {
    scalars = static_cast<std::size_t>(w.required_span());
  }
  return scalars * sizeof(typename W::value_type);
}

/// Whether u and v (batch vectors, variable-batch vectors or Kokkos Views, in any combination)
/// have an element at the same address, so that writing one changes the other: whether their
/// address ranges [data, data + addressed_bytes) intersect. Vectors of one UnifiedVector
/// allocation interleave without sharing elements when their components differ.
template <class U, class V>
bool shares_elements(const U& u, const V& v) {
  const char* const u0 = reinterpret_cast<const char*>(u.data());
  const char* const v0 = reinterpret_cast<const char*>(v.data());
  const std::size_t u_bytes = addressed_bytes(u), v_bytes = addressed_bytes(v);
  if (u0 == nullptr || v0 == nullptr || u_bytes == 0 || v_bytes == 0) return false;
  if (u0 + u_bytes <= v0 || v0 + v_bytes <= u0) return false;  // disjoint address ranges
  if constexpr (is_unified_vector<U> && is_unified_vector<V>) {
    if (u0 == v0 && sizeof(typename U::value_type) == sizeof(typename V::value_type) &&
        u.mapping().width == v.mapping().width && u.mapping().width > 1)
      return u.mapping().component == v.mapping().component;
  }
  return true;
}

/// Throws tridiag::invalid_argument (naming both) when `written`, a vector a solve writes, shares
/// storage with `read`, one it reads.
template <class W, class R>
void require_apart(const char* where, const char* written_name, const W& written, const char* read_name,
                   const R& read) {
  require(!shares_elements(written, read), where, written_name, " shares storage with ", read_name);
}

/// Whether u and v (of one shape) are the same vector. Batch vectors: the same data() and the same
/// first element (UnifiedVector: the same width and component; two mappings of one buffer that
/// differ in width both start at element 0); variable-batch vectors (RaggedVector,
/// GroupedVector): the same data(), their offsets or plan being the same (which their solvers
/// check first).
template <class U, class V>
bool same_vector(const U& u, const V& v) {
  bool same = static_cast<const void*>(u.data()) == static_cast<const void*>(v.data());
  if constexpr (is_unified_vector<U> && is_unified_vector<V>)
    same = same && u.mapping().width == v.mapping().width && u.mapping().component == v.mapping().component;
  else if constexpr (is_batch_vector<U> && is_batch_vector<V>)
    same = same && u.mapping().offset(0, 0) == v.mapping().offset(0, 0);
  return same;
}

/// Throws tridiag::invalid_argument when x overlaps rhs without being the same vector (in place is
/// allowed: each solver reads a row of rhs before it writes that row of x; an x of width 1 over the
/// buffer of a width-4 rhs passed as "in place" once and gave 30-42 of 48 elements wrong).
template <class X, class Rhs>
void require_in_place_or_apart(const char* where, const X& x, const Rhs& rhs) {
  require(!shares_elements(x, rhs) || same_vector(x, rhs), where,
          "x overlaps rhs without being it (in place: pass the same vector)");
}
}  // namespace impl

/// Row accessor of one system of a batch vector: rows(i) is row i of system s. Algorithms are
/// written against this (or any callable with the same signature, e.g. for variable batches).
template <class Vector>
struct SystemRows {
  Vector vector;
  index_type system;
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) operator()(index_type i) const { return vector(system, i); }
};

template <class Vector>
KOKKOS_FORCEINLINE_FUNCTION SystemRows<Vector> rows_of(const Vector& v, index_type s) {
  return SystemRows<Vector>{v, s};
}

/// Whether a layout's offsets follow from the extents (systems, rows) alone, so that vectors of one
/// shape may share one mapping. Not for UnifiedVector: the vectors packed in one allocation differ
/// in width and component from each other and from a vector allocated alone.
template <class Layout>
inline constexpr bool offsets_follow_shape = true;
template <>
inline constexpr bool offsets_follow_shape<layouts::UnifiedVector> = false;

/// Row accessor of one system for a vector addressed through a mapping `map` the caller shares
/// between several vectors of the same shape: after inlining, the row offsets of all of them are
/// one computation (with rows_of, each vector's own copy of its mapping is a separate value to the
/// compiler, so every array's offset is computed and held apart).
template <class Scalar, class Layout>
struct MappedRows {
  Scalar* data;
  Layout map;
  index_type system;
  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type i) const { return data[map.offset(system, i)]; }
};

/// rows_of(v, s) through `map`, a mapping of v's shape (the caller checks the shape), where the
/// layout's offsets follow from the shape; else rows_of(v, s), v's own mapping.
template <class Vector>
KOKKOS_FORCEINLINE_FUNCTION auto rows_of(const Vector& v, index_type s, const typename Vector::layout_type& map) {
  if constexpr (offsets_follow_shape<typename Vector::layout_type>) {
    return MappedRows<typename Vector::scalar_type, typename Vector::layout_type>{v.data(), map, s};
  } else {
    (void)map;
    return rows_of(v, s);
  }
}

/// Throws unless a and b have the same systems and rows.
template <class A, class B>
void require_same_shape(const char* where, const char* name_a, const A& a, const char* name_b, const B& b) {
  require(a.systems() == b.systems() && a.rows() == b.rows(), where, name_a, " is ", a.systems(), " systems x ",
          a.rows(), " rows, ", name_b, " is ", b.systems(), " systems x ", b.rows(), " rows");
}

/// Copy of a batch vector in host memory (same layout, same mapping).
template <class Scalar, class Layout, class MemorySpace>
BatchVector<std::remove_const_t<Scalar>, Layout, Kokkos::HostSpace> create_host_copy(
    const BatchVector<Scalar, Layout, MemorySpace>& v) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v.storage());
  // A mirror of a host View may alias it: always hand back independent storage.
  Kokkos::View<std::remove_const_t<Scalar>*, Kokkos::HostSpace> copy(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label() + "_host"), host.extent(0));
  Kokkos::deep_copy(copy, host);
  return {copy, v.mapping()};
}

namespace impl {
/// dst(s, i) = src(s, i) for work item k = i * systems + s (a functor: see core/kokkos_compat.hpp):
/// tridiag::deep_copy of packed vectors and layouts::convert.
template <class Dst, class Src>
struct CopyElements {
  Dst dst;
  Src src;
  index_type nsys;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = k % nsys, i = k / nsys;
    dst(s, i) = src(s, i);
  }
};
}  // namespace impl

/// Copies src into dst: same layout type and shape, any two memory spaces, scalars converted as by
/// assignment. Fences. Vectors whose storage holds only their own elements (every layout but a
/// packed UnifiedVector) must have the same mapping and are copied as one block (through a copy of
/// src in dst's memory space when the scalars and the spaces both differ); a packed UnifiedVector (width > 1: a component of a
/// system from allocate_system) is copied element by element, so that the other components of its
/// allocation are left alone (src's storage is first copied to dst's memory space when it lies
/// elsewhere). Throws tridiag::invalid_argument when dst and src share storage without being the
/// same vector.
template <class DstScalar, class SrcScalar, class Layout, class DstMemory, class SrcMemory>
void deep_copy(const BatchVector<DstScalar, Layout, DstMemory>& dst, const BatchVector<SrcScalar, Layout, SrcMemory>& src) {
  constexpr const char* where = "tridiag::deep_copy";
  require_same_shape(where, "destination", dst, "source", src);
  // On every path: vectors that overlap without being one reached Kokkos::deep_copy, which threw
  // std::runtime_error, not the documented tridiag::invalid_argument.
  if (impl::same_vector(dst, src)) return;
  impl::require_apart(where, "the destination", dst, "the source", src);
  bool packed = false;
  if constexpr (std::is_same_v<Layout, layouts::UnifiedVector>)
    packed = dst.mapping().width > 1 || src.mapping().width > 1;
  if (!packed) {
    require(dst.mapping().required_span() == src.mapping().required_span(), where, "storage spans differ (",
            dst.mapping().required_span(), " vs ", src.mapping().required_span(),
            "): use layouts::convert for different mappings");
    const auto n = src.mapping().required_span();
    const auto to = Kokkos::subview(dst.storage(), std::make_pair(index_type(0), n));
    const auto from = Kokkos::subview(src.storage(), std::make_pair(index_type(0), n));
    if constexpr (!std::is_same_v<std::remove_const_t<DstScalar>, std::remove_const_t<SrcScalar>> &&
                  !std::is_same_v<DstMemory, SrcMemory>) {
      // Kokkos::deep_copy converts scalars only where one execution space reaches both Views:
      // from host double to CUDA float it threw std::runtime_error ("no available copy
      // mechanism"). The source crosses first as it is, then is converted in dst's space.
      Kokkos::deep_copy(to, Kokkos::create_mirror_view_and_copy(DstMemory(), from));
    } else {
      Kokkos::deep_copy(to, from);
    }
    return;
  }
  if constexpr (std::is_same_v<Layout, layouts::UnifiedVector>) {
    using Exec = typename DstMemory::execution_space;
    const index_type nsys = dst.systems(), total = nsys * dst.rows();
    if (total == 0) return;
    // In dst's memory space (the same View when src is there already; storage() is never
    // const-qualified beyond its scalar, so the mirror is a plain copy).
    const auto staged = Kokkos::create_mirror_view_and_copy(DstMemory(), src.storage());
    const BatchVector<const std::remove_const_t<SrcScalar>, Layout, DstMemory> source(staged, src.mapping());
    Kokkos::parallel_for(
        "tridiag::deep_copy_elements", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, total),
        impl::CopyElements<BatchVector<DstScalar, Layout, DstMemory>, decltype(source)>{dst, source, nsys});
    Kokkos::fence();
  }
}

}  // namespace tridiag
