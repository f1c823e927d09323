#pragma once
// Morphology -> unbranched cable sections, by the rules of NEURON's Import3d (8.2: read_swc.hoc
// `Import3d_SWC_read`, and `Import3d_GUI.instantiate`/`chk_valid`), so that a cell discretised
// here has the same sections, 3-D points and connections as one loaded into NEURON with
//   r = h.Import3d_SWC_read(); r.input(path); h.Import3d_GUI(r, False).instantiate(None)
//
// The rules, on samples in ascending-id order (Morphology's order; NEURON sorts by id too):
//  1. A section is a run of consecutive samples, each the only child of the one before, of one
//     SWC type. A run ends at a sample whose child count is not exactly one, whose child is not
//     the next sample in the file, or whose child has another type. Consecutive soma samples
//     stay in one section unless a soma sample (other than the root) has several soma children.
//     One exception, NEURON's own: where a later child of a sample connects at 0 (rule 4), that
//     sample counts as having one plain child again, so its section runs on into the next sample
//     even when that sample has another type (an axon sample can end up in a dendrite's section).
//  2. NeuroMorpho three-point soma (exactly 3 type-1 samples; samples 1 and 2 children of the
//     root, childless, of the root's diameter, and together as long as that diameter within 1%):
//     the root alone makes the soma, a sphere (rule 6).
//  3. Every non-root section starts with a copy of its parent sample; if the parent section is a
//     soma and the section is not, that copy takes the diameter of the section's first sample.
//  4. Where it connects (NEURON's parentx): 0.5 on a one-sample root (a sphere), 0 on the first
//     sample of the root, 0.5 on an interior sample of a soma section, else 1 (the distal end).
//     A child that is not the next sample after its parent, whose parent is the first sample
//     of a dendrite leaving the soma (or the root, if the root is not soma), connects at 0.
//  5. A dendrite hanging off a soma by a "wire" (one-sample soma, interior soma sample, or a soma
//     sample with several soma children) drops the parent copy: its geometry starts at its own
//     first sample (NEURON's pt3dstyle 1 logical connection; electrically the same connection).
//  6. A one-point root becomes a cylinder of length and diameter 2r along x (NEURON's
//     sphere_rep): 3 points (x-r, y, z), (x, y, z), (x+r, y, z); its side area 4 pi r^2 is the
//     sphere's.
//  7. A non-root section of two points at the same place (zero length) is removed and its
//     children attach where it attached (chk_valid).
// Differs from NEURON only where NEURON would build a section whose consecutive points are not
// parent and child (a corner case of rule 4's reset): we end the section there instead.
// A soma given as several type-1 samples (a stack or an outline) is a plain cable through those
// samples, as NEURON 8.2 does for SWC (its contour-to-centroid code runs for Neurolucida only).

#include <string>
#include <vector>

#include <tridiag/algorithms/hines/swc.hpp>

namespace tridiag::hines {

/// One 3-D point of a section (NEURON's pt3d), um.
struct CablePoint {
  double x = 0, y = 0, z = 0;
  double diameter = 0;
};

/// An unbranched cable (NEURON's Section as Import3d builds it).
struct CableSection {
  int type = 0;                  ///< SWC type of its own samples
  int parent = -1;               ///< index of the parent section (< own index); -1 for the root
  double parent_x = 1;           ///< where on the parent it connects: 0, 0.5 or 1 (NEURON parentx)
  std::vector<CablePoint> points;  ///< proximal to distal, at least 2
  int first_sample = 0;          ///< own samples: morphology indices [first_sample, last_sample]
  int last_sample = 0;
  /// Index of this section among the sections of its type, in order (NEURON names the section
  /// soma[k], axon[k], dend[k], apic[k] or dend_<type>[k] with this k).
  int index_in_type = 0;

  /// Arc length of `points`, um.
  double length_um() const;
};

/// Builds the sections of a single-tree morphology (root section first, parents before
/// children). Throws tridiag::invalid_argument for a forest (Morphology::root_count() != 1).
std::vector<CableSection> make_cable_sections(const Morphology& morphology);

/// NEURON's name of a type's section list: "soma", "axon", "dend", "apic", "dend_<type>".
std::string neuron_section_name(int type);

}  // namespace tridiag::hines
