// The `hines` sweep: batched Hines solves (hines::solve, one thread per neuron) of neuron
// populations built from the real cells of shared/morphologies, for every precision x systems x
// batch ("a point"):
//  * batches (--batches): the seed's six size classes (size_classes.hpp), one class per batch;
//    single shared cells at the default discretisation (max length 20 um), e.g. BG001; mixed6 (the
//    six classes round-robin: neuron k has class k mod 6) and mixed-shared (every .swc of the
//    morphology folder round-robin), each padded to the largest cell in two orders: as generated
//    ("padded") and sorted by size then morphology ("grouped", the order of
//    hines::Grouping::by_morphology, hines_batch_builder.hpp);
//  * hines::solve on the chosen execution space, layouts flat, interleaved, block_interleaved8,
//    block_interleaved32 and unified_vector, kernels algo::PerNeuron ("hines") and
//    algo::BlockShared<32> ("hines_block_shared32"); on flat and interleaved also
//    algo::BranchParallel ("hines_branch_parallel"); on those and block_interleaved32
//    algo::Automatic ("hines_auto"); on flat,
//    where a team's copies of its neuron coalesce, algo::StagedBranchParallel
//    ("hines_staged_branch_parallel": the neuron in team scratch; where it does not fit, the
//    row is skipped, it would time hines_branch_parallel), the same with d and rhs only in
//    scratch ("hines_staged_branch_parallel_dr", stage_coefficients = false) and with 4 neurons
//    per team of 8 threads each ("hines_staged_branch_parallel_n4"); on interleaved and
//    block_interleaved32, where the accesses of a team's warps coalesce, algo::SubtreeParallel
//    with the automatic number of groups ("hines_subtree_parallel"), 2 and 8 groups
//    ("hines_subtree_parallel2", "hines_subtree_parallel8"), and with the trunks' paths of at least
//    64 rows split among the groups ("hines_subtree_parallel_split", split_path = 64: AA0013's, not
//    the size classes'); on interleaved and block_interleaved8
//    algo::WarpStaged ("hines_warp_staged": batches of one small cell on a CUDA device, else the
//    row is skipped, it would time hines); on
//    mixed batches, PerNeuron and SubtreeParallel with solve_padding = false ("hines_ncp" on
//    every layout, "hines_subtree_parallel_ncp", "hines_subtree_parallel_split_ncp"), whose mixed6
//    and mixed-shared notes compare
//    with the same-morphology rows of "hines" and "hines_subtree_parallel" (of the size classes,
//    or of the shared cells when the run has them, e.g. --batches AA0013,BG001,...,mixed-shared);
//  * the baselines of the speedup columns on the host, flat layout, PerNeuron (on mixed batches also
//    with solve_padding = false, "hines-sequential_ncp" and "hines-openmp_ncp": the baselines of the
//    rows that skip the pad rows, which would otherwise be credited with the padding they skip;
//    a host space's flat hines_ncp row is its own): Kokkos::Serial
//    ("hines-sequential", skipped above 3e7 padded rows unless --full) and Kokkos::OpenMP on all
//    threads ("hines-openmp"); a host space's own flat PerNeuron row is its baseline (x1);
//    --no-host-baselines skips both (and the host copy of the batch they need) and leaves every
//    speedup column empty, a host space's included.
// Batches above 5e8 padded rows (mixed-shared at 256,000 neurons) are skipped unless --full.
// What a point costs on an H100 (5081500): the GPU kernels take 0.3-150 ms, 600 ms for the
// mixed-shared batch at 256,000 neurons; the sequential baseline took 0.4-3.3 s a call at 256,000
// neurons and the host copy of the batch 1-3 s; hence the limits above, the time-bounded
// repetitions (bench_timer.hpp) and one host copy per point, shared by both baselines. Each point
// says on stderr how long it took and how much of it went into building batches.
// Data: each cell's backward-Euler step (backward_euler.hpp, passive membrane, dt 0.025 ms) is a
// template uploaded once per batch; a functor then draws every neuron's matrix on the device from
// it (random voltages, an extra membrane conductance, each row scaled by a random factor so that
// a != b), so neurons differ and stay diagonally dominant M-matrices. Nothing moves between host
// and device inside a timed region; x, the workspace and the status are preallocated. Every timed
// result is checked: every neuron's status must be 0, and sampled neurons are compared with a
// long-double sequential Hines solve (bench_hines_oracle.hpp): every morphology's first and last,
// the ends of the blocks of 32 that straddle two morphologies, the first, the last and 14 drawn
// (bench_hines_sampling.hpp, at most 64).
// CSV: size = rows of the batch (the largest cell, padding included); useful bytes count the real
// rows only; layout = "<layout>[<batch>]" (hines_csv_notes()).

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tridiag/algorithms/hines/backward_euler.hpp>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/hines_solve.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <type_traits>
#include <vector>

#include "bench_context.hpp"
#include "bench_environment.hpp"
#include "bench_exec.hpp"
#include "bench_hines_oracle.hpp"
#include "bench_hines_sampling.hpp"
#include "bench_problem.hpp"
#include "bench_rows.hpp"
#include "bench_timer.hpp"
#include "bench_traffic.hpp"
#include "progress.hpp"

#ifndef TRIDIAG_BENCH_MORPHOLOGY_DIR
#define TRIDIAG_BENCH_MORPHOLOGY_DIR "../shared/morphologies"
#endif

namespace tridiag::bench {

namespace {

constexpr double dt_ms = 0.025;
constexpr int block = 32;  // BlockShared<32>: a warp per team on a GPU
// algo::SubtreeParallel::split_path of the hines_subtree_parallel_split rows: AA0013's trunk path
// (664 rows with 8 groups) is split, the size classes' (at most 61 trunk rows) are not.
constexpr index_type bench_split_path = 64;
using BlockShared = hines::algo::BlockShared<block>;

// ---- cells and batches (host) -------------------------------------------------------------------

/// One morphology: its Hines tree and the template of its neurons' matrices, per node: a, b, d of
/// a backward-Euler step, rhs0 = G e_pas (the rhs at V = 0) and cap = C / dt (uS).
struct Cell {
  std::string name;
  std::vector<int> parent;
  std::vector<double> a, b, d, rhs0, cap;
  index_type size() const { return static_cast<index_type>(parent.size()); }
};

Cell make_cell(const std::string& name, const std::string& path, const hines::DiscretizationOptions& options) {
  const hines::CompartmentalCell cc = hines::discretize(hines::load_swc(path), options);
  const hines::PassiveMembrane membrane;
  const auto at0 = hines::assemble_backward_euler(cc, membrane, dt_ms, std::vector<double>(cc.size(), 0.0));
  const auto at1 = hines::assemble_backward_euler(cc, membrane, dt_ms, std::vector<double>(cc.size(), 1.0));
  Cell c;
  c.name = name;
  c.parent = at0.parent;
  c.a = at0.a;
  c.b = at0.b;
  c.d = at0.d;
  c.rhs0 = at0.rhs;
  c.cap.resize(at0.rhs.size());
  for (std::size_t i = 0; i < c.cap.size(); ++i) c.cap[i] = at1.rhs[i] - at0.rhs[i];  // rhs is linear in V^n
  return c;
}

/// A batch kind of the sweep: which cells, in which order.
struct BatchSpec {
  std::string label;       ///< what goes between the brackets of the layout cell
  bool mixed = false;      ///< several cells, round-robin
  bool grouped = false;    ///< slots sorted by size (descending), then morphology
  std::vector<std::shared_ptr<const Cell>> cells;
  /// The class (size class name or shared cell name, CellLibrary::name_of) of each cell, for the comparison note of
  /// mixed6 and mixed-shared with the same-morphology batches of the same run.
  std::vector<std::string> class_names;
};

/// The cells of the sweep, loaded once each.
class CellLibrary {
 public:
  explicit CellLibrary(std::string dir) : dir_(std::move(dir)) {}

