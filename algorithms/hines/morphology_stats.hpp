#pragma once
// Summary statistics of an SWC morphology, one node per SWC sample, as defined in
// shared/morphologies/README.md (the table there is checked against this code in the unit tests).

#include <tridiag/algorithms/hines/swc.hpp>

namespace tridiag::hines {

/// Counts over the sample tree (not over the discretised cell).
struct MorphologyStats {
  long points = 0;         ///< number of samples
  long branch_points = 0;  ///< samples with two or more children
  long tips = 0;           ///< samples with no child
  long max_depth = 0;      ///< samples on the longest root-to-tip path, the root counted as 1
  SomaKind soma = SomaKind::none;
};

/// O(n), no recursion: relies on Morphology's parent-before-child order, which it checks (throws
/// tridiag::invalid_argument for a parent_index of another size than the samples, or one that
/// is not -1 or below its sample's index).
MorphologyStats compute_stats(const Morphology& morphology);

}  // namespace tridiag::hines
