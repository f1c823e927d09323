// Check of sample_neurons (bench_hines_sampling.hpp), the neurons the hines sweep's oracle compares:
// every morphology of a mixed batch, padded or grouped, at its first and last slot; the blocks of
// 32 slots that straddle a change of morphology at their ends; a bounded total. Plain main (ctest
// tridiag.perf.hines_sampling): exit 0 when every check holds.

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "bench_hines_sampling.hpp"

namespace {

using tridiag::index_type;
int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

bool has(const std::vector<index_type>& v, index_type s) { return std::binary_search(v.begin(), v.end(), s); }

/// The morphology of every slot as the sweep lays them out (Population, sweep_hines.cpp): neuron k
/// has morphology k mod sizes.size(); grouped: sorted by size (descending), then morphology.
std::vector<int> layout_of(const std::vector<int>& sizes, index_type n, bool grouped) {
  const int count = static_cast<int>(sizes.size());
  std::vector<index_type> neuron(static_cast<std::size_t>(n));
  std::iota(neuron.begin(), neuron.end(), index_type(0));
  if (grouped)
    std::stable_sort(neuron.begin(), neuron.end(), [&](index_type u, index_type v) {
      if (sizes[u % count] != sizes[v % count]) return sizes[u % count] > sizes[v % count];
      return u % count < v % count;
    });
  std::vector<int> morphology(static_cast<std::size_t>(n));
  for (index_type s = 0; s < n; ++s) morphology[s] = static_cast<int>(neuron[s] % count);
  return morphology;
}

void check_batch(const std::string& name, const std::vector<int>& sizes, index_type n, bool grouped) {
  const std::string what = name + (grouped ? ",grouped " : ",padded ") + std::to_string(n);
  const std::vector<int> morphology = layout_of(sizes, n, grouped);
  const auto slots = tridiag::bench::sample_neurons(morphology, n, 20261122);
  check(std::is_sorted(slots.begin(), slots.end()) &&
            std::adjacent_find(slots.begin(), slots.end()) == slots.end(),
        what + ": slots not ascending and distinct");
  check(slots.size() <= 64, what + ": " + std::to_string(slots.size()) + " slots, more than 64");
  check(!slots.empty() && slots.front() >= 0 && slots.back() < n, what + ": slot out of range");
  check(has(slots, 0) && has(slots, n - 1), what + ": first or last slot missing");
  for (int m = 0; m < static_cast<int>(sizes.size()); ++m) {
    const auto first = std::find(morphology.begin(), morphology.end(), m) - morphology.begin();
    if (first == n) continue;  // fewer neurons than morphologies
    const auto last = morphology.rend() - std::find(morphology.rbegin(), morphology.rend(), m) - 1;
    check(has(slots, first) && has(slots, last), what + ": morphology " + std::to_string(m) + " (slots " +
                                                     std::to_string(first) + ".." + std::to_string(last) +
                                                     ") not sampled at both ends");
  }
  if (grouped)
    for (index_type s = 1; s < n; ++s)
      if (morphology[s] != morphology[s - 1] && s % 32 != 0) {
        const index_type begin = s / 32 * 32, end = std::min(n, begin + 32) - 1;
        check(has(slots, begin) && has(slots, end) && has(slots, s - 1) && has(slots, s),
              what + ": block " + std::to_string(begin) + ".." + std::to_string(end) + " straddling slot " +
                  std::to_string(s) + " not sampled at its ends and at the change");
      }
}

}  // namespace

int main() {
  // mixed6: the size classes' rows (size_classes.hpp's order, sizes as discretised by the sweep).
  const std::vector<int> mixed6{75, 160, 540, 960, 1780, 4035};
  // shared11: eleven cells, two of the same size (ties keep the morphology order).
  const std::vector<int> shared11{900, 1200, 700, 4035, 3000, 1300, 1000, 1700, 350, 3800, 1200};
  for (const index_type n : {6, 40, 1000, 25600, 256000})
    for (const bool grouped : {false, true}) {
      check_batch("mixed6", mixed6, n, grouped);
      check_batch("shared11", shared11, n, grouped);
    }
  // One morphology: sample_systems' choice (first, last and 14 drawn).
  const auto one = tridiag::bench::sample_neurons({}, 25600, 20261122);
  check(one == tridiag::bench::sample_systems(25600, 20261122), "one morphology: not sample_systems' slots");
  // Small batches: every neuron.
  const auto small = tridiag::bench::sample_neurons(layout_of(mixed6, 12, true), 12, 1);
  check(small.size() == 12, "12 neurons: not all sampled");
  if (failures == 0) std::printf("sample_neurons: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