  std::shared_ptr<const Cell> size_class(const hines::SizeClass& c) {
    return get(c.name, [&] {
      hines::DiscretizationOptions o;
      o.max_length_um = c.max_length_um;
      return make_cell(c.name, path(c.shared_file), o);
    });
  }
  /// A shared file at the default discretisation, by its name (name_of).
  std::shared_ptr<const Cell> shared_cell(const std::string& name) {
    return get("cell:" + name, [&] { return make_cell(name, path(file_of(name)), {}); });
  }
  /// The names of every .swc file of the folder, sorted; throws usage_error when there is none.
  std::vector<std::string> shared_names() const {
    std::vector<std::string> names;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir_, error))
      if (entry.path().extension() == ".swc") names.push_back(name_of(entry.path().filename().string()));
    if (error)
      throw usage_error("--batches mixed-shared: cannot list the morphology folder '" + dir_ + "': " + error.message());
    if (names.empty()) throw usage_error("--batches mixed-shared: no .swc file in '" + dir_ + "'");
    std::sort(names.begin(), names.end());
    return names;
  }
  /// Throws usage_error unless the file of a size class is in the folder.
  void require_file(const std::string& batch, const std::string& file) const {
    if (!std::filesystem::exists(path(file)))
      throw usage_error("--batches: " + batch + " needs " + file + ", which is not in " + dir_);
  }
  /// The file of a cell name: name.swc, else name.CNG.swc (name_of's inverse).
  std::string file_of(const std::string& name) const {
    for (const char* suffix : {".swc", ".CNG.swc"})
      if (std::filesystem::exists(path(name + suffix))) return name + suffix;
    throw usage_error("--batches: '" + name + "' is neither a size class, mixed6, mixed-shared nor a file " + name +
                      "[.CNG].swc in " + dir_);
  }
  /// A cell's name: its file name without ".swc" / ".CNG.swc", except that X.CNG.swc is "X.CNG"
  /// where X.swc is there too (two files, two cells: one name would read X.swc twice).
  std::string name_of(const std::string& file) const {
    static const std::string cng = ".CNG.swc", swc = ".swc";
    const auto ends_with = [&](const std::string& suffix) {
      return file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends_with(cng)) {
      const std::string stem = file.substr(0, file.size() - cng.size());
      return std::filesystem::exists(path(stem + swc)) ? stem + ".CNG" : stem;
    }
    return ends_with(swc) ? file.substr(0, file.size() - swc.size()) : file;
  }

 private:
  std::string path(const std::string& file) const { return dir_ + "/" + file; }
  template <class Make>
  std::shared_ptr<const Cell> get(const std::string& key, Make&& make) {
    auto found = cells_.find(key);
    if (found == cells_.end()) found = cells_.emplace(key, std::make_shared<const Cell>(make())).first;
    return found->second;
  }
  std::string dir_;
  std::map<std::string, std::shared_ptr<const Cell>> cells_;
};

std::string morphology_dir(const Options& o) {
  return o.morphology_dir.empty() ? TRIDIAG_BENCH_MORPHOLOGY_DIR : o.morphology_dir;
}

/// The batch names of --batches, or the defaults.
std::vector<std::string> batch_names(const Options& o) {
  std::vector<std::string> names = o.batches;
  if (names.empty()) {
    if (o.quick) {
      names = {"small-high", "mixed6"};  // mixed6 holds every class, big-high included
    } else {
      for (const auto& c : hines::seed_size_classes) names.push_back(c.name);
      names.insert(names.end(), {"BG001", "mixed6", "mixed-shared"});
    }
  }
  return names;
}

const hines::SizeClass* size_class_named(const std::string& name) {
  for (const auto& c : hines::seed_size_classes)
    if (name == c.name) return &c;
  return nullptr;
}

/// The batch kinds named by --batches (or the defaults), same-morphology ones first so that the
/// mixed rows can be compared with them.
std::vector<BatchSpec> batch_specs(const Options& o, CellLibrary& library) {
  const std::vector<std::string> names = batch_names(o);
  std::vector<BatchSpec> same, mixed;
  for (const auto& name : names) {
    if (const hines::SizeClass* size_class = size_class_named(name); size_class != nullptr) {
      same.push_back({name, false, false, {library.size_class(*size_class)}, {name}});
    } else if (name == "mixed6" || name == "mixed-shared") {
      BatchSpec spec;
      spec.mixed = true;
      if (name == "mixed6") {
        for (const auto& c : hines::seed_size_classes) {
          spec.cells.push_back(library.size_class(c));
          spec.class_names.push_back(c.name);
        }
        spec.label = "mixed6";
      } else {
        for (const auto& name : library.shared_names()) {
          spec.cells.push_back(library.shared_cell(name));
          spec.class_names.push_back(name);
        }
        spec.label = "shared" + std::to_string(spec.cells.size());
      }
      for (const bool grouped : {false, true}) {
        BatchSpec s = spec;
        s.grouped = grouped;
        s.label += grouped ? ",grouped" : ",padded";
        mixed.push_back(s);
      }
    } else {
      const std::string cell = library.name_of(library.file_of(name));
      same.push_back({cell, false, false, {library.shared_cell(cell)}, {cell}});
    }
  }
  same.insert(same.end(), mixed.begin(), mixed.end());
  return same;
}

/// A batch kind at a batch size: the morphology of every storage slot and the neuron it holds.
struct Population {
  const BatchSpec* spec = nullptr;
  index_type systems = 0, rows = 0, real_rows = 0;
  std::vector<int> morphology_of_slot;    ///< empty: one morphology
  std::vector<index_type> neuron_at_slot;  ///< neuron k has morphology k mod cells
  std::vector<index_type> neurons_per_cell;

  Population(const BatchSpec& s, index_type n) : spec(&s), systems(n) {
    const index_type count = static_cast<index_type>(s.cells.size());
    neurons_per_cell.assign(static_cast<std::size_t>(count), 0);
    for (const auto& c : s.cells) rows = std::max(rows, c->size());
    neuron_at_slot.resize(static_cast<std::size_t>(n));
    std::iota(neuron_at_slot.begin(), neuron_at_slot.end(), index_type(0));
    const auto size_of = [&](index_type k) { return s.cells[k % count]->size(); };
    if (s.grouped)
      std::stable_sort(neuron_at_slot.begin(), neuron_at_slot.end(), [&](index_type u, index_type v) {
        if (size_of(u) != size_of(v)) return size_of(u) > size_of(v);
        return u % count < v % count;
      });
    for (index_type k = 0; k < n; ++k) {
      real_rows += size_of(k);
      ++neurons_per_cell[k % count];
    }
    if (count > 1) {
      morphology_of_slot.resize(static_cast<std::size_t>(n));
      for (index_type slot = 0; slot < n; ++slot) morphology_of_slot[slot] = static_cast<int>(neuron_at_slot[slot] % count);
    }
  }
  int morphology(index_type slot) const { return morphology_of_slot.empty() ? 0 : morphology_of_slot[slot]; }
  std::string label(const std::string& precision) const {
    return precision + " " + std::to_string(systems) + " x " + spec->label + " (" + std::to_string(rows) + " rows)";
  }
};

