#pragma once
// What the trunk drivers share (hines_trunk_lookahead_driver.cpp, hines_split_trunk_driver.cpp;
// not part of the library): the cells from the SWC files (perf_tests' discretisation: the six
// size classes at their compartment lengths, the 11 shared cells at the default settings, each
// list largest first), a grouped mixed batch of them (N / C neurons each) and a cell alone, timed
// with SubtreeParallel and Automatic on Interleaved (hines_driver_common.hpp's run).
#include "hines_driver_common.hpp"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/size_classes.hpp>
#include <tridiag/algorithms/hines/swc.hpp>
#include <vector>

inline std::vector<int> cell_parents(const std::string& path, double max_length_um) {
  hines::DiscretizationOptions o;
  if (max_length_um > 0) o.max_length_um = max_length_um;
  return hines::discretize(hines::load_swc(path), o).parent;
}

struct Named {
  std::string name;
  std::vector<int> parent;
};

/// N neurons of `cells` (C of them) in one batch: neuron s has cell s * C / N (grouped: largest
/// first, as Grouping::by_morphology stores them, when `cells` is) or s % C (round robin); real:
/// the rows of the neurons' own cells.
struct MixedBatch {
  hines::Morphologies<Mem> morph;
  Kokkos::View<int*, Mem> ids;
  index_type real = 0;
};
inline MixedBatch mixed_batch(const std::vector<Named>& cells, index_type N, bool grouped = true) {
  std::vector<std::vector<int>> parents;
  for (const auto& c : cells) parents.push_back(c.parent);
  const int C = static_cast<int>(parents.size());
  MixedBatch m{hines::make_morphologies<Mem>(parents), Kokkos::View<int*, Mem>("ids", N)};
  auto h = Kokkos::create_mirror_view(m.ids);
  for (index_type s = 0; s < N; ++s) {
    h(s) = grouped ? int(s * C / N) : int(s % C);
    m.real += parents[h(s)].size();
  }
  Kokkos::deep_copy(m.ids, h);
  return m;
}

/// Grouped batch of `cells` (largest first, as Grouping::by_morphology stores them), N / C each.
inline double mixed(const char* what, const std::vector<Named>& cells, index_type N, double copy) {
  const MixedBatch m = mixed_batch(cells, N);
  using SP = hines::algo::SubtreeParallel;
  return run<layouts::Interleaved>(what, m.morph, m.ids, N, m.real, copy, SP{0, false});
}

inline double alone(const Named& c, index_type N, double copy) {
  const auto morph = hines::make_morphologies<Mem>({c.parent});
  const Kokkos::View<int*, Mem> none;
  const index_type real = N * morph.rows();
  const std::string a = c.name + " SP auto Interleaved", b = c.name + " Automatic Interleaved";
  const double t1 = run<layouts::Interleaved>(a.c_str(), morph, none, N, real, copy, hines::algo::SubtreeParallel{0, false});
  const double t2 = run<layouts::Interleaved>(b.c_str(), morph, none, N, real, copy, hines::algo::Automatic{false});
  return std::min(t1, t2);
}

/// A grouped batch of `cells` (N / C neurons each, largest first) with random values.
struct Grouped {
  hines::Morphologies<Mem> morph;
  Kokkos::View<int*, Mem> ids;
  std::unique_ptr<RandomBatch<layouts::Interleaved>> p;
  index_type N = 0, real = 0;
  Grouped(const std::vector<Named>& cells, index_type n) : N(n) {
    if (cells.size() > 1) {
      MixedBatch m = mixed_batch(cells, N);
      morph = m.morph;
      ids = m.ids;
      real = m.real;
    } else {
      morph = hines::make_morphologies<Mem>({cells[0].parent});
      real = N * static_cast<index_type>(cells[0].parent.size());
    }
    p = std::make_unique<RandomBatch<layouts::Interleaved>>(morph, ids, N);
  }
  double checksum() const {
    double sum = 0;
    Kokkos::parallel_reduce(Kokkos::RangePolicy<Exec>(0, N), Checksum<RandomBatch<layouts::Interleaved>::V>{p->x, morph.rows()}, sum);
    return sum;
  }
};

