#pragma once
// Variable batches: systems of different sizes n_s in one batch (cuThomasVBatch, Section 3.1).
// Three storages:
//  * padded: an ordinary BatchVector whose `rows` is the largest n_s, plus a sizes View. Rows
//    i >= n_s of system s are padding. A CP ("computing padding") solver computes them too and
//    needs them to be identity rows (pad_matrix does that); an NCP solver stops at n_s.
//  * offset-indexed (RaggedVector): system s occupies storage[offsets(s), offsets(s+1)),
//    contiguous, with no padding at all (the Flat layout with per-system sizes; CSR-like).
//  * size-grouped (GroupedVector, after a SizeGroupedPlan): systems sorted by size and stored
//    interleaved in groups of similar size (a warp each on a GPU), padded only to the largest
//    system of their group; for the size-aware solvers.
// pad() and unpad() convert between the first two, pack() and unpack() between offset-indexed and
// size-grouped storage, all on the device.

#include <algorithm>
#include <climits>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
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
    require(sizes[s] <= std::numeric_limits<index_type>::max() / 8 - total, "layouts::make_offsets",
            "the sizes up to system ", s, " overflow the index type");
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

namespace impl {
/// Counts the offsets that break the rule offsets(0) >= 0, offsets(s) >= offsets(s - 1).
template <class Offsets>
struct CountBadOffsets {
  Offsets offsets;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s, index_type& bad) const {
    bad += (s == 0 ? offsets(0) < 0 : offsets(s) < offsets(s - 1)) ? 1 : 0;
  }
};

/// Throws unless `offsets` has at least one entry, starts at 0 or above and never decreases (a
/// decreasing entry made a negative size: out-of-bounds reads with status 0). Fences.
template <class Offsets>
void check_offsets(const Offsets& offsets) {
  require(offsets.extent(0) >= 1, "RaggedVector", "offsets View must have systems + 1 entries");
  using Exec = typename Offsets::memory_space::execution_space;
  index_type bad = 0;
  Kokkos::parallel_reduce("tridiag::layouts::check_offsets",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, offsets.extent(0)),
                          CountBadOffsets<Offsets>{offsets}, bad);
  require(bad == 0, "RaggedVector", bad, " offsets are negative or smaller than the one before (sizes must be >= 0)");
}
}  // namespace impl

/// Offset-indexed ("ragged") storage of one vector of a variable batch. The offsets are the
/// batch's shape, checked and their total read once at construction: edit them afterwards (through
/// another handle of the same View) and the vectors built on them no longer match their storage;
/// make new offsets and new vectors instead.
template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class RaggedVector {
 public:
  using scalar_type = Scalar;
  using value_type = std::remove_const_t<Scalar>;
  using memory_space = MemorySpace;
  using storage_type = Kokkos::View<Scalar*, MemorySpace>;
  using offsets_type = Kokkos::View<const index_type*, MemorySpace>;

  RaggedVector() = default;

  /// Allocates storage for the systems described by `offsets` (see make_offsets); throws unless
  /// they start at 0 or above and never decrease.
  RaggedVector(const std::string& label, const offsets_type& offsets) : offsets_(offsets) {
    impl::check_offsets(offsets);
    systems_ = static_cast<index_type>(offsets.extent(0)) - 1;
    span_ = total_size();
    storage_ = storage_type(label, span_);
  }

  /// Wraps existing storage; throws if it is smaller than offsets(systems), or if the offsets
  /// are negative or decrease.
  RaggedVector(const storage_type& storage, const offsets_type& offsets) : storage_(storage), offsets_(offsets) {
    impl::check_offsets(offsets);
    systems_ = static_cast<index_type>(offsets.extent(0)) - 1;
    span_ = total_size();
    require(static_cast<index_type>(storage.extent(0)) >= span_, "RaggedVector", "storage holds ",
            storage.extent(0), " scalars, offsets need ", span_);
  }

  /// Wraps existing storage with the offsets of `shape`, a vector of the same batch whose
  /// construction checked them: no second check, so nothing runs on the memory space's default
  /// instance (a solver that makes its workspace this way stays on its caller's instance). Throws
  /// if the storage is smaller than shape's total size.
  template <class Other>
  static RaggedVector with_offsets_of(const storage_type& storage, const RaggedVector<Other, MemorySpace>& shape) {
    require(static_cast<index_type>(storage.extent(0)) >= shape.required_span(), "RaggedVector", "storage holds ",
            storage.extent(0), " scalars, offsets need ", shape.required_span());
    RaggedVector v;
    v.storage_ = storage;
    v.offsets_ = shape.offsets();
    v.systems_ = shape.systems();
    v.span_ = shape.required_span();
    return v;
  }

  template <class Other, class = std::enable_if_t<std::is_same_v<std::add_const_t<Other>, Scalar> &&
                                                  !std::is_same_v<Other, Scalar>>>
  RaggedVector(const RaggedVector<Other, MemorySpace>& other)
      : storage_(other.storage()), offsets_(other.offsets()), systems_(other.systems()), span_(other.required_span()) {}

  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type s, index_type i) const {
    return storage_(offsets_(s) + i);
  }
  /// n_s, the size of system s.
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type s) const { return offsets_(s + 1) - offsets_(s); }
  /// The first scalar of the storage: system s starts at data()[offsets(s)].
  KOKKOS_FORCEINLINE_FUNCTION Scalar* data() const { return storage_.data(); }
  KOKKOS_FORCEINLINE_FUNCTION index_type systems() const { return systems_; }
  const storage_type& storage() const { return storage_; }
  const offsets_type& offsets() const { return offsets_; }
  /// The scalars from data() on that the vector addresses: offsets(systems), the total size,
  /// read once when the vector was made (host; the solvers' overlap checks use it without
  /// touching device memory).
  index_type required_span() const { return span_; }

 private:
  index_type total_size() const {
    index_type total = 0;
    Kokkos::deep_copy(total, Kokkos::subview(offsets_, systems_));
    return total;
  }
  storage_type storage_;
  offsets_type offsets_;
  index_type systems_ = 0;
  index_type span_ = 0;  ///< offsets(systems), read at construction
};

