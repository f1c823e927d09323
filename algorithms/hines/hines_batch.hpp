#pragma once
// The device-side description of a batch of Hines systems (one per neuron):
//   Morphologies  the tree shapes: parent(m, i) of row i of morphology m, and its size n_m;
//                 derived from them once, links(m, i) (parent and leaf / first-child flags, what
//                 the per-neuron sweeps read: serial_hines.hpp) and the BranchParallel schedule;
//                 on first use, the SubtreeParallel partitions (subtree_partition.hpp);
//   HinesBatch    per neuron a morphology id (or one morphology for all), and the matrix
//                 coefficients a, b, d as BatchVectors of any layout (v(s, i): row i of neuron s).
// Row i of neuron s of morphology m reads (HinesSystem's convention, backward_euler.hpp)
//   d(s,i) x(i) + a(s,i) x(parent(m,i)) + sum over children c of i: b(s,c) x(c) = rhs(s,i).
//
// Mixed morphologies share one padded batch: every morphology is padded to rows = the largest
// size. Pad rows (n_m <= i < rows) have parent -1; the host helpers (hines_batch_builder.hpp) make
// them identity rows (d = 1, a = b = 0, rhs = 0, so x = 0) and the solver solves them as the
// diagonal rows they are (serial_hines.hpp), without walking the tree over them.
//
// Topology is checked once, on the host, when a Morphologies or a HinesBatch is built (STYLE
// 6.5); the solver then trusts it. Both copy the parents, sizes and morphology ids they are given
// into Views of their own and keep them private, so that what the solver reads is what was
// checked: a caller may refill its own buffers afterwards; change a topology by building a new
// object, never by writing into parent(), sizes() or morphology_of().

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <memory>
#include <mutex>
#include <tridiag/algorithms/hines/branch_schedule.hpp>
#include <tridiag/algorithms/hines/serial_hines.hpp>
#include <tridiag/algorithms/hines/subtree_partition.hpp>
#include <tridiag/algorithms/hines/subtree_team_plan.hpp>
#include <tridiag/algorithms/hines/warp_staged_steps.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/types.hpp>
#include <vector>

namespace tridiag::hines {

namespace impl {
/// Throws unless every morphology's parents are a valid Hines numbering: for 0 <= i < sizes[m],
/// -1 <= parent(m, i) < i; for sizes[m] <= i < rows, parent(m, i) = -1; 0 <= sizes[m] <= rows.
/// `parent` is row-major (morphologies x rows), on the host.
inline void check_topology(const char* where, const int* parent, const int* sizes, index_type count, index_type rows) {
  for (index_type m = 0; m < count; ++m) {
    require(sizes[m] >= 0 && sizes[m] <= rows, where, "morphology ", m, " has size ", sizes[m], ", the batch has ",
            rows, " rows");
    for (index_type i = 0; i < rows; ++i) {
      const int p = parent[m * rows + i];
      if (i < sizes[m]) {
        require(p >= -1 && p < i, where, "morphology ", m, ": parent(", i, ") = ", p,
                ", a Hines numbering needs -1 <= parent(i) < i");
      } else {
        require(p == -1, where, "morphology ", m, ": pad row ", i, " (size ", sizes[m], ") has parent ", p,
                ", pad rows must have parent -1");
      }
    }
  }
}

/// TreeLinks (serial_hines.hpp) of every row of every morphology, row-major (count x rows), from
/// a valid numbering (check_topology) on the host: one pass from the last row to the first, so
/// that row i's children (all > i) are known when i is reached, and the first child of a parent
/// met is its highest-numbered one. Pad rows get encode(-1, 0).
inline std::vector<int> tree_links(const int* parent, const int* sizes, index_type count, index_type rows) {
  std::vector<int> links(static_cast<std::size_t>(count * rows), TreeLinks::encode(-1, 0));
  std::vector<char> has_child(static_cast<std::size_t>(rows));
  for (index_type m = 0; m < count; ++m) {
    std::fill(has_child.begin(), has_child.end(), 0);
    for (index_type i = sizes[m] - 1; i >= 0; --i) {
      const int p = parent[m * rows + i];
      int flags = has_child[i] ? TreeLinks::has_children : 0;
      if (p >= 0) {
        if (!has_child[p]) flags |= TreeLinks::first_child;
        has_child[p] = 1;
      }
      links[m * rows + i] = TreeLinks::encode(p, flags);
    }
  }
  return links;
}
}  // namespace impl

/// The tree shapes of a batch in MemorySpace. parent(m, i): parent row of row i of morphology m
/// (row-major, morphologies x rows); sizes(m): its number of rows n_m; rows: the padded size.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Morphologies {
 public:
  using memory_space = MemorySpace;
  using parent_view = Kokkos::View<int**, Kokkos::LayoutRight, MemorySpace>;
  using size_view = Kokkos::View<int*, MemorySpace>;