/// The six size classes and the 11 shared cells of `dir`, each largest first, and AA0013.
struct TrunkCells {
  std::vector<Named> classes, shared;
  Named aa0013;
};

inline TrunkCells trunk_cells(const std::string& dir) {
  TrunkCells t;
  for (int k = 5; k >= 0; --k) {
    const auto& c = hines::seed_size_classes[k];
    t.classes.push_back({c.name, cell_parents(dir + "/" + c.shared_file, c.max_length_um)});
  }
  const char* shared_files[] = {"10-2012-02-09-001.CNG.swc", "AA0013.swc", "BG001.CNG.swc",
                                "C080400A3.CNG.swc", "C220498B-I4.CNG.swc", "HSN-fluoro01.CNG.swc",
                                "HSN-fluoro02.CNG.swc", "control-1-wt.CNG.swc", "mp_ma_40984_gc2.CNG.swc",
                                "nrn_ordering.swc", "tc200.CNG.swc"};
  for (const char* f : shared_files) t.shared.push_back({f, cell_parents(dir + "/" + f, 0)});
  std::stable_sort(t.shared.begin(), t.shared.end(),
                   [](const Named& u, const Named& v) { return u.parent.size() > v.parent.size(); });
  for (const auto& c : t.shared)
    if (c.name == "AA0013.swc") t.aa0013 = c;
  return t;
}

/// One setting's timings: AA0013 at 2,327 and 1,000 neurons, big-high at 4,267 (its share of the
/// six classes' mix), then the six classes and the 11 shared cells at N neurons alone and mixed,
/// with issue 6's strict ratios (the faster of SubtreeParallel's and Automatic's single-cell
/// times).
inline void time_trunk_batches(const TrunkCells& cells, index_type N, double copy) {
  alone(cells.aa0013, 2327, copy);
  alone(cells.aa0013, 1000, copy);
  alone(cells.classes[0], 4267, copy);
  double sum6 = 0, sum11 = 0;
  for (const auto& c : cells.classes) sum6 += alone(c, N, copy) / cells.classes.size();
  const double mix6 = mixed("mixed6 grouped SP auto Interleaved", cells.classes, N, copy);
  printf("six classes at %lld: alone %.4f ms, mixed %.4f ms, ratio %.3f (SubtreeParallel/Automatic singles)\n",
         (long long)N, sum6 * 1e3, mix6 * 1e3, sum6 / mix6);
  for (const auto& c : cells.shared) sum11 += alone(c, N, copy) / cells.shared.size();
  const double mix11 = mixed("shared11 grouped SP auto Interleaved", cells.shared, N, copy);
  printf("11 shared cells at %lld: alone %.4f ms, mixed %.4f ms, ratio %.3f\n", (long long)N, sum11 * 1e3,
         mix11 * 1e3, sum11 / mix11);
}

/// The drivers' settings: argv[2] split at spaces, or `otherwise` without it.
inline std::vector<std::string> settings_of(int argc, char** argv, const char* otherwise) {
  std::vector<std::string> settings;
  std::istringstream in(argc > 2 ? argv[2] : otherwise);
  for (std::string s; in >> s;) settings.push_back(s);
  return settings;
}

/// Prints the copy bandwidth; with the single setting "profile" (for Nsight Compute) times AA0013
/// at 1,000 neurons only and clears the settings.
inline void profile_if_asked(std::vector<std::string>& settings, const TrunkCells& cells, double copy) {
  printf("copy %.0f GB/s\n", copy);
  if (settings.size() == 1 && settings[0] == "profile") {
    alone(cells.aa0013, 1000, copy);
    settings.clear();
  }
}