/// Throws tridiag::invalid_argument (naming `where` and the vector) unless every vector shares
/// the diagonal's offsets View: the solvers index them all with the diagonal's offsets.
template <class Diag, class... Named>
void require_same_offsets(const char* where, const Diag& diag, const Named&... named) {
  auto same = [&](const auto& pair) {
    const auto& v = pair.second;
    require(v.offsets().data() == diag.offsets().data() && v.systems() == diag.systems(), where, pair.first,
            " does not share the diagonal's offsets View (", v.systems(), " vs ", diag.systems(), " systems)");
  };
  (same(named), ...);
}

namespace impl {
// Kernels of this file: named functors, not lambdas (see core/kokkos_compat.hpp).
template <class Sizes, class Offsets>
struct SizesFromOffsets {
  Sizes sizes;
  Offsets offsets;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const { sizes(s) = offsets(s + 1) - offsets(s); }
};
/// The longest system of a ragged batch, from its offsets (Kokkos::Max).
template <class Offsets>
struct LongestFromOffsets {
  Offsets offsets;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s, index_type& longest) const {
    const index_type n = offsets(s + 1) - offsets(s);
    longest = n > longest ? n : longest;
  }
};
/// The smallest and the largest size, in one pass (Kokkos::MinMax).
template <class Sizes>
struct SizeRange {
  Sizes sizes;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s, Kokkos::MinMaxScalar<index_type>& range) const {
    if (sizes(s) < range.min_val) range.min_val = sizes(s);
    if (sizes(s) > range.max_val) range.max_val = sizes(s);
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
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::sizes_of: the batch's memory space is not accessible from ExecSpace");
  Kokkos::View<index_type*, MemorySpace> sizes("tridiag::sizes", v.systems());
  auto offsets = v.offsets();
  Kokkos::parallel_for(
      "tridiag::layouts::sizes_of", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, v.systems()),
      impl::SizesFromOffsets<decltype(sizes), decltype(offsets)>{sizes, offsets});
  return sizes;
}