// ---- device data ----------------------------------------------------------------------------------

template <class V>
V uninitialized(const std::string& label, const typename V::layout_type& map) {
  return V(typename V::storage_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), map.required_span()), map);
}

/// Row scale of neuron k, row i: the rows of a neuron's matrix are multiplied by factors in
/// [1, 1.5), which keeps the solution and makes A(i, p) != A(p, i).
KOKKOS_INLINE_FUNCTION double row_scale(std::uint64_t seed, index_type k, index_type rows, index_type i) {
  return 1.25 + 0.25 * hash_uniform(seed ^ 0x5ca1eULL, std::uint64_t(k) * std::uint64_t(rows) + std::uint64_t(i));
}

/// Row i of neuron k's matrix and rhs, from its morphology's template (cell comment above): V^n
/// uniform in [-80, -50) mV, an extra conductance in [0, C/dt / 2) (open channels), the row scaled
/// by row_scale; in double, before the conversion to Scalar. tmpl_* = the template's a, b, d, rhs0
/// and cap of row i, p its parent row (-1: the root). GenerateNeurons draws the batch with it and
/// the oracle rebuilds its sampled neurons with it on the host (generated_inputs).
struct NeuronRow {
  double a, b, d, rhs;
};
KOKKOS_INLINE_FUNCTION NeuronRow neuron_row(std::uint64_t seed, index_type k, index_type rows, index_type i, int p,
                                            double tmpl_a, double tmpl_b, double tmpl_d, double tmpl_rhs0,
                                            double cap) {
  const double ri = row_scale(seed, k, rows, i), rp = p >= 0 ? row_scale(seed, k, rows, p) : 0.0;
  const std::uint64_t base = (std::uint64_t(k) * std::uint64_t(rows) + std::uint64_t(i)) * 2u;
  const double v = -65.0 + 15.0 * hash_uniform(seed, base);
  const double extra = 0.25 * cap * (1.0 + hash_uniform(seed, base + 1));
  return {ri * tmpl_a, rp * tmpl_b, ri * (tmpl_d + extra), ri * (tmpl_rhs0 + cap * v)};
}

/// Draws the matrix and rhs of every slot with neuron_row; pad rows are identity rows (d = 1,
/// a = b = rhs = 0); x = NaN.
template <class Scalar, class V, class Parent, class Template, class Ids, class Neurons, class Sizes>
struct GenerateNeurons {
  V a, b, d, rhs, x;
  Parent parent;    // (morphology, row)
  Template tmpl;    // (morphology, 0..4 = a, b, d, rhs0, cap, row)
  Ids morphology;   // slot -> morphology, empty: 0
  Neurons neuron;   // slot -> neuron
  Sizes sizes;
  index_type rows;
  std::uint64_t seed;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type s) const {
    const int m = morphology.data() != nullptr ? morphology(s) : 0;
    const index_type k = neuron(s), n = sizes(m);
    for (index_type i = 0; i < rows; ++i) {
      if (i < n) {
        const NeuronRow r =
            neuron_row(seed, k, rows, i, parent(m, i), tmpl(m, 0, i), tmpl(m, 1, i), tmpl(m, 2, i), tmpl(m, 3, i),
                       tmpl(m, 4, i));
        a(s, i) = Scalar(r.a);
        b(s, i) = Scalar(r.b);
        d(s, i) = Scalar(r.d);
        rhs(s, i) = Scalar(r.rhs);
      } else {
        a(s, i) = Scalar(0);
        b(s, i) = Scalar(0);
        d(s, i) = Scalar(1);
        rhs(s, i) = Scalar(0);
      }
      x(s, i) = compat::quiet_nan<Scalar>();
    }
  }
};

/// The inputs GenerateNeurons gave neuron k of `cell` in a batch of `rows` rows (pad rows
/// included), rebuilt on the host from the template, as Scalar values held in double: what the
/// oracle solves, so that a kernel that overwrote its inputs is not checked against them.
template <class Scalar>
void generated_inputs(const Cell& cell, index_type k, index_type rows, std::uint64_t seed, HinesSample& sample) {
  for (auto* v : {&sample.a, &sample.b, &sample.d, &sample.rhs}) v->assign(static_cast<std::size_t>(rows), 0.0);
  for (index_type i = 0; i < rows; ++i) {
    if (i >= cell.size()) {
      sample.d[i] = 1.0;
      continue;
    }
    const NeuronRow r = neuron_row(seed, k, rows, i, cell.parent[i], cell.a[i], cell.b[i], cell.d[i], cell.rhs0[i],
                                   cell.cap[i]);
    sample.a[i] = static_cast<double>(static_cast<Scalar>(r.a));
    sample.b[i] = static_cast<double>(static_cast<Scalar>(r.b));
    sample.d[i] = static_cast<double>(static_cast<Scalar>(r.d));
    sample.rhs[i] = static_cast<double>(static_cast<Scalar>(r.rhs));
  }
}

/// Where the device's inputs of a sampled neuron (after the timed runs) differ from the rebuilt
/// ones beyond `ulps` units of Scalar's last place: "" when nowhere. Not exact: a device compiler
/// may contract neuron_row's multiply-adds (FMA) and round an input an ulp away from the host.
inline std::string changed_input(const HinesSample& rebuilt, const std::vector<double>* device[4], double eps,
                                 double ulps = 4) {
  const char* names[4] = {"a", "b", "d", "rhs"};
  const std::vector<double>* host[4] = {&rebuilt.a, &rebuilt.b, &rebuilt.d, &rebuilt.rhs};
  for (int v = 0; v < 4; ++v)
    for (std::size_t i = 0; i < host[v]->size(); ++i) {
      const double want = (*host[v])[i], got = (*device[v])[i];
      if (got != want && !(std::fabs(got - want) <= ulps * eps * std::fabs(want))) {  // == : an inf of float
        std::ostringstream os;
        os.precision(17);
        os << names[v] << " of row " << i << " of neuron " << rebuilt.id << " holds " << got << " after the runs, "
           << want << " was generated (a kernel wrote its inputs?)";
        return os.str();
      }
    }
  return "";
}

/// Copies sampled slots (a, b, d, rhs, x over all rows, and the status) into one buffer.
template <class V, class Slots, class Out, class Status, class StatusOut>
struct GatherNeurons {
  V a, b, d, rhs, x;
  Slots slots;
  Out out;
  Status status;
  StatusOut status_out;
  index_type rows;
  KOKKOS_INLINE_FUNCTION void operator()(const index_type j) const {
    const index_type s = slots(j), o = j * rows;
    for (index_type i = 0; i < rows; ++i) {
      out(0, o + i) = a(s, i);
      out(1, o + i) = b(s, i);
      out(2, o + i) = d(s, i);
      out(3, o + i) = rhs(s, i);
      out(4, o + i) = x(s, i);
    }
    status_out(j) = status(s);
  }
};

template <class View>
std::int64_t bytes_of(const View& v) {
  return v.data() == nullptr ? 0 : static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
}

/// What hines::Morphologies allocates when it is built (its copies of parent and sizes, the links
/// and the branch schedule); the tables built on a kernel's first use are not counted.
template <class Memory>
std::int64_t morphologies_bytes(const hines::Morphologies<Memory>& m) {
  const auto& schedule = m.branch_schedule();
  return bytes_of(m.parent()) + bytes_of(m.sizes()) + bytes_of(m.links()) + bytes_of(schedule.order) +
         bytes_of(schedule.section_begin) + bytes_of(schedule.level_begin) + bytes_of(schedule.child_begin) +
         bytes_of(schedule.children) + bytes_of(schedule.levels);
}

