#pragma once
// Host helpers between per-neuron HinesSystems (backward_euler.hpp, host std::vectors) and the
// device batch (hines_batch.hpp):
//   make_problem      uploads a population: distinct parent arrays become the morphologies,
//                     every neuron is padded to the largest one, optionally grouped;
//   set_rhs           uploads new right-hand sides (a time loop re-assembles only those);
//   copy_solution     brings x back, one vector per neuron in the caller's order, pads dropped.
//
// Grouping (Grouping::by_morphology): the neurons are stored sorted by size (largest first), then
// morphology id, so that the threads of a warp (or of a Block-Interleaved tile) walk the same
// tree: uniform trip counts, the same parent() addresses, no divergence. The problem keeps the
// permutation (neuron_at_slot) and set_rhs / copy_solution apply it, so callers never see it. A
// grouped batch solves every neuron with exactly the operations of an ungrouped one: results are
// bitwise equal.

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <map>
#include <numeric>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/hines_batch.hpp>
#include <tridiag/core/batch_vector.hpp>
#include <tridiag/core/errors.hpp>
#include <tridiag/core/tridiagonal_batch.hpp>
#include <type_traits>
#include <vector>

namespace tridiag::hines {

/// How make_problem orders the neurons in storage.
enum class Grouping {
  none,          ///< slot s holds neuron s
  by_morphology  ///< sorted by size (descending), then morphology: uniform work per warp
};

/// A population on the device: the matrices, one right-hand side, and where each neuron sits.
template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct HinesProblem {
  HinesBatch<Scalar, Layout, MemorySpace> matrix;
  BatchVector<Scalar, Layout, MemorySpace> rhs;
  std::vector<index_type> neuron_at_slot;  ///< storage slot -> index in the caller's vector
  std::vector<int> morphology_of_neuron;   ///< caller's index -> morphology id
  /// Rows of neuron k (caller's order), padding excluded.
  int size_of(index_type k) const { return matrix.morphologies().host_sizes()[morphology_of_neuron[k]]; }
};

namespace impl {
/// Host mirrors of several BatchVectors that may share one allocation (the Unified-Vector layout
/// packs a, d, b and rhs together): one mirror per distinct storage, copied back once each.
template <class Vector>
class HostMirrors {
 public:
  using host_vector = BatchVector<typename Vector::value_type, typename Vector::layout_type, Kokkos::HostSpace>;

  host_vector add(const Vector& v) {
    for (std::size_t k = 0; k < device_.size(); ++k)
      if (device_[k].data() == v.storage().data()) return host_vector(host_[k], v.mapping());
    device_.push_back(v.storage());
    host_.push_back(Kokkos::create_mirror_view(v.storage()));
    return host_vector(host_.back(), v.mapping());
  }
  void upload() const {
    for (std::size_t k = 0; k < device_.size(); ++k) Kokkos::deep_copy(device_[k], host_[k]);
  }