namespace impl {
/// Whether Sizes is what a padded batch's sizes must be: a rank-1 View of index_type in MemorySpace.
template <class Sizes, class MemorySpace, class = void>
inline constexpr bool is_sizes_view = false;
template <class Sizes, class MemorySpace>
inline constexpr bool is_sizes_view<Sizes, MemorySpace, std::enable_if_t<Kokkos::is_view<Sizes>::value>> =
    Sizes::rank == 1 && std::is_same_v<typename Sizes::non_const_value_type, index_type> &&
    std::is_same_v<typename Sizes::memory_space, MemorySpace>;

/// Rows of the longest system of a ragged batch (0 for an empty batch), in one reduction over its
/// offsets (fences).
template <class ExecSpace, class Scalar, class MemorySpace>
index_type longest_system(const ExecSpace& exec, const RaggedVector<Scalar, MemorySpace>& ragged) {
  if (ragged.systems() == 0) return 0;
  const auto offsets = ragged.offsets();
  index_type longest = 0;
  Kokkos::parallel_reduce("tridiag::layouts::longest_system",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, ragged.systems()),
                          LongestFromOffsets<std::remove_cv_t<decltype(offsets)>>{offsets},
                          Kokkos::Max<index_type>(longest));
  return longest;
}

/// Throws unless sizes has one entry per system of the padded batch, each in [0, padded rows].
/// Its reduction runs on exec (and fences it): sizes written on exec just before are read.
template <class ExecSpace, class Padded, class Sizes>
void check_padded_sizes(const char* where, const ExecSpace& exec, const Padded& padded, const Sizes& sizes) {
  require(static_cast<index_type>(sizes.extent(0)) == padded.systems(), where, "sizes has ", sizes.extent(0),
          " entries, the padded batch has ", padded.systems(), " systems");
  if (sizes.extent(0) == 0) return;
  // One reduction (solve_padded runs this on every call): the largest must fit the padded rows,
  // and the smallest must not be negative (a negative size left its system's x unwritten with
  // status 0).
  Kokkos::MinMaxScalar<index_type> range;
  Kokkos::parallel_reduce(
      "tridiag::layouts::size_range",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, sizes.extent(0)),
      SizeRange<Sizes>{sizes}, Kokkos::MinMax<index_type>(range));
  require(range.max_val <= padded.rows(), where, "largest system has ", range.max_val,
          " rows, the padded batch holds ", padded.rows());
  require(range.min_val >= 0, where, "smallest system has ", range.min_val, " rows (sizes must be >= 0)");
}

/// check_status and check_status_rows (core/status.hpp) for a ragged batch: a status (if given)
/// has one entry per system and can name the rows of its longest system. No system is longer than
/// the total size (offsets(systems), known on the host), so the longest is looked for
/// (longest_system, which fences) only when the total exceeds INT_MAX.
template <class ExecSpace, class Scalar, class MemorySpace>
void check_ragged_status(const char* where, const ExecSpace& exec, const StatusView<MemorySpace>& status,
                         const RaggedVector<Scalar, MemorySpace>& ragged) {
  tridiag::impl::check_status(where, status, ragged.systems());
  if (status.data() == nullptr || ragged.required_span() <= INT_MAX) return;
  tridiag::impl::check_status_rows(where, status, longest_system(exec, ragged));
}
}  // namespace impl

/// padded(s, i) = ragged(s, i) for i < n_s and `fill` for n_s <= i < rows. Asynchronous on exec.
template <class ExecSpace, class SrcScalar, class DstScalar, class Layout, class MemorySpace>
void pad(const ExecSpace& exec, const RaggedVector<SrcScalar, MemorySpace>& ragged,
         const BatchVector<DstScalar, Layout, MemorySpace>& padded, DstScalar fill = DstScalar(0)) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::pad: the batch's memory space is not accessible from ExecSpace");
  tridiag::impl::require_apart("layouts::pad", "the padded batch", padded, "the ragged batch", ragged);
  require(ragged.systems() == padded.systems(), "layouts::pad", "ragged batch has ", ragged.systems(),
          " systems, padded batch ", padded.systems());
  auto sizes = sizes_of(exec, ragged);  // on exec, before the check's reduction on exec
  impl::check_padded_sizes("layouts::pad", exec, padded, sizes);
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
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::unpad: the batch's memory space is not accessible from ExecSpace");
  tridiag::impl::require_apart("layouts::unpad", "the ragged batch", ragged, "the padded batch", padded);
  require(ragged.systems() == padded.systems(), "layouts::unpad", "ragged batch has ", ragged.systems(),
          " systems, padded batch ", padded.systems());
  auto sizes = sizes_of(exec, ragged);  // on exec, before the check's reduction on exec
  impl::check_padded_sizes("layouts::unpad", exec, padded, sizes);
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
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::pad_matrix: the batch's memory space is not accessible from ExecSpace");
  static_assert(impl::is_sizes_view<Sizes, MemorySpace>,
                "layouts::pad_matrix: sizes must be a rank-1 View of index_type in the batch's memory space");
  tridiag::impl::check_diagonal_shapes("layouts::pad_matrix", matrix);
  require_same_shape("layouts::pad_matrix", "matrix", matrix.diag, "rhs", rhs);
  impl::check_padded_sizes("layouts::pad_matrix", exec, matrix.diag, sizes);
  const index_type nsys = matrix.systems(), total = nsys * matrix.rows();
  const auto a = matrix.lower, b = matrix.diag, c = matrix.upper;
  Kokkos::parallel_for(
      "tridiag::layouts::pad_matrix", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, total),
      impl::PadMatrixKernel<BatchVector<Scalar, Layout, MemorySpace>, BatchVector<RhsScalar, Layout, MemorySpace>, Sizes>{
          a, b, c, rhs, sizes, nsys});
}

