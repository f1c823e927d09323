#pragma once
// The six morphology size classes of the seed papers (Valero-Lara et al., cuHinesBatch, ICCS 2017,
// Table 1) mapped onto the real cells of shared/morphologies, so that benchmarks can reproduce
// the papers' system sizes with real morphologies.
//
// The papers' sizes (76 .. 695) are compartment counts after discretisation; their six cells are
// not available here (shared/morphologies/README.md). For each class we pick the shared cell
// whose branching is closest among those that can reach the size, and the max_length rule value
// (DiscretizationOptions::Rule::max_length, NEURON Import3d sections) that gives the nearest
// compartment count. Measured with discretize() (tridiag 0.1, checked by the unit test
// DiscretizationRealCells.SizeClassTable); max_length_um sits inside the range that gives the
// count, so it is robust to rounding.
//
// Compartments = sum of nseg. Every nseg is odd, so the count has the parity of the number of
// sections: 76, 319 and 691 cannot be hit exactly with 29, 204 and 364 sections (77, 320, 692).
// matrix_size = compartments + sections + 1 is the Hines system NEURON solves (it keeps a
// zero-area node at the x = 1 end of each section and at the root). With those nodes no shared
// cell reaches the papers' high-branching classes exactly: the smallest matrix of HSN-fluoro02
// (364 sections) is 729 rows.
//
// class        paper size/branches (cell)     shared cell            sections max_len comp. matrix
// small-low     76 /   7 (299-DG-IN-Neuron2)  mp_ma_40984_gc2.CNG.swc     29   32.0     77    107
// small-high    76 /  29 (202-2-19nj)         mp_ma_40984_gc2.CNG.swc     29   32.0     77    107
// medium-low   305 /  30 (59D-40X)            nrn_ordering.swc           123   25.3    305    429
// medium-high  319 / 157 (Culture-9-5)        tc200.CNG.swc              204   50.5    320    525
// big-low      695 /  66 (28-2-2)             nrn_ordering.swc           123    8.3    695    819
// big-high     691 / 341 (HSE-fluoro02)       HSN-fluoro02.CNG.swc       364   16.3    692   1057
//
// Only mp_ma_40984_gc2 is small enough for 76 compartments (every other shared cell has at least
// 123 sections), so both small classes use it; its 29 sections match small-high's 29 branches.

namespace tridiag::hines {

/// One row of the table above.
struct SizeClass {
  const char* name;           ///< the papers' class name
  int paper_size;             ///< compartments in the papers
  int paper_branches;         ///< "#Branches" in the papers
  const char* paper_cell;     ///< the papers' NeuroMorpho cell
  const char* shared_file;    ///< stand-in in shared/morphologies
  double max_length_um;       ///< DiscretizationOptions::max_length_um to use
  long compartments;          ///< what discretize() gives with it
  int matrix_size;            ///< CompartmentalCell::size() with it
};

inline constexpr SizeClass seed_size_classes[] = {
    {"small-low", 76, 7, "299-DG-IN-Neuron2", "mp_ma_40984_gc2.CNG.swc", 32.0, 77, 107},
    {"small-high", 76, 29, "202-2-19nj", "mp_ma_40984_gc2.CNG.swc", 32.0, 77, 107},
    {"medium-low", 305, 30, "59D-40X", "nrn_ordering.swc", 25.3, 305, 429},
    {"medium-high", 319, 157, "Culture-9-5", "tc200.CNG.swc", 50.5, 320, 525},
    {"big-low", 695, 66, "28-2-2", "nrn_ordering.swc", 8.3, 695, 819},
    {"big-high", 691, 341, "HSE-fluoro02", "HSN-fluoro02.CNG.swc", 16.3, 692, 1057},
};

}  // namespace tridiag::hines