/// A population in Layout on Memory, generated, with preallocated x, workspace and status.
template <class Scalar, class Layout, class Memory>
struct Batch {
  using Vector = BatchVector<Scalar, Layout, Memory>;
  hines::HinesBatch<Scalar, Layout, Memory> batch;
  Vector rhs, x, workspace;
  StatusView<Memory> status;
  std::int64_t memory_bytes = 0;

  template <class Exec>
  Batch(const Exec& exec, const Population& pop, std::uint64_t seed) {
    static_assert(Kokkos::SpaceAccessibility<Exec, Memory>::accessible, "Batch: Memory not reachable from Exec");
    const BatchSpec& spec = *pop.spec;
    const index_type count = static_cast<index_type>(spec.cells.size()), rows = pop.rows, n = pop.systems;
    std::vector<std::vector<int>> parents;
    for (const auto& c : spec.cells) parents.push_back(c->parent);
    const auto morphologies = hines::make_morphologies<Memory>(parents, rows);
    // The per-node templates and the slot -> neuron map: generation only, freed after it.
    Kokkos::View<double***, Kokkos::LayoutRight, Memory> tmpl("tridiag::bench::hines_template", count, 5, rows);
    auto tmpl_h = Kokkos::create_mirror_view(tmpl);
    for (index_type m = 0; m < count; ++m) {
      const Cell& c = *spec.cells[m];
      const std::vector<double>* v[5] = {&c.a, &c.b, &c.d, &c.rhs0, &c.cap};
      for (int q = 0; q < 5; ++q)
        for (index_type i = 0; i < rows; ++i) tmpl_h(m, q, i) = i < c.size() ? (*v[q])[i] : 0.0;
    }
    Kokkos::deep_copy(tmpl, tmpl_h);
    Kokkos::View<index_type*, Memory> neuron(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::bench::neuron"), n);
    {
      Kokkos::View<const index_type*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(pop.neuron_at_slot.data(), n);
      Kokkos::deep_copy(neuron, host);
    }
    typename hines::HinesBatch<Scalar, Layout, Memory>::morphology_view ids;
    if (!pop.morphology_of_slot.empty()) {
      ids = decltype(ids)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::bench::morphology_of"), n);
      Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> host(pop.morphology_of_slot.data(), n);
      Kokkos::deep_copy(ids, host);
    }
    // a, d, b, rhs: one packed allocation for Unified-Vector (components lower, diagonal, upper,
    // rhs, as hines::make_problem packs them), four otherwise. Uninitialised: the generator writes
    // every row (block padding systems are never read).
    Vector a, b, d;
    if constexpr (std::is_same_v<Layout, layouts::UnifiedVector>) {
      using U = layouts::UnifiedVector;
      const U packed(n, rows, U::packed_width, 0);
      typename Vector::storage_type storage(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tridiag::bench::hines_packed"),
                                            packed.required_span());
      a = Vector(storage, U(n, rows, U::packed_width, U::lower));
      d = Vector(storage, U(n, rows, U::packed_width, U::diagonal));
      b = Vector(storage, U(n, rows, U::packed_width, U::upper));
      rhs = Vector(storage, U(n, rows, U::packed_width, U::rhs));
      memory_bytes += bytes_of(storage);
    } else {
      const Layout map(n, rows);
      a = uninitialized<Vector>("tridiag::bench::hines_a", map);
      b = uninitialized<Vector>("tridiag::bench::hines_b", map);
      d = uninitialized<Vector>("tridiag::bench::hines_d", map);
      rhs = uninitialized<Vector>("tridiag::bench::hines_rhs", map);
      memory_bytes += bytes_of(a.storage()) + bytes_of(b.storage()) + bytes_of(d.storage()) + bytes_of(rhs.storage());
    }
    x = uninitialized<Vector>("tridiag::bench::hines_x", Layout(n, rows));
    workspace = uninitialized<Vector>("tridiag::bench::hines_workspace", Layout(n, rows));
    status = StatusView<Memory>("tridiag::bench::hines_status", n);
    Kokkos::parallel_for("tridiag::bench::generate_hines",
                         Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(exec, 0, n),
                         GenerateNeurons<Scalar, Vector, typename hines::Morphologies<Memory>::parent_view,
                                         decltype(tmpl), decltype(ids), decltype(neuron),
                                         typename hines::Morphologies<Memory>::size_view>{
                             a, b, d, rhs, x, morphologies.parent(), tmpl, ids, neuron, morphologies.sizes(), rows, seed});
    exec.fence();
    batch = hines::HinesBatch<Scalar, Layout, Memory>(morphologies, ids, a, b, d);
    memory_bytes += bytes_of(x.storage()) + bytes_of(workspace.storage()) + bytes_of(status) + bytes_of(ids) +
                    morphologies_bytes(morphologies);
  }
};

// ---- measurements -------------------------------------------------------------------------------

/// Which speedup column a measurement is the denominator of, if any (of the rows that solve the pad
/// rows or of those that skip them, as the measurement itself: Measurement::pads_solved).
enum class Role { none, sequential, openmp };

struct Measurement {
  Row row;
  Role role = Role::none;
  bool pads_solved = true;    ///< false: solve_padding = false, compared with baselines that skip them too
  std::string kernel_layout;  ///< "algorithm/layout" without the batch, for the comparison note
};

struct Point {
  std::string precision;
  Population pop;
  std::vector<Measurement> results;
  double data_s = 0;       ///< seconds spent building batches (device and host), for the log
  double host_data_s = 0;  ///< of which the host batch of the baselines
};

#if defined(KOKKOS_ENABLE_SERIAL)
template <class Exec>
constexpr bool is_serial = std::is_same_v<Exec, Kokkos::Serial>;
#else
template <class Exec>
constexpr bool is_serial = false;
#endif

/// Seconds since t0.
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Same-morphology rates (real rows per ms) by (precision, systems, algorithm/layout, class),
/// for the mixed6 comparison note.
using RateTable = std::map<std::string, double>;
std::string rate_key(const std::string& precision, index_type systems, const std::string& kernel_layout,
                     const std::string& cls) {
  return precision + "|" + std::to_string(systems) + "|" + kernel_layout + "|" + cls;
}

/// Every status 0, the sampled neurons' inputs as generated, and their solutions against the
/// long-double oracle on inputs rebuilt on the host (generated_inputs). pads_solved = false (a
/// kernel with solve_padding = false): the pad rows of x must still hold the NaN written before
/// the runs, and the oracle checks the real rows. The first failure is reported and counted, and
/// clears row.passed (emit_point leaves the row out).
template <class Exec, class Scalar, class Layout, class Memory>
void check_batch(BenchContext& ctx, const Point& pt, Row& row, const Batch<Scalar, Layout, Memory>& bt,
                 bool pads_solved) {
  const std::string what = row.algorithm + "/" + row.layout + " " + pt.pop.label(pt.precision) + " on " + row.device;
  const Population& pop = pt.pop;
  index_type failed = 0;
  Kokkos::parallel_reduce("tridiag::bench::hines_count_failed",
                          Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, pop.systems),
                          CountNonzeroStatus<StatusView<Memory>>{bt.status}, failed);
  if (failed > 0)
    fail(ctx, what, row, std::to_string(failed) + " of " + std::to_string(pop.systems) +
                             " neurons returned a nonzero status");
  const auto slots = sample_neurons(pop.morphology_of_slot, pop.systems, ctx.options.seed);
  const index_type ns = static_cast<index_type>(slots.size()), rows = pop.rows;
  Kokkos::View<index_type*, Kokkos::HostSpace> slots_h("tridiag::bench::hines_slots", ns);
  for (index_type j = 0; j < ns; ++j) slots_h(j) = slots[j];
  auto slots_d = Kokkos::create_mirror_view_and_copy(Memory(), slots_h);
  Kokkos::View<double**, Kokkos::LayoutRight, Memory> out("tridiag::bench::hines_samples", 5, ns * rows);
  Kokkos::View<int*, Memory> status_out("tridiag::bench::hines_sample_status", ns);
  using Vector = typename Batch<Scalar, Layout, Memory>::Vector;
  Kokkos::parallel_for("tridiag::bench::hines_gather", Kokkos::RangePolicy<Exec, Kokkos::IndexType<index_type>>(0, ns),
                       GatherNeurons<Vector, decltype(slots_d), decltype(out), StatusView<Memory>, decltype(status_out)>{
                           bt.batch.a(), bt.batch.b(), bt.batch.d(), bt.rhs, bt.x, slots_d, out, bt.status, status_out,
                           rows});
  auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  auto status_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), status_out);
  const double eps = static_cast<double>(std::numeric_limits<Scalar>::epsilon());
  for (index_type j = 0; j < ns; ++j) {
    const Cell& cell = *pop.spec->cells[pop.morphology(slots[j])];
    HinesSample sample;
    sample.id = slots[j];
    sample.size = cell.size();
    sample.parent = cell.parent;
    generated_inputs<Scalar>(cell, pop.neuron_at_slot[slots[j]], rows, ctx.options.seed, sample);
    std::vector<double> device[4];
    for (int v = 0; v < 4; ++v) device[v].assign(&out_h(v, j * rows), &out_h(v, j * rows) + rows);
    if (faults::changed_inputs(row.algorithm)) faults::corrupt(device[2]);
    const std::vector<double>* device_inputs[4] = {&device[0], &device[1], &device[2], &device[3]};
    if (const std::string changed = changed_input(sample, device_inputs, eps); !changed.empty()) {
      fail(ctx, what, row, changed);
      return;
    }
    sample.x.assign(&out_h(4, j * rows), &out_h(4, j * rows) + rows);
    if (faults::wrong_solution(row.algorithm)) faults::corrupt(sample.x);
    sample.status = status_h(j);
    std::vector<double>* dst[5] = {&sample.a, &sample.b, &sample.d, &sample.rhs, &sample.x};
    if (!pads_solved) {
      for (index_type i = cell.size(); i < rows; ++i)
        if (!std::isnan(sample.x[i])) {
          fail(ctx, what, row, "pad row " + std::to_string(i) + " of neuron " + std::to_string(slots[j]) +
                                   " was written (solve_padding = false)");
          return;
        }
      for (int v = 0; v < 5; ++v) dst[v]->resize(static_cast<std::size_t>(cell.size()));
    }
    const HinesCheck r = check_hines_sample(sample, eps);
    if (!row.max_rel_error)
      row.max_rel_error = r.rel_error;
    else if (!std::isnan(*row.max_rel_error) && !(r.rel_error <= *row.max_rel_error))
      row.max_rel_error = r.rel_error;  // a NaN sticks
    if (r.wrong) {
      fail(ctx, what, row, r.why);
      return;  // one wrong neuron tells the story
    }
  }
}