// ---- size-grouped storage -----------------------------------------------------------------------

/// The plan of a size-grouped variable batch (the storage of the size-aware solvers). Systems are
/// sorted by size, largest first (stable: equal sizes keep their order), and cut into groups of
/// `group_width` consecutive sorted systems; a group is stored interleaved (row i of its systems
/// contiguous, as in BlockInterleaved) with as many rows as its largest system. Position k (the
/// place in sorted order) holds system order(k); system s sits at position position(s).
///
/// Why: with one GPU thread per system and group_width = 32, a warp is a group. Its loads are
/// coalesced (interleaved inside the group) and its lanes have similar sizes, so its time follows
/// its own largest system, and the batch's time follows the mean size rather than the largest one
/// (CP pads every system to the largest; NCP on unsorted data idles the lanes of short systems
/// while the warp's longest one runs). Largest first also starts the long work early. Padding
/// exists only inside a group (rows n_k .. group rows, and the empty places of the last group,
/// which is stored group_width systems wide), is never read or written, and for many systems of
/// sizes uniform in 256..512 costs about 1% against CP's 33%. Few systems pay for the last
/// group's width: one system of n rows takes group_width x n scalars.
///
/// Built once on the host from the sizes (O(systems log systems)) and copied to MemorySpace; reuse
/// it for every time step with the same sizes.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class SizeGroupedPlan {
 public:
  using memory_space = MemorySpace;
  using index_view = Kokkos::View<const index_type*, MemorySpace>;
  /// A warp of a NVIDIA GPU; on host cores any width works (each thread walks its own system).
  static constexpr index_type default_group_width = 32;

  SizeGroupedPlan() = default;

  /// Plans the systems of the given sizes (throws tridiag::invalid_argument on a negative size or
  /// a group width below 1).
  explicit SizeGroupedPlan(const std::vector<index_type>& sizes, index_type group_width = default_group_width) {
    constexpr const char* where = "layouts::SizeGroupedPlan";
    require(group_width >= 1, where, "group width ", group_width, " is below 1");
    const index_type nsys = static_cast<index_type>(sizes.size());
    for (index_type s = 0; s < nsys; ++s) require(sizes[s] >= 0, where, "system ", s, " has negative size ", sizes[s]);
    std::vector<index_type> order(sizes.size());
    std::iota(order.begin(), order.end(), index_type(0));
    std::stable_sort(order.begin(), order.end(), [&](index_type p, index_type q) { return sizes[p] > sizes[q]; });
    systems_ = nsys;
    width_ = group_width;
    groups_ = nsys / group_width + (nsys % group_width != 0 ? 1 : 0);  // no overflow near the limit
    Kokkos::View<index_type*, Kokkos::HostSpace> h_order("tridiag::grouped_order", nsys),
        h_position("tridiag::grouped_position", nsys), h_sizes("tridiag::grouped_sizes", nsys),
        h_offsets("tridiag::grouped_offsets", groups_ + 1);
    for (index_type k = 0; k < nsys; ++k) {
      h_order(k) = order[k];
      h_position(order[k]) = k;
      h_sizes(k) = sizes[order[k]];
    }
    largest_ = nsys > 0 ? h_sizes(0) : 0;
    index_type span = 0;
    for (index_type g = 0; g < groups_; ++g) {
      h_offsets(g) = span;
      const index_type group_rows = h_sizes(g * group_width);  // its first system is its largest
      require(group_rows <= (std::numeric_limits<index_type>::max() / 8 - span) / group_width, where,
              "storage of ", nsys, " systems overflows the index type");
      span += group_rows * group_width;
    }
    h_offsets(groups_) = span;
    span_ = span;
    // Summed once the span is known to fit: the sizes' sum is at most the span (each group's rows
    // times its width), where summing first overflowed (undefined behaviour) on sizes such as
    // {2^62, 2^62} before the span check could reject them.
    for (index_type k = 0; k < nsys; ++k) total_rows_ += h_sizes(k);
    order_ = Kokkos::create_mirror_view_and_copy(MemorySpace(), h_order);
    position_ = Kokkos::create_mirror_view_and_copy(MemorySpace(), h_position);
    sizes_ = Kokkos::create_mirror_view_and_copy(MemorySpace(), h_sizes);
    group_offsets_ = Kokkos::create_mirror_view_and_copy(MemorySpace(), h_offsets);
  }

  /// Storage offset of row i of the system at position k.
  KOKKOS_FORCEINLINE_FUNCTION index_type offset(index_type k, index_type i) const {
    return group_offsets_(k / width_) + i * width_ + k % width_;
  }
  /// Rows of the system at position k.
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type k) const { return sizes_(k); }
  /// Rows of the group of position k: the size of its largest (first) system.
  KOKKOS_FORCEINLINE_FUNCTION index_type group_rows(index_type k) const { return sizes_(k / width_ * width_); }
  /// The system (index in the caller's numbering) at position k.
  KOKKOS_FORCEINLINE_FUNCTION index_type system(index_type k) const { return order_(k); }
  /// The position of system s.
  KOKKOS_FORCEINLINE_FUNCTION index_type position_of(index_type s) const { return position_(s); }
  KOKKOS_FORCEINLINE_FUNCTION index_type systems() const { return systems_; }
  KOKKOS_FORCEINLINE_FUNCTION index_type group_width() const { return width_; }

  index_type groups() const { return groups_; }
  /// Scalars a GroupedVector of this plan holds (padding inside groups included).
  index_type required_span() const { return span_; }
  index_type largest() const { return largest_; }
  /// Sum of the sizes: the unknowns of the batch.
  index_type total_rows() const { return total_rows_; }
  const index_view& order() const { return order_; }        ///< position -> system
  const index_view& position() const { return position_; }  ///< system -> position
  const index_view& sorted_sizes() const { return sizes_; }  ///< position -> rows
  const index_view& group_offsets() const { return group_offsets_; }

 private:
  index_view order_, position_, sizes_, group_offsets_;
  index_type systems_ = 0, width_ = default_group_width, groups_ = 0, span_ = 0, largest_ = 0, total_rows_ = 0;
};