 private:
  std::vector<typename Vector::storage_type> device_;
  std::vector<typename Vector::storage_type::HostMirror> host_;
};

/// Throws unless every neuron's vectors have its parent array's size.
inline void check_systems(const char* where, const std::vector<HinesSystem>& systems) {
  for (std::size_t k = 0; k < systems.size(); ++k) {
    const HinesSystem& s = systems[k];
    const std::size_t n = s.parent.size();
    require(s.a.size() == n && s.b.size() == n && s.d.size() == n && s.rhs.size() == n, where, "neuron ", k,
            ": parent has ", n, " entries, a ", s.a.size(), ", b ", s.b.size(), ", d ", s.d.size(), ", rhs ",
            s.rhs.size());
  }
}
}  // namespace impl

/// Uploads `systems` into a new batch of Layout in MemorySpace. Neurons with equal parent arrays
/// share a morphology (ids in order of first appearance); when all share one, the batch has no
/// morphology ids (one morphology for the whole batch). Pad rows are identity rows (d = 1,
/// a = b = rhs = 0). Throws tridiag::invalid_argument, before writing to the device, when a
/// neuron's vectors differ in size or its parents are not a Hines numbering.
template <class Scalar, class Layout, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
HinesProblem<Scalar, Layout, MemorySpace> make_problem(const std::vector<HinesSystem>& systems,
                                                       Grouping grouping = Grouping::none) {
  constexpr const char* where = "hines::make_problem";
  impl::check_systems(where, systems);
  const index_type count = static_cast<index_type>(systems.size());

  // Morphologies: distinct parent arrays, in order of first appearance.
  std::map<std::vector<int>, int> id_of;
  std::vector<std::vector<int>> parents;
  HinesProblem<Scalar, Layout, MemorySpace> problem;
  problem.morphology_of_neuron.resize(systems.size());
  for (std::size_t k = 0; k < systems.size(); ++k) {
    auto found = id_of.emplace(systems[k].parent, static_cast<int>(parents.size()));
    if (found.second) parents.push_back(systems[k].parent);
    problem.morphology_of_neuron[k] = found.first->second;
  }
  auto morphologies = make_morphologies<MemorySpace>(parents);  // checks the numberings
  const index_type rows = morphologies.rows();
  const auto& sizes = morphologies.host_sizes();

  problem.neuron_at_slot.resize(systems.size());
  std::iota(problem.neuron_at_slot.begin(), problem.neuron_at_slot.end(), index_type(0));
  if (grouping == Grouping::by_morphology) {
    const auto& morph = problem.morphology_of_neuron;
    std::stable_sort(problem.neuron_at_slot.begin(), problem.neuron_at_slot.end(), [&](index_type u, index_type v) {
      if (sizes[morph[u]] != sizes[morph[v]]) return sizes[morph[u]] > sizes[morph[v]];
      return morph[u] < morph[v];
    });
  }

  // a, d, b, rhs as the lower, diagonal, upper and rhs of a tridiagonal system: the same four
  // vectors, packed together where the layout packs them (Unified-Vector).
  auto storage = allocate_system<Layout, Scalar, MemorySpace>("tridiag::hines", count, rows);
  const auto &a = storage.matrix.lower, &d = storage.matrix.diag, &b = storage.matrix.upper;
  impl::HostMirrors<BatchVector<Scalar, Layout, MemorySpace>> mirrors;
  auto ha = mirrors.add(a), hb = mirrors.add(b), hd = mirrors.add(d), hr = mirrors.add(storage.rhs);
  for (index_type s = 0; s < count; ++s) {
    const HinesSystem& sys = systems[problem.neuron_at_slot[s]];
    const index_type n = sys.size();
    for (index_type i = 0; i < rows; ++i) {
      const bool real = i < n;
      ha(s, i) = real ? Scalar(sys.a[i]) : Scalar(0);
      hb(s, i) = real ? Scalar(sys.b[i]) : Scalar(0);
      hd(s, i) = real ? Scalar(sys.d[i]) : Scalar(1);
      hr(s, i) = real ? Scalar(sys.rhs[i]) : Scalar(0);
    }
  }
  mirrors.upload();

  typename HinesBatch<Scalar, Layout, MemorySpace>::morphology_view ids;
  if (parents.size() > 1) {
    ids = decltype(ids)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::hines::morphology_of"), count);
    auto hids = Kokkos::create_mirror_view(ids);
    for (index_type s = 0; s < count; ++s) hids(s) = problem.morphology_of_neuron[problem.neuron_at_slot[s]];
    Kokkos::deep_copy(ids, hids);
  }
  problem.matrix = HinesBatch<Scalar, Layout, MemorySpace>(morphologies, ids, a, b, d);
  problem.rhs = storage.rhs;
  return problem;
}

/// Writes rhs[k] (caller's order, one value per row of neuron k) into `target` (a vector of the
/// problem's shape, e.g. problem.rhs); pad rows get 0. Throws tridiag::invalid_argument, writing
/// nothing, when the number of neurons or a size differs. Fences.
template <class Scalar, class Layout, class MemorySpace, class Value>
void set_rhs(const HinesProblem<Scalar, Layout, MemorySpace>& problem, const std::vector<std::vector<Value>>& rhs,
             const BatchVector<Scalar, Layout, MemorySpace>& target) {
  constexpr const char* where = "hines::set_rhs";
  const index_type count = static_cast<index_type>(problem.neuron_at_slot.size());
  require(static_cast<index_type>(rhs.size()) == count, where, rhs.size(), " right-hand sides for ", count, " neurons");
  require_same_shape(where, "target", target, "matrix", problem.matrix.d());
  for (index_type k = 0; k < count; ++k)
    require(static_cast<index_type>(rhs[k].size()) == problem.size_of(k), where, "neuron ", k, ": rhs has ",
            rhs[k].size(), " rows, the neuron has ", problem.size_of(k));
  impl::HostMirrors<BatchVector<Scalar, Layout, MemorySpace>> mirrors;
  auto host = mirrors.add(target);
  // A packed (Unified-Vector) target shares its allocation with the matrix: start from its data.
  Kokkos::deep_copy(host.storage(), target.storage());
  for (index_type s = 0; s < count; ++s) {
    const auto& r = rhs[problem.neuron_at_slot[s]];
    for (index_type i = 0; i < target.rows(); ++i)
      host(s, i) = i < static_cast<index_type>(r.size()) ? Scalar(r[i]) : Scalar(0);
  }
  mirrors.upload();
}

/// Overload writing into problem.rhs.
template <class Scalar, class Layout, class MemorySpace, class Value>
void set_rhs(const HinesProblem<Scalar, Layout, MemorySpace>& problem, const std::vector<std::vector<Value>>& rhs) {
  set_rhs(problem, rhs, problem.rhs);
}

/// x of every neuron, in the caller's order, each of its own size (pad rows dropped). Fences.
template <class Scalar, class Layout, class MemorySpace, class XScalar>
std::vector<std::vector<std::remove_const_t<XScalar>>> copy_solution(
    const HinesProblem<Scalar, Layout, MemorySpace>& problem, const BatchVector<XScalar, Layout, MemorySpace>& x) {
  constexpr const char* where = "hines::copy_solution";
  require_same_shape(where, "x", x, "matrix", problem.matrix.d());
  const auto host = create_host_copy(x);
  std::vector<std::vector<std::remove_const_t<XScalar>>> result(problem.neuron_at_slot.size());
  for (index_type s = 0; s < x.systems(); ++s) {
    const index_type k = problem.neuron_at_slot[s];
    auto& out = result[k];
    out.resize(static_cast<std::size_t>(problem.size_of(k)));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = host(s, static_cast<index_type>(i));
  }
  return result;
}

}  // namespace tridiag::hines