template <class Algorithm>
constexpr bool is_block_shared = !std::is_same_v<Algorithm, hines::algo::PerNeuron> &&
                                 !std::is_same_v<Algorithm, hines::algo::BranchParallel> &&
                                 !std::is_same_v<Algorithm, hines::algo::StagedBranchParallel> &&
                                 !std::is_same_v<Algorithm, hines::algo::SubtreeParallel> &&
                                 !std::is_same_v<Algorithm, hines::algo::WarpStaged> &&
                                 !std::is_same_v<Algorithm, hines::algo::Automatic>;

/// Whether the kernel with `options` solves the pad rows (the kernels without the option do).
template <class Algorithm>
bool solves_padding(const Algorithm& options) {
  if constexpr (std::is_same_v<Algorithm, hines::algo::PerNeuron> ||
                std::is_same_v<Algorithm, hines::algo::SubtreeParallel> || is_block_shared<Algorithm>) {
    return options.solve_padding;
  } else {
    (void)options;
    return true;
  }
}

/// Times hines::solve of `bt` with `Algorithm` on exec and checks the result. compare_as: the
/// algorithm whose same-morphology rows the mixed6 and mixed-shared notes compare this one with
/// (default: itself).
template <class Algorithm, class Exec, class Scalar, class Layout, class Memory>
void measure(BenchContext& ctx, Point& pt, const Exec& exec, const Batch<Scalar, Layout, Memory>& bt,
             const std::string& algorithm, Role role, const Algorithm& options = {}, const std::string& compare_as = "") {
  const std::string kernel_layout = algorithm + "/" + layout_label<Layout>();
  if constexpr (is_block_shared<Algorithm>) {
    // The solver throws (invalid_argument) when the block does not fit; that is a skip here.
    const std::size_t bytes = hines::block_shared_scratch_bytes<Algorithm::block_size, Scalar>(pt.pop.rows);
    const std::size_t most = static_cast<std::size_t>(Kokkos::TeamPolicy<Exec>::scratch_size_max(1));
    if (bytes > most) {
      ctx.message("tridiag-bench: " + kernel_layout + " " + pt.pop.label(pt.precision) + ": skipped, needs " +
                  std::to_string(bytes) + " bytes of team scratch, " + Exec::name() + " offers " + std::to_string(most));
      return;
    }
  }
  Kokkos::deep_copy(bt.x.storage(), std::numeric_limits<Scalar>::quiet_NaN());
  Kokkos::deep_copy(bt.status, -1);  // every neuron must overwrite its status
  Measurement m;
  m.role = role;
  m.kernel_layout = (compare_as.empty() ? algorithm : compare_as) + "/" + layout_label<Layout>();
  Row& row = m.row;
  row.algorithm = algorithm;
  row.layout = layout_label<Layout>() + "[" + pt.pop.spec->label + "]";
  row.device = device_of(exec);
  row.on_device = is_device_space<Exec>();
  row.useful_bytes = traffic::hines_useful_bytes(pt.pop.real_rows, sizeof(Scalar));
  row.memory_bytes = bt.memory_bytes;
  if constexpr (std::is_same_v<Algorithm, hines::algo::StagedBranchParallel>) {
    // What the kernel keeps in team scratch (staged_branch_parallel_staging, hines_solve.hpp);
    // where nothing fits it runs BranchParallel, which has its own row.
    switch (hines::staged_branch_parallel_staging<Exec, Scalar, Scalar>(pt.pop.rows, options)) {
      case hines::Staging::all: row.note = "staged a, b, d, rhs"; break;
      case hines::Staging::diagonal_and_rhs: row.note = "staged d, rhs"; break;
      case hines::Staging::none:
        ctx.message("tridiag-bench: " + kernel_layout + " " + pt.pop.label(pt.precision) +
                    ": skipped, the neurons do not fit in team scratch (it would run hines_branch_parallel)");
        return;
    }
    if (options.neurons_per_team > 1) row.note += ", " + std::to_string(options.neurons_per_team) + " neurons per team";
  }
  if constexpr (std::is_same_v<Algorithm, hines::algo::WarpStaged>) {
    // Where the warp kernel cannot run (warp_staged_runs: host spaces, mixed batches, cells too
    // large for its team's scratch) the solver runs PerNeuron, which has its own row. The step
    // tables are built here, outside the timed region.
    if (!hines::warp_staged_runs<Exec, Scalar>(exec, bt.batch)) {
      ctx.message("tridiag-bench: " + kernel_layout + " " + pt.pop.label(pt.precision) +
                  ": skipped, it would run hines (one morphology of a small cell on a CUDA device only)");
      return;
    }
    row.note = std::to_string(bt.batch.morphologies().warp_steps(hines::impl::warp_staged_groups).steps) +
               " steps per sweep";
  }
  if constexpr (std::is_same_v<Algorithm, hines::algo::SubtreeParallel>) {
    // The plan and its partitions are built here, once, outside the timed region (the solve
    // would on first use). Per number of groups: the blocks of 32 neurons (a team's lanes on a
    // GPU) cut for it, and its partition's levels, longest trunk and chain.
    const auto& plan = hines::subtree_parallel_plan<Scalar>(exec, bt.batch, options);
    std::vector<long long> blocks_of(plan.groups.size(), 0);
    auto units = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), plan.units);
    for (int u = 0; u < plan.teams(); ++u)
      for (std::size_t q = 0; q < plan.groups.size(); ++q)
        if (plan.groups[q] == units(u, plan.groups_per_neuron)) blocks_of[q] += units(u, plan.blocks);
    row.note = std::to_string(plan.team_groups) + " groups per team";
    for (std::size_t q = 0; q < plan.groups.size(); ++q) {
      const auto& partition = bt.batch.morphologies().subtree_partition(plan.groups[q], options.split_path);
      row.note += ", " + std::to_string(plan.groups[q]) + " per neuron on " + std::to_string(blocks_of[q]) +
                  " blocks (" + std::to_string(partition.levels) + " levels, trunk up to " +
                  std::to_string(partition.longest_trunk) + " rows, longest chain " +
                  std::to_string(partition.critical_rows) + " rows)";
    }
  }
  if constexpr (std::is_same_v<Algorithm, hines::algo::Automatic>) {
    // Which kernel it runs, as this benchmark names its rows (built here, outside the timed region).
    row.note = "runs " + hines::automatic_kernel_name<Scalar>(exec, bt.batch, options);
  }
  if (!solves_padding(options)) row.note = row.note.empty() ? "pad rows skipped" : row.note + ", pad rows skipped";
  row.timing = time_on(exec, ctx.options.repetitions(),
                       [&] { hines::solve(exec, bt.batch, bt.rhs, bt.x, bt.status, bt.workspace, options); });
  m.pads_solved = solves_padding(options);
  check_batch<Exec>(ctx, pt, row, bt, m.pads_solved);
  pt.results.push_back(std::move(m));
}