/// One vector of a size-grouped variable batch, addressed by position: v(k, i) is row i of the
/// system at position k of the plan (system plan.order(k)); v.rows(k) its size.
template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class GroupedVector {
 public:
  using scalar_type = Scalar;
  using value_type = std::remove_const_t<Scalar>;
  using memory_space = MemorySpace;
  using storage_type = Kokkos::View<Scalar*, MemorySpace>;
  using plan_type = SizeGroupedPlan<MemorySpace>;

  GroupedVector() = default;

  /// Allocates (zero-initialised) storage for the plan's systems.
  GroupedVector(const std::string& label, const plan_type& plan)
      : storage_(label, plan.required_span()), plan_(plan) {}

  /// Wraps existing storage; throws if it is smaller than the plan needs.
  GroupedVector(const storage_type& storage, const plan_type& plan) : storage_(storage), plan_(plan) {
    require(static_cast<index_type>(storage.extent(0)) >= plan.required_span(), "GroupedVector", "storage holds ",
            storage.extent(0), " scalars, the plan needs ", plan.required_span());
  }

  template <class Other, class = std::enable_if_t<std::is_same_v<std::add_const_t<Other>, Scalar> &&
                                                  !std::is_same_v<Other, Scalar>>>
  GroupedVector(const GroupedVector<Other, MemorySpace>& other) : storage_(other.storage()), plan_(other.plan()) {}

  KOKKOS_FORCEINLINE_FUNCTION Scalar& operator()(index_type k, index_type i) const {
    return storage_(plan_.offset(k, i));
  }
  /// The storage's first scalar (device code: row i of position k is data()[plan().offset(k, i)]).
  KOKKOS_FORCEINLINE_FUNCTION Scalar* data() const { return storage_.data(); }
  KOKKOS_FORCEINLINE_FUNCTION index_type rows(index_type k) const { return plan_.rows(k); }
  KOKKOS_FORCEINLINE_FUNCTION index_type systems() const { return plan_.systems(); }
  const storage_type& storage() const { return storage_; }
  KOKKOS_FORCEINLINE_FUNCTION const plan_type& plan() const { return plan_; }
  /// The scalars from data() on that the vector addresses: the plan's span (group padding
  /// included).
  index_type required_span() const { return plan_.required_span(); }

 private:
  storage_type storage_;
  plan_type plan_;
};