  Morphologies() = default;

  /// Checks the given Views on the host (one copy there, which fences), then keeps copies of them
  /// (the caller's Views are not referenced afterwards): throws tridiag::invalid_argument unless
  /// sizes has one entry per morphology, parent is contiguous (not padded, not a subview) with
  /// at most TreeLinks::max_rows rows, and every morphology is a valid Hines numbering
  /// (impl::check_topology).
  Morphologies(const parent_view& parent, const size_view& sizes) {
    constexpr const char* where = "hines::Morphologies";
    require(sizes.extent(0) == parent.extent(0), where, "sizes has ", sizes.extent(0), " entries, parent has ",
            parent.extent(0), " morphologies");
    require(parent.extent(1) <= static_cast<std::size_t>(TreeLinks::max_rows), where, "parent has ", parent.extent(1),
            " rows; a morphology may have at most ", TreeLinks::max_rows, " (TreeLinks packs a row index in an int)");
    // The checks and tables below read the host copy as one row-major block.
    require(parent.span_is_contiguous(), where, "the parent View '", parent.label(),
            "' is not contiguous (padded, or a subview?); copy it into a View of its own first");
    // Host copies first: what is checked is what the device copies are made from.
    auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parent);
    auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sizes);
    impl::check_topology(where, hp.data(), hs.data(), static_cast<index_type>(parent.extent(0)),
                         static_cast<index_type>(parent.extent(1)));
    parent_ = parent_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::parent"), parent.extent(0),
                          parent.extent(1));
    sizes_ = size_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::sizes"), sizes.extent(0));
    Kokkos::deep_copy(parent_, hp);
    Kokkos::deep_copy(sizes_, hs);
    host_sizes_.assign(hs.data(), hs.data() + hs.extent(0));
    const std::vector<int> links = impl::tree_links(hp.data(), hs.data(), count(), rows());
    links_ = parent_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::links"), count(), rows());
    auto hl = Kokkos::create_mirror_view(links_);
    for (index_type k = 0; k < count() * rows(); ++k) hl.data()[k] = links[k];
    Kokkos::deep_copy(links_, hl);
    schedule_ = impl::make_branch_schedule<MemorySpace>(hp.data(), hs.data(), count(), rows());
    partitions_ = std::make_shared<Partitions>();
    partitions_->parent.assign(hp.data(), hp.data() + count() * rows());
  }

  const parent_view& parent() const { return parent_; }
  const size_view& sizes() const { return sizes_; }
  /// links(m, i): row i's parent and whether it has children / is its parent's highest-numbered
  /// child, packed (TreeLinks, serial_hines.hpp); what the per-neuron sweeps read instead of
  /// parent(). Derived here once per morphology and shared by all its neurons.
  const parent_view& links() const { return links_; }
  /// sizes() on the host (kept from the check, for host helpers).
  const std::vector<int>& host_sizes() const { return host_sizes_; }
  index_type count() const { return static_cast<index_type>(parent_.extent(0)); }
  index_type rows() const { return static_cast<index_type>(parent_.extent(1)); }
  /// Sections and levels of every morphology, for algo::BranchParallel (branch_schedule.hpp).
  const BranchSchedule<MemorySpace>& branch_schedule() const { return schedule_; }
  /// Every morphology cut for `groups` >= 1 thread groups, for algo::SubtreeParallel
  /// (subtree_partition.hpp; split_path: algo::SubtreeParallel::split_path). Built on the host the
  /// first time a number of groups and split_path is asked for (a host pass over the morphologies
  /// and one copy to the device per table), then kept, and shared by the copies of this object (a
  /// HinesBatch's included): a time loop pays once. Safe to call from several host threads.
  const SubtreePartition<MemorySpace>& subtree_partition(int groups, index_type split_path = 0) const {
    require(groups >= 1, "hines::Morphologies::subtree_partition", "groups = ", groups, " must be at least 1");
    require(split_path >= 0, "hines::Morphologies::subtree_partition", "split_path = ", split_path, " is negative");
    static const SubtreePartition<MemorySpace> none{};
    if (!partitions_) return none;  // default-constructed: no morphologies
    const std::lock_guard<std::mutex> lock(partitions_->mutex);
    const std::pair<int, index_type> key{groups, split_path};
    auto found = partitions_->cut.find(key);
    if (found == partitions_->cut.end())
      found = partitions_->cut
                  .emplace(key, impl::make_subtree_partition<MemorySpace>(partitions_->parent.data(),
                                                                          host_sizes_.data(), count(), rows(),
                                                                          groups, split_path))
                  .first;
    return found->second;
  }
  /// algo::WarpStaged's step tables (warp_staged_steps.hpp) of the morphology of a set of one,
  /// for `groups` groups (empty for other sets): built on the host on first use, then kept, as
  /// subtree_partition. Safe to call from several host threads.
  const WarpSteps<MemorySpace>& warp_steps(int groups) const {
    require(groups >= 1, "hines::Morphologies::warp_steps", "groups = ", groups, " must be at least 1");
    static const WarpSteps<MemorySpace> none{};
    if (!partitions_ || count() != 1) return none;
    const std::lock_guard<std::mutex> lock(partitions_->mutex);
    auto found = partitions_->warp.find(groups);
    if (found == partitions_->warp.end())
      found = partitions_->warp
                  .emplace(groups, impl::make_warp_steps<MemorySpace>(partitions_->parent.data(), host_sizes_[0], groups))
                  .first;
    return found->second;
  }

 private:
  /// The SubtreeParallel partitions and WarpStaged tables built so far, by number of groups, and
  /// the parents (host, row-major) they are built from.
  struct Partitions {
    std::mutex mutex;
    std::vector<int> parent;
    std::map<std::pair<int, index_type>, SubtreePartition<MemorySpace>> cut;  ///< by (groups, split_path)
    std::map<int, WarpSteps<MemorySpace>> warp;
  };

  parent_view parent_;
  size_view sizes_;
  parent_view links_;
  std::vector<int> host_sizes_;
  BranchSchedule<MemorySpace> schedule_;
  std::shared_ptr<Partitions> partitions_;
};