/// The host baselines on a host batch in the flat layout, except the one the chosen space already
/// measured as its own flat PerNeuron row; on mixed batches also without the pad rows ("_ncp",
/// solve_padding = false), the baselines of the rows that skip them: the same rows solved.
template <class Exec, class Scalar>
void measure_host_baselines(BenchContext& ctx, Point& pt, const Batch<Scalar, layouts::Flat, Kokkos::HostSpace>& h,
                            bool run_sequential) {
  const bool mixed = pt.pop.spec->mixed;
  [[maybe_unused]] const auto baseline = [&](const auto& exec, const std::string& name, Role role) {
    guarded_measurement(ctx, name + " " + pt.pop.label(pt.precision),
                        [&] { measure<hines::algo::PerNeuron>(ctx, pt, exec, h, name, role); });
    if (mixed)
      guarded_measurement(ctx, name + "_ncp " + pt.pop.label(pt.precision), [&] {
        measure<hines::algo::PerNeuron>(ctx, pt, exec, h, name + "_ncp", role, hines::algo::PerNeuron{false}, name);
      });
  };
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (!std::is_same_v<Exec, Kokkos::Serial>) {
    if (run_sequential) baseline(Kokkos::Serial(), "hines-sequential", Role::sequential);
  }
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (!std::is_same_v<Exec, Kokkos::OpenMP>) baseline(Kokkos::OpenMP(), "hines-openmp", Role::openmp);
#endif
  (void)run_sequential;
}