namespace impl {
template <class Ragged, class Plan>
struct CountSizeMismatches {
  Ragged ragged;
  Plan plan;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k, index_type& bad) const {
    bad += ragged.rows(plan.system(k)) != plan.rows(k) ? 1 : 0;
  }
};
template <class Ragged, class Grouped>
struct PackKernel {
  Ragged ragged;
  Grouped grouped;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = grouped.plan().system(k);
    for (index_type i = 0; i < grouped.rows(k); ++i) grouped(k, i) = ragged(s, i);
  }
};
template <class Grouped, class Ragged>
struct UnpackKernel {
  Grouped grouped;
  Ragged ragged;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type k) const {
    const index_type s = grouped.plan().system(k);
    for (index_type i = 0; i < grouped.rows(k); ++i) ragged(s, i) = grouped(k, i);
  }
};

/// Throws unless the ragged batch has the plan's systems and sizes (fences).
template <class ExecSpace, class Scalar, class MemorySpace>
void check_plan_sizes(const char* where, const ExecSpace& exec, const SizeGroupedPlan<MemorySpace>& plan,
                      const RaggedVector<Scalar, MemorySpace>& ragged) {
  require(ragged.systems() == plan.systems(), where, "ragged batch has ", ragged.systems(), " systems, the plan ",
          plan.systems());
  index_type bad = 0;
  Kokkos::parallel_reduce(
      "tridiag::layouts::check_plan_sizes",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, plan.systems()),
      CountSizeMismatches<RaggedVector<Scalar, MemorySpace>, SizeGroupedPlan<MemorySpace>>{ragged, plan}, bad);
  require(bad == 0, where, bad, " systems of the ragged batch differ in size from the plan");
}
}  // namespace impl

/// grouped(position(s), i) = ragged(s, i) for every system s and row i < n_s. Checks (and fences)
/// that the ragged batch has the plan's sizes, then runs asynchronously on exec.
template <class ExecSpace, class SrcScalar, class DstScalar, class MemorySpace>
void pack(const ExecSpace& exec, const RaggedVector<SrcScalar, MemorySpace>& ragged,
          const GroupedVector<DstScalar, MemorySpace>& grouped) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::pack: the batch's memory space is not accessible from ExecSpace");
  tridiag::impl::require_apart("layouts::pack", "the grouped batch", grouped, "the ragged batch", ragged);
  impl::check_plan_sizes("layouts::pack", exec, grouped.plan(), ragged);
  Kokkos::parallel_for(
      "tridiag::layouts::pack", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, grouped.systems()),
      impl::PackKernel<RaggedVector<SrcScalar, MemorySpace>, GroupedVector<DstScalar, MemorySpace>>{ragged, grouped});
}

/// ragged(s, i) = grouped(position(s), i): the inverse of pack. Same checks.
template <class ExecSpace, class SrcScalar, class DstScalar, class MemorySpace>
void unpack(const ExecSpace& exec, const GroupedVector<SrcScalar, MemorySpace>& grouped,
            const RaggedVector<DstScalar, MemorySpace>& ragged) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "layouts::unpack: the batch's memory space is not accessible from ExecSpace");
  tridiag::impl::require_apart("layouts::unpack", "the ragged batch", ragged, "the grouped batch", grouped);
  impl::check_plan_sizes("layouts::unpack", exec, grouped.plan(), ragged);
  Kokkos::parallel_for(
      "tridiag::layouts::unpack",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_type>>(exec, 0, grouped.systems()),
      impl::UnpackKernel<GroupedVector<SrcScalar, MemorySpace>, RaggedVector<DstScalar, MemorySpace>>{grouped, ragged});
}

}  // namespace tridiag::layouts