/// Builds Morphologies from host parent arrays (one per morphology, parent[0] = -1, p(i) < i),
/// each padded with -1 to `rows` (default: the largest size). Throws tridiag::invalid_argument
/// for an invalid numbering (naming morphology and row) or rows smaller than a morphology.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
Morphologies<MemorySpace> make_morphologies(const std::vector<std::vector<int>>& parents, index_type rows = -1) {
  constexpr const char* where = "hines::make_morphologies";
  index_type largest = 0;
  for (const auto& p : parents) largest = std::max<index_type>(largest, static_cast<index_type>(p.size()));
  if (rows < 0) rows = largest;
  require(rows >= largest, where, "rows = ", rows, " is less than the largest morphology (", largest, " rows)");
  require(rows <= index_type(TreeLinks::max_rows), where, "rows = ", rows, " exceeds the most a morphology may have, ",
          TreeLinks::max_rows, " (TreeLinks packs a row index in an int)");
  const index_type count = static_cast<index_type>(parents.size());
  using Result = Morphologies<MemorySpace>;
  typename Result::parent_view parent(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::parent"), count,
                                      rows);
  typename Result::size_view sizes(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::sizes"), count);
  auto hp = Kokkos::create_mirror_view(parent);
  auto hs = Kokkos::create_mirror_view(sizes);
  for (index_type m = 0; m < count; ++m) {
    hs(m) = static_cast<int>(parents[m].size());
    for (index_type i = 0; i < rows; ++i) hp(m, i) = i < hs(m) ? parents[m][i] : -1;
  }
  // Checked before anything reaches the device, so that a bad numbering leaves nothing behind.
  impl::check_topology(where, hp.data(), hs.data(), count, rows);
  Kokkos::deep_copy(parent, hp);
  Kokkos::deep_copy(sizes, hs);
  return Result(parent, sizes);
}

/// Row accessor of one morphology's row of a per-morphology table (parent(), links()):
/// rows(i) = table(m, i).
template <class ParentView>
struct MorphologyRows {
  ParentView parent;
  int morphology;
  KOKKOS_FORCEINLINE_FUNCTION int operator()(index_type i) const { return parent(morphology, i); }
};

/// A batch of Hines matrices: neuron s has morphology morphology_of(s) (or 0 for every neuron
/// when morphology_of is empty: one morphology for the whole batch) and coefficients a(s, i),
/// b(s, i), d(s, i) in any layout (padding rows included, see the file comment).
template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class HinesBatch {
 public:
  using scalar_type = Scalar;
  using layout_type = Layout;
  using memory_space = MemorySpace;
  using vector_type = BatchVector<Scalar, Layout, MemorySpace>;
  using morphology_view = Kokkos::View<int*, MemorySpace>;

  HinesBatch() = default;

  /// Every neuron has the one morphology of `morphologies` (which must hold exactly one, or none
  /// for an empty batch).
  HinesBatch(const Morphologies<MemorySpace>& morphologies, const vector_type& a, const vector_type& b,
             const vector_type& d)
      : HinesBatch(morphologies, morphology_view(), a, b, d) {}

  /// Neuron s has morphology morphology_of(s). Throws tridiag::invalid_argument unless a, b and d
  /// have one shape, their rows equal morphologies.rows(), morphology_of has one entry per neuron
  /// (or is empty, with one morphology) and every id lies in [0, morphologies.count()): the ids
  /// are checked on the host (one copy there, which fences), and the batch keeps a copy of them.
  /// a, b and d are referenced, not copied: the caller updates the coefficients in place.
  HinesBatch(const Morphologies<MemorySpace>& morphologies, const morphology_view& morphology_of, const vector_type& a,
             const vector_type& b, const vector_type& d)
      : morphologies_(morphologies), a_(a), b_(b), d_(d), plans_(std::make_shared<Plans>()) {
    constexpr const char* where = "hines::HinesBatch";
    require_same_shape(where, "a", a, "d", d);
    require_same_shape(where, "b", b, "d", d);
    require(d.rows() == morphologies.rows(), where, "the coefficients have ", d.rows(),
            " rows, the morphologies are padded to ", morphologies.rows());
    if (morphology_of.data() == nullptr) {
      require(morphologies.count() == 1 || (morphologies.count() == 0 && d.systems() == 0), where,
              "no morphology ids given for ", d.systems(), " neurons, but there are ", morphologies.count(),
              " morphologies (one is needed)");
      mean_rows_ = morphologies.count() == 1 ? morphologies.host_sizes()[0] : 0;
      return;
    }
    require(static_cast<index_type>(morphology_of.extent(0)) == d.systems(), where, "morphology_of has ",
            morphology_of.extent(0), " entries, the batch has ", d.systems(), " neurons");
    auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), morphology_of);
    for (index_type s = 0; s < d.systems(); ++s)
      require(ids(s) >= 0 && ids(s) < morphologies.count(), where, "neuron ", s, " has morphology id ", ids(s),
              ", there are ", morphologies.count(), " morphologies");
    morphology_of_ = morphology_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::morphology_of"),
                                     morphology_of.extent(0));
    Kokkos::deep_copy(morphology_of_, ids);
    plans_->ids.assign(ids.data(), ids.data() + d.systems());  // kept for subtree_plan
    grouped_mix_ = impl::grouped_by_morphology(plans_->ids, d.systems());
    index_type real_rows = 0;
    for (const int id : plans_->ids) real_rows += morphologies.host_sizes()[static_cast<std::size_t>(id)];
    mean_rows_ = d.systems() == 0 ? 0 : (real_rows + d.systems() - 1) / d.systems();
  }

  /// Whether the batch holds neurons of several morphologies stored grouped: at most one block of
  /// 32 consecutive neurons in impl::subtree_split_fraction holds more than one morphology
  /// (Grouping::by_morphology, for groups of a few blocks or more). algo::Automatic runs
  /// SubtreeParallel on such batches whatever their size (hines_solve.hpp).
  bool grouped_mix() const { return grouped_mix_; }
  /// The real rows (a neuron's morphology's size, without its pad rows) per neuron, on average
  /// rounded up: what algo::Automatic weighs a mixed batch's cells by on layouts::Flat.
  index_type mean_rows() const { return mean_rows_; }

  const Morphologies<MemorySpace>& morphologies() const { return morphologies_; }
  /// Empty when every neuron has morphology 0.
  const morphology_view& morphology_of() const { return morphology_of_; }
  const vector_type& a() const { return a_; }  ///< lower: A(i, parent(i))
  const vector_type& b() const { return b_; }  ///< upper: A(parent(i), i)
  const vector_type& d() const { return d_; }  ///< diagonal
  index_type systems() const { return d_.systems(); }
  index_type rows() const { return d_.rows(); }

  /// algo::SubtreeParallel's teams for this batch (subtree_team_plan.hpp): blocks of `lanes`
  /// neurons, `warps` groups per neuron (0: per block, automatic), `gpu`, budget_groups and
  /// team_groups_limit as impl::make_subtree_team_plan takes them, its partitions with
  /// split_path for the morphologies with at most split_max_neurons neurons in the batch
  /// (algo::SubtreeParallel's options of those names), padded_rows as impl::make_subtree_team_plan
  /// takes it (the pad rows' work, where they are solved). Built on the host the first time these
  /// arguments are asked for (a pass over the morphology ids kept since construction, one copy to
  /// the device), then kept and shared by copies of this object: a time loop pays once. Safe to
  /// call from several host threads.
  const SubtreeTeamPlan<MemorySpace>& subtree_plan(int lanes, int warps, bool gpu, index_type budget_groups,
                                                   int team_groups_limit, index_type split_path = 0,
                                                   index_type split_max_neurons = 0, index_type padded_rows = 0) const {
    static const SubtreeTeamPlan<MemorySpace> none{};
    if (!plans_) return none;  // default-constructed: no neurons
    const std::array<index_type, 8> key{lanes,      warps,      gpu ? 1 : 0,       budget_groups, team_groups_limit,
                                        split_path, split_max_neurons, padded_rows};
    const std::lock_guard<std::mutex> lock(plans_->mutex);
    auto found = plans_->plan.find(key);
    if (found == plans_->plan.end())
      found = plans_->plan
                  .emplace(key, impl::make_subtree_team_plan<MemorySpace>(
                                    plans_->ids, morphologies_.host_sizes(), systems(), lanes, warps, gpu,
                                    budget_groups, team_groups_limit, split_max_neurons,
                                    [this, split_path](int groups, bool split) -> const SubtreePartition<MemorySpace>& {
                                      return morphologies_.subtree_partition(groups, split ? split_path : 0);
                                    },
                                    padded_rows))
                  .first;
    return found->second;
  }

 private:
  /// The SubtreeParallel plans built so far, and the morphology ids (host) they are built from.
  struct Plans {
    std::mutex mutex;
    std::vector<int> ids;  ///< empty: morphology 0 for every neuron
    std::map<std::array<index_type, 8>, SubtreeTeamPlan<MemorySpace>> plan;
  };

  Morphologies<MemorySpace> morphologies_;
  morphology_view morphology_of_;
  vector_type a_, b_, d_;
  std::shared_ptr<Plans> plans_;
  bool grouped_mix_ = false;
  index_type mean_rows_ = 0;
};

}  // namespace tridiag::hines