/// Both kernels on one layout's data; on the flat data also the host baselines.
template <class Scalar, class Layout, class Exec>
void measure_layout(BenchContext& ctx, Point& pt, const Exec& exec, bool run_sequential) {
  using Memory = typename Exec::memory_space;
  auto t0 = std::chrono::steady_clock::now();
  const Batch<Scalar, Layout, Memory> bt(exec, pt.pop, ctx.options.seed);
  pt.data_s += seconds_since(t0);
  constexpr bool flat = std::is_same_v<Layout, layouts::Flat>;
  Role role = Role::none;
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (flat && std::is_same_v<Exec, Kokkos::Serial>) role = Role::sequential;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (flat && std::is_same_v<Exec, Kokkos::OpenMP>) role = Role::openmp;
#endif
  // --no-host-baselines: no baseline at all, not even a host space's own flat row; the speedup
  // columns stay empty (--help), as on a GPU.
  if (!ctx.options.host_baselines) role = Role::none;
  const std::string what = layout_label<Layout>() + " " + pt.pop.label(pt.precision);
  guarded_measurement(ctx, "hines/" + what,
                      [&] { measure<hines::algo::PerNeuron>(ctx, pt, exec, bt, "hines", role); });
  // Mixed batches: the same kernel without the pad rows (solve_padding = false), compared in the
  // mixed6 and mixed-shared notes with the same-morphology hines rows; on a host space's flat
  // layout the baseline of the rows that skip the pad rows.
  if (pt.pop.spec->mixed)
    guarded_measurement(ctx, "hines_ncp/" + what, [&] {
      measure<hines::algo::PerNeuron>(ctx, pt, exec, bt, "hines_ncp", role, hines::algo::PerNeuron{false}, "hines");
    });
  guarded_measurement(ctx, "hines_block_shared32/" + what, [&] {
    measure<BlockShared>(ctx, pt, exec, bt, "hines_block_shared" + std::to_string(block), Role::none);
  });
  // A team per neuron on the two layouts a user would pick.
  if constexpr (flat || std::is_same_v<Layout, layouts::Interleaved>) {
    guarded_measurement(ctx, "hines_branch_parallel/" + what, [&] {
      measure<hines::algo::BranchParallel>(ctx, pt, exec, bt, "hines_branch_parallel", Role::none);
    });
  }
  // The automatic choice where it can pick something other than per-neuron.
  if constexpr (flat || std::is_same_v<Layout, layouts::Interleaved> ||
                std::is_same_v<Layout, layouts::BlockInterleaved<32>>)
    guarded_measurement(ctx, "hines_auto/" + what,
                        [&] { measure<hines::algo::Automatic>(ctx, pt, exec, bt, "hines_auto", Role::none); });
  // Several warps per 32 neurons (algo::SubtreeParallel): on the layouts where their accesses
  // coalesce; the automatic number of groups, 2 and 8; mixed batches also without the pad rows.
  if constexpr (std::is_same_v<Layout, layouts::Interleaved> || std::is_same_v<Layout, layouts::BlockInterleaved<32>>) {
    using Subtree = hines::algo::SubtreeParallel;
    // Named references, not a structured binding: lambdas capture structured bindings only from
    // C++20 on (nvcc warns, clang rejects it in C++17).
    for (const auto& kernel :
         {std::pair{std::string("hines_subtree_parallel"), Subtree{}},
          std::pair{std::string("hines_subtree_parallel2"), Subtree{2}},
          std::pair{std::string("hines_subtree_parallel8"), Subtree{8}},
          std::pair{std::string("hines_subtree_parallel_split"), Subtree{0, true, bench_split_path}}}) {
      const std::string& name = kernel.first;
      const Subtree& options = kernel.second;
      guarded_measurement(ctx, name + "/" + what,
                          [&] { measure<Subtree>(ctx, pt, exec, bt, name, Role::none, options); });
    }
    if (pt.pop.spec->mixed) {
      guarded_measurement(ctx, "hines_subtree_parallel_ncp/" + what, [&] {
        measure<Subtree>(ctx, pt, exec, bt, "hines_subtree_parallel_ncp", Role::none, Subtree{0, false},
                         "hines_subtree_parallel");
      });
      guarded_measurement(ctx, "hines_subtree_parallel_split_ncp/" + what, [&] {
        measure<Subtree>(ctx, pt, exec, bt, "hines_subtree_parallel_split_ncp", Role::none,
                         Subtree{0, false, bench_split_path}, "hines_subtree_parallel_split");
      });
    }
  }
  // A warp per 8 neurons staged in shared memory (algo::WarpStaged): batches of one small cell on
  // a CUDA device, on the layouts where a warp's neurons are neighbours.
  if constexpr (std::is_same_v<Layout, layouts::Interleaved> || std::is_same_v<Layout, layouts::BlockInterleaved<8>>)
    guarded_measurement(ctx, "hines_warp_staged/" + what, [&] {
      measure<hines::algo::WarpStaged>(ctx, pt, exec, bt, "hines_warp_staged", Role::none);
    });
  if constexpr (flat) {
    // The neuron in team scratch: on flat only, where a team's copies of its neuron coalesce;
    // a, b, d, rhs where they fit, and d, rhs only (half the scratch: twice the teams per SM).
    using Staged = hines::algo::StagedBranchParallel;
    guarded_measurement(ctx, "hines_staged_branch_parallel/" + what, [&] {
      measure<Staged>(ctx, pt, exec, bt, "hines_staged_branch_parallel", Role::none);
    });
    guarded_measurement(ctx, "hines_staged_branch_parallel_dr/" + what, [&] {
      measure<Staged>(ctx, pt, exec, bt, "hines_staged_branch_parallel_dr", Role::none, Staged{0, 0, false});
    });
    // Small cells: 4 neurons per team, 8 threads each (a team per neuron leaves most threads idle
    // and caps a GPU multiprocessor at 32 neurons, its limit of resident blocks).
    guarded_measurement(ctx, "hines_staged_branch_parallel_n4/" + what, [&] {
      measure<Staged>(ctx, pt, exec, bt, "hines_staged_branch_parallel_n4", Role::none, Staged{8, 0, true, 4});
    });
    if (ctx.options.host_baselines) {
      if constexpr (std::is_same_v<Memory, Kokkos::HostSpace>) {
        measure_host_baselines<Exec>(ctx, pt, bt, run_sequential);
      } else {
        guarded_measurement(ctx, "host baselines " + pt.pop.label(pt.precision), [&] {
          t0 = std::chrono::steady_clock::now();
          const Batch<Scalar, layouts::Flat, Kokkos::HostSpace> h(Kokkos::DefaultHostExecutionSpace(), pt.pop,
                                                                 ctx.options.seed);
          pt.host_data_s += seconds_since(t0);
          pt.data_s += seconds_since(t0);
          measure_host_baselines<Exec>(ctx, pt, h, run_sequential);
        });
      }
    }
  }
}

/// Writes the rows of a measured point with the speedups against its baselines; records the
/// same-morphology rates, and for mixed6 and mixed-shared notes the throughput against them on the
/// console. A measurement whose check failed is no row: its time would pass for that of a solve
/// (check_batch said what went wrong); nor is it a baseline or a same-morphology rate.
void emit_point(BenchContext& ctx, const Point& pt, RateTable& rates) {
  // The baselines by whether they solve the pad rows ([1]) or skip them ([0], mixed batches): a row
  // is compared with those that do the same work (the pad rows are 52% of mixed6's rows, 66% of
  // the shared cells').
  std::optional<double> sequential[2], openmp[2];
  for (const auto& m : pt.results) {
    if (!m.row.passed) continue;
    if (m.role == Role::sequential) sequential[m.pads_solved] = m.row.timing.median_ms();
    if (m.role == Role::openmp) openmp[m.pads_solved] = m.row.timing.median_ms();
  }
  const auto ratio = [](const std::optional<double>& reference, double t) -> std::optional<double> {
    if (!reference || !(t > 0)) return std::nullopt;
    return *reference / t;
  };
  const BatchSpec& spec = *pt.pop.spec;
  for (const auto& m : pt.results) {
    const Row& row = m.row;
    if (!row.passed) {
      ctx.left_out(row.algorithm + "/" + row.layout + " " + pt.pop.label(pt.precision) + " on " + row.device);
      continue;
    }
    const double t = row.timing.median_ms();
    std::string note = row.note;
    if (!spec.mixed && !spec.class_names.empty() && t > 0) {
      rates[rate_key(pt.precision, pt.pop.systems, m.kernel_layout, spec.class_names[0])] = double(pt.pop.real_rows) / t;
    } else if (spec.mixed && !spec.class_names.empty() && t > 0) {
      // Time the same neurons take as same-morphology batches of their classes (same layout,
      // kernel, precision and batch size) over this batch's time.
      double same_ms = 0;
      bool complete = true;
      for (std::size_t c = 0; c < spec.cells.size() && complete; ++c) {
        const auto found = rates.find(rate_key(pt.precision, pt.pop.systems, m.kernel_layout, spec.class_names[c]));
        complete = found != rates.end();
        if (complete) same_ms += double(pt.pop.neurons_per_cell[c]) * double(spec.cells[c]->size()) / found->second;
      }
      if (complete) {
        std::ostringstream os;
        os.precision(3);
        os << same_ms / t << " x the same-morphology throughput";
        note = note.empty() ? os.str() : note + "; " + os.str();
      }
    }
    CsvRow r;
    r.sweep = "hines";
    r.algorithm = row.algorithm;
    r.layout = row.layout;
    r.precision = pt.precision;
    r.systems = pt.pop.systems;
    r.size = pt.pop.rows;
    r.time_ms = t;
    r.useful_GBps = traffic::gbps(row.useful_bytes, t);
    if (const auto reference = ctx.copy.for_space(row.on_device); reference && *reference > 0)
      r.pct_of_copy_bw = 100.0 * *r.useful_GBps / *reference;
    r.speedup_vs_sequential = ratio(sequential[m.pads_solved], t);
    r.speedup_vs_openmp = ratio(openmp[m.pads_solved], t);
    r.memory_bytes = row.memory_bytes;
    r.max_rel_error = row.max_rel_error;
    r.device = row.device;
    r.commit = commit();
    std::ostringstream extra;
    extra.precision(4);
    extra << "min " << row.timing.min_ms() << " ms, " << row.timing.reps() << " reps; "
          << (t > 0 ? double(pt.pop.real_rows) / t * 1e-6 : 0.0) << " G rows/s";
    if (!note.empty()) extra << "; " << note;
    ctx.emit(r, extra.str());
  }
}

