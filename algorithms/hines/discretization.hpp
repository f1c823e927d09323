#pragma once
// Morphology -> compartmental cell, the way NEURON 8.2 discretises a cell loaded with Import3d:
// sections from make_cable_sections (cable_sections.hpp), nseg per section by a rule below, and
// per segment the membrane area and axial resistances integrated over the 3-D points
// (NEURON's nrn_area_ri / diam_from_list in src/nrnoc/treeset.cpp).
//
// Nodes (NEURON's, one matrix row each):
//  - one root node: the x = 0 end of the root section, no membrane (area 0);
//  - per section, nseg segment-centre nodes at x = (j + 1/2)/nseg, j = 0..nseg-1, carrying the
//    membrane of segment j;
//  - per section, one end node at x = 1, no membrane (area 0): NEURON keeps it even when
//    nothing connects there.
// So size() = compartments() + sections.size() + 1. A child section's first segment hangs off
// the node at its connection point on the parent: x = 1 -> the parent's end node; 0 < x < 1 ->
// the parent's segment containing x; x = 0 -> the parent's own connection node (root node for
// the root section).
//
// Geometry of a segment j of a section of length L (um), ds = L/nseg, halves
// [j ds, (j+1/2) ds] and [(j+1/2) ds, (j+1) ds]; the diameter d(s) is piecewise linear in the
// arc length s between 3-D points, so each half is a chain of frustums:
//  - area (um^2) = sum over frustums of pi (r1 + r2) sqrt(l^2 + (r1 - r2)^2) (lateral area; a
//    zero-length step in diameter adds the annulus pi |r1^2 - r2^2|, as NEURON does);
//  - resistance of a half (MOhm) = integral of 4 Ra / (pi d(s)^2) ds = sum 4 Ra l / (pi d1 d2)
//    x 0.01 (Ra in ohm cm, lengths in um: ohm cm / um = 1e4 ohm = 1e-2 MOhm);
//  - conductance from segment j to segment j-1 = 1 / (right half of j-1 + left half of j);
//    first segment to its parent node = 1 / (left half of segment 0); end node to the last
//    segment = 1 / (right half of segment nseg-1). In uS (1/MOhm).

#include <string>
#include <vector>

#include <tridiag/algorithms/hines/cable_sections.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

namespace tridiag::hines {

/// How many segments (compartments) each section gets, and the cable constants.
struct DiscretizationOptions {
  enum class Rule {
    /// nseg = smallest odd integer with L / nseg <= max_length_um, i.e.
    /// n = max(1, ceil(L / max_length_um)), plus 1 if even. (Odd like NEURON's rules, so that
    /// x = 0.5 is a node.) E.g. max 20 um: L = 20 -> 1, L = 20.1 -> 3, L = 60.1 -> 5.
    max_length,
    /// NEURON's d_lambda rule (stdlib.hoc lambda_f; Hines & Carnevale, The NEURON Book 5.6):
    /// nseg = int((L / (d_lambda * lambda_f) + 0.9) / 2) * 2 + 1 with
    /// lambda_f = L / (sum_pieces l / sqrt(d1 + d2) * sqrt(2) * 1e-5 * sqrt(4 pi f Ra cm))
    /// (um; the AC length constant at frequency f, integrated over the 3-D points).
    d_lambda
  };
  Rule rule = Rule::max_length;
  double max_length_um = 20;   ///< for Rule::max_length, um
  double d_lambda = 0.1;       ///< for Rule::d_lambda, fraction of lambda_f
  double frequency_hz = 100;   ///< for Rule::d_lambda, Hz
  double Ra_ohm_cm = 35.4;     ///< axial resistivity, ohm cm (NEURON's default)
  double cm_uF_cm2 = 1.0;      ///< specific membrane capacitance, uF/cm^2 (NEURON's default)
  /// The most nodes (matrix rows) one cell may have; discretize rejects a larger cell before it
  /// builds any node. The shared reconstructions need at most a few thousand; a damaged
  /// coordinate (-2^31 um) asks for 10^8, which would take gigabytes and half a minute. Raise it
  /// for a cell that really is that large (at most INT_MAX).
  int max_nodes = 1'000'000;
};

/// A cell ready for a Hines solve. Node arrays are in Hines numbering: depth first from the root
/// node, parent[i] < i, each section's nodes contiguous (segment 0 .. nseg-1, then its end node).
struct CompartmentalCell {
  // ---- per node ----
  std::vector<int> parent;                    ///< parent node; -1 for node 0 (the root node)
  std::vector<double> area_um2;               ///< membrane area, um^2; 0 for root/end nodes
  std::vector<double> axial_conductance_uS;   ///< to the parent node, uS; 0 for node 0
  std::vector<int> section_of;                ///< section of the node (root node: section 0)
  std::vector<double> x_in_section;           ///< 0 root node, (j+1/2)/nseg centres, 1 end nodes
  // ---- per section ----
  std::vector<CableSection> sections;         ///< geometry, parent section, connection point
  std::vector<int> nseg;                      ///< segments of each section (odd)
  std::vector<int> first_node;                ///< node of segment 0; segment j is first_node+j,
                                              ///< the end node first_node + nseg
  std::vector<double> length_um;              ///< section length L, um
  // ---- cable constants used ----
  double Ra_ohm_cm = 35.4;
  double cm_uF_cm2 = 1.0;

  /// Matrix size (number of nodes).
  int size() const { return static_cast<int>(parent.size()); }
  /// Number of segments, i.e. nodes with membrane (sum of nseg).
  long compartments() const;
  /// The node NEURON uses for sec(x) of section `section`, x in [0, 1] (as for an IClamp or a
  /// recording): 0 -> the section's connection node, 1 -> its end node, else the segment
  /// containing x (min(int(x nseg), nseg - 1)).
  int node_at(int section, double x) const;
  /// Total membrane area, um^2.
  double total_area_um2() const;
};

/// Throws tridiag::invalid_argument (message starting with `where`) unless `cell` is what
/// discretize builds: per-node arrays of one size, parent[0] = -1 and 0 <= parent[i] < i, areas
/// finite and >= 0, axial conductances finite and > 0 (0 for node 0), per-section arrays of one
/// size with every section's nodes inside the cell, and cm_uF_cm2 finite and >= 0. For cells built
/// or edited by hand; the assembly (assemble_backward_euler, cable_step_coefficients) calls it.
void check_compartmental_cell(const CompartmentalCell& cell, const std::string& where);

/// Segments for one section under `options` (odd, >= 1).
int segment_count(const CableSection& section, const DiscretizationOptions& options);

/// Discretises a single-tree morphology (throws tridiag::invalid_argument for a forest or bad
/// options: max_length_um, d_lambda, frequency_hz, Ra_ohm_cm must be > 0, cm_uF_cm2 >= 0 (> 0 for
/// the d_lambda rule), max_nodes >= 1; a cell of more than max_nodes nodes is rejected, naming its
/// largest section). The cell it returns passes check_compartmental_cell: geometry whose areas or
/// axial conductances underflow or overflow (a diameter of 1e-300 um) is rejected too, naming the
/// section by its SWC ids and lines; errors are prefixed with morphology.source.
CompartmentalCell discretize(const Morphology& morphology,
                             const DiscretizationOptions& options = {});

/// Discretises given sections (root first, parents before children, >= 2 points each).
CompartmentalCell discretize(std::vector<CableSection> sections,
                             const DiscretizationOptions& options = {});

}  // namespace tridiag::hines
