#pragma once
// Which neurons of a Hines batch the oracle checks (sweep_hines.cpp). sample_systems' 16 (the first,
// the last, 14 drawn) can miss a whole morphology of a mixed batch, and the blocks of 32 neurons
// where a grouped batch changes morphology (what a warp or a block-interleaved block shares), so
// these come first:
//  1. the first slot of every morphology, then the last slot of every morphology;
//  2. for every block of 32 slots in which the morphology changes, the block's first and last
//     slot and the two slots on either side of each change;
// at most `most_structured` of them, in that order (round-robin batches change morphology at every
// slot: their blocks are taken from the start until the cap), plus sample_systems' ones.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <vector>

#include "bench_problem.hpp"

namespace tridiag::bench {

/// Neurons of a block whose boundaries the oracle samples: a warp of a GPU, BlockShared<32>'s team,
/// block_interleaved32's block.
constexpr index_type hines_sample_block = 32;

/// The slots the oracle checks, ascending. morphology_of_slot: the morphology of every slot of
/// the batch (empty: one morphology); systems: the number of slots.
inline std::vector<index_type> sample_neurons(const std::vector<int>& morphology_of_slot, index_type systems,
                                              std::uint64_t seed, std::size_t most_structured = 48) {
  std::vector<index_type> structured;
  if (!morphology_of_slot.empty()) {
    const int count = *std::max_element(morphology_of_slot.begin(), morphology_of_slot.end()) + 1;
    std::vector<index_type> first(static_cast<std::size_t>(count), -1), last(static_cast<std::size_t>(count), -1);
    for (index_type s = 0; s < systems; ++s) {
      const int m = morphology_of_slot[s];
      if (first[m] < 0) first[m] = s;
      last[m] = s;
    }
    for (const auto* ends : {&first, &last})
      for (const index_type s : *ends)
        if (s >= 0) structured.push_back(s);
    for (index_type s = 1; s < systems && structured.size() < 4 * most_structured; ++s) {
      if (morphology_of_slot[s] == morphology_of_slot[s - 1]) continue;
      const index_type begin = s / hines_sample_block * hines_sample_block;
      const index_type end = std::min(systems, begin + hines_sample_block) - 1;
      if (begin == s) continue;  // the change falls on a block boundary: no block holds both
      structured.insert(structured.end(), {begin, end, s - 1, s});
    }
  }
  std::set<index_type> ids;
  for (const index_type s : structured) {
    if (ids.size() >= most_structured) break;
    ids.insert(s);
  }
  for (const index_type s : sample_systems(systems, seed)) ids.insert(s);
  return {ids.begin(), ids.end()};
}

}  // namespace tridiag::bench