template <class Scalar, class Exec>
void run_point(BenchContext& ctx, const Exec& exec, const BatchSpec& spec, index_type systems, RateTable& rates) {
  const auto t0 = std::chrono::steady_clock::now();
  Point pt{precision_name<Scalar>(), Population(spec, systems), {}};
  const double padded_rows = double(systems) * double(pt.pop.rows);
  std::ostringstream rows;
  rows.precision(3);
  rows << padded_rows;
  if (!ctx.options.full && padded_rows > hines_batch_rows_limit) {
    ctx.message("tridiag-bench: " + pt.pop.label(pt.precision) + ": skipped (" + rows.str() +
                " padded rows > 5e8; --full runs it)");
    return;
  }
  // The sequential baseline: not for the large batches (bench_options.hpp). Serial's own flat row is
  // its baseline and always runs.
  const bool run_sequential = ctx.options.full || padded_rows <= hines_sequential_rows_limit;
  if (!run_sequential && !is_serial<Exec> && ctx.options.host_baselines)
    ctx.message("tridiag-bench: " + pt.pop.label(pt.precision) + ": sequential baseline skipped (" + rows.str() +
                " padded rows > 3e7; --full runs it)");
  measure_layout<Scalar, layouts::Flat>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::Interleaved>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::BlockInterleaved<8>>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::BlockInterleaved<32>>(ctx, pt, exec, run_sequential);
  measure_layout<Scalar, layouts::UnifiedVector>(ctx, pt, exec, run_sequential);
  emit_point(ctx, pt, rates);
  std::ostringstream os;
  os.precision(3);
  os << "tridiag-bench: " << pt.pop.label(pt.precision) << ": " << seconds_since(t0) << " s, of which "
     << pt.data_s << " s building the batches (" << pt.host_data_s << " s the host copy of the baselines)";
  ctx.message(os.str());
}

template <class Exec>
void sweep_on(BenchContext& ctx, const Exec& exec, const std::vector<BatchSpec>& specs) {
  const Options& o = ctx.options;
  RateTable rates;
  ProgressScope progress(ctx, o.precisions.size() * o.systems.size() * specs.size());
  for (const auto& precision : o.precisions)
    for (const index_type systems : o.systems)
      for (const auto& spec : specs) {
        const std::string what = "hines " + precision + " " + std::to_string(systems) + " x " + spec.label;
        progress.step(what + " on " + Exec::name());
        guarded_measurement(ctx, what, [&] {
          if (precision == "float")
            run_point<float>(ctx, exec, spec, systems, rates);
          else
            run_point<double>(ctx, exec, spec, systems, rates);
        });
      }
  progress.done(std::string("hines on ") + Exec::name());
}

}  // namespace

std::vector<std::string> hines_csv_notes() {
  return {
      "hines: layout = <layout>[<batch>]; batch = a size class (small-low .. big-high, algorithms/hines/"
      "size_classes.hpp: one morphology for every neuron), a shared cell at the default discretisation (file name "
      "without .swc/.CNG.swc; X.CNG for X.CNG.swc where X.swc is there too), mixed6,padded|grouped (the six classes round-robin) or sharedN,padded|grouped (the N "
      "shared cells round-robin); padded = neurons in generation order, grouped = sorted by size then morphology "
      "(hines::Grouping::by_morphology); mixed batches are padded to their largest cell",
      "hines: size = rows of the batch (largest cell incl. padding); useful bytes count real rows only, so "
      "useful_GBps / (5 x sizeof(scalar)) = G real matrix rows per second (compartments + section end nodes + root, not "
      "compartments), comparable between same-morphology and mixed batches; algorithm hines = algo::PerNeuron, hines_block_shared32 = algo::BlockShared<32>, hines_branch_parallel = algo::BranchParallel, hines_staged_branch_parallel = algo::StagedBranchParallel (flat only; "
      "the console note says what it staged in team scratch; skipped where nothing fits), "
      "hines_staged_branch_parallel_dr = the same with stage_coefficients = false (d and rhs only), "
      "hines_staged_branch_parallel_n4 = the same with 4 neurons per team of 8 threads, hines_auto = algo::Automatic (the console line says which kernel it runs); "
      "hines_warp_staged = algo::WarpStaged (interleaved and block_interleaved8; one morphology of a small cell on a CUDA "
      "device, else skipped); "
      "hines_subtree_parallel = algo::SubtreeParallel (interleaved and block_interleaved32; automatic groups per "
      "neuron), hines_subtree_parallel2/8 = the same with 2/8 groups (warps on a GPU), hines_subtree_parallel_split = "
      "the automatic groups with split_path = 64 (trunk paths of 64 rows and more split among the groups), the console note gives the "
      "groups, levels, the longest trunk and chain; on mixed batches hines_ncp = algo::PerNeuron and hines_subtree_parallel_ncp = "
      "algo::SubtreeParallel with solve_padding = false (pad rows neither read nor written; the mixed6 and "
      "mixed-shared notes compare with the same-morphology hines / hines_subtree_parallel rows); "
      "hines-sequential = Kokkos::Serial, flat, PerNeuron (skipped above 3e7 padded rows = neurons x size without "
      "--full); hines-openmp = Kokkos::OpenMP, flat, PerNeuron, all threads (a host space's own flat hines row is its "
      "baseline; --no-host-baselines: no baseline, every speedup column empty); on mixed batches the rows that skip "
      "the pad rows (*_ncp) have their speedups against hines-sequential_ncp and hines-openmp_ncp (the same "
      "baselines with solve_padding = false: the same rows solved; a host space's flat hines_ncp row is its own), "
      "the others against the baselines that solve the pad rows; batches above 5e8 padded rows "
      "(mixed-shared at 256,000 neurons) are skipped without --full; "
      "max_rel_error = relative forward error vs a "
      "long-double sequential Hines on sampled neurons (every morphology's first and last, the ends of the blocks "
      "of 32 neurons that straddle two morphologies, the first, the last and 14 drawn; at most 64); a measurement "
      "whose check failed (a nonzero status, an error above the bound, a pad row written) is left out: no row, not a baseline (speedups against it stay "
      "empty), named on stderr, exit status 1; memory_bytes = a, b, d, rhs, x, workspace, status, "
      "morphology ids and what hines::Morphologies allocates when the batch is built (parent, sizes, links, branch "
      "schedule); not counted: what the library builds on a kernel's first use and keeps (SubtreeParallel "
      "partitions and team plans, WarpStaged step tables) and team scratch; these definitions "
      "replace the tridiag ones of the speedup_vs_*, memory_bytes and max_rel_error lines below for hines rows",
  };
}

void check_hines_batches(const Options& o) {
  const CellLibrary library(morphology_dir(o));
  for (const auto& name : batch_names(o)) {
    if (const hines::SizeClass* size_class = size_class_named(name); size_class != nullptr) {
      library.require_file(name, size_class->shared_file);
    } else if (name == "mixed6") {
      for (const auto& c : hines::seed_size_classes) library.require_file(name, c.shared_file);
    } else if (name == "mixed-shared") {
      library.shared_names();
    } else {
      library.file_of(name);
    }
  }
}

void run_hines_sweep(BenchContext& ctx) {
  // Cells first: a bad --batches or a missing file stops the run before anything is measured
  // (main checked the names and files before the CSV was opened; this is `all`'s default list).
  CellLibrary library(morphology_dir(ctx.options));
  const auto specs = batch_specs(ctx.options, library);
  ensure_copy_reference(ctx);
  with_exec(ctx.options.exec, [&](auto exec) { sweep_on(ctx, exec, specs); });
}

}  // namespace tridiag::bench
