// Import3d's section rules (see cable_sections.hpp). Variable names follow read_swc.hoc where
// that helps checking against it: nchild, nchild_soma, connect2prox, soma3geom.

#include <tridiag/algorithms/hines/cable_sections.hpp>

#include <cmath>
#include <map>
#include <string>

#include <tridiag/core/errors.hpp>

namespace tridiag::hines {

double CableSection::length_um() const {
  double length = 0;
  for (std::size_t k = 1; k < points.size(); ++k) {
    const double dx = points[k].x - points[k - 1].x;
    const double dy = points[k].y - points[k - 1].y;
    const double dz = points[k].z - points[k - 1].z;
    length += std::sqrt(dx * dx + dy * dy + dz * dz);
  }
  return length;
}

std::string neuron_section_name(int type) {
  switch (type) {
    case 1: return "soma";
    case 2: return "axon";
    case 3: return "dend";
    case 4: return "apic";
    default: return "dend_" + std::to_string(type);
  }
}

namespace {

/// A section while it is being built: the raw points (parent copy first for non-roots) and
/// Import3d's `first` flag (1: the parent copy is a wire, not geometry).
struct DraftSection {
  int first_sample = 0, last_sample = 0;
  int type = 0;
  int parent = -1;
  double parent_x = 1;
  std::vector<int> raw;            // sample indices; raw[0] is the parent sample for non-roots
  double first_diameter = -1;      // overrides the diameter of raw[0] when >= 0 (rule 3)
  int wire = 0;                    // Import3d's sec.first
  bool removed = false;
};

}  // namespace

std::vector<CableSection> make_cable_sections(const Morphology& morphology) {
  const auto& s = morphology.samples;
  const int n = static_cast<int>(s.size());
  require(n > 0, "hines::make_cable_sections", morphology.source, ": no samples");
  // A Morphology read by read_swc / parse_swc satisfies these; one built by hand is checked here.
  morphology.check_parent_order("hines::make_cable_sections");
  for (int i = 0; i < n; ++i) {
    require(s[i].radius > 0 && std::isfinite(s[i].radius), "hines::make_cable_sections", morphology.source,
            ": sample ", i, " has radius ", s[i].radius, "; it must be positive");
    require(std::isfinite(s[i].x) && std::isfinite(s[i].y) && std::isfinite(s[i].z), "hines::make_cable_sections",
            morphology.source, ": sample ", i, " has a coordinate that is not finite");
  }
  require(morphology.root_count() == 1, "hines::make_cable_sections", morphology.source, ": ",
          morphology.root_count(), " roots; a cell needs exactly one");
  std::vector<int> parent = morphology.parent_index;  // rule 2 may rewire one sample
  auto type = [&](int i) { return s[i].type; };
  auto diameter = [&](int i) { return 2 * s[i].radius; };

  // ---- mark_branch: child counts in hundredths (NEURON adds 1 per child, .01 per oddity) ----
  // A sample ends a section unless its count is exactly 100 (one plain child).
  std::vector<int> nchild(n, 0);
  std::vector<char> connect2prox(n, 0);
  for (int i = 0; i < n; ++i) {
    const int p = parent[i];
    if (p < 0) continue;
    nchild[p] += 100;
    if (p != i - 1) {  // child is not the next sample
      nchild[p] += 1;
      if (p > 1) {
        if (type(p) != 1 && parent[p] >= 0 && type(parent[p]) == 1) {
          connect2prox[i] = 1;  // p is the first sample of a dendrite leaving the soma
          nchild[p] = 100;
        }
      } else if (p == 0 && type(p) != 1) {
        connect2prox[i] = 1;
        nchild[p] = 100;
      }
    }
    if (type(p) != type(i)) nchild[p] += 1;
  }

  // ---- sectionify: soma children and the NeuroMorpho three-point soma ----
  std::vector<int> nchild_soma(n, 0);
  int soma_points = type(0) == 1 ? 1 : 0;
  for (int i = 1; i < n; ++i) {
    if (type(i) != 1) continue;
    ++soma_points;
    const int p = parent[i];
    if (p >= 0 && type(p) == 1) ++nchild_soma[p];
  }
  bool soma3geom = false;
  if (soma_points == 3 && n >= 3 && parent[1] == 0 && parent[2] == 0 && nchild[1] == 0 &&
      nchild[2] == 0 && diameter(1) == diameter(0) && diameter(2) == diameter(0)) {
    double length = 0;
    for (int i = 1; i <= 2; ++i) {
      const double dx = s[i].x - s[0].x, dy = s[i].y - s[0].y, dz = s[i].z - s[0].z;
      length += std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    if (std::abs(length / diameter(0) - 1) < .01) {
      soma3geom = true;
      parent[2] = 1;  // as Import3d: keeps samples 0..2 in one section, then drops 1 and 2
    }
  }
  for (int i = 0; i + 1 < n; ++i) {
    if (type(i) == 1 && type(i + 1) == 1 && parent[i + 1] == i) {
      if (!(i != 0 && nchild_soma[i] > 1)) nchild[i] = 100;
    }
  }
  // Our one departure: never continue a section into a sample that is not the previous
  // sample's child.
  for (int i = 1; i < n; ++i) {
    if (parent[i] != i - 1 && nchild[i - 1] == 100) nchild[i - 1] = 101;
  }

  // ---- sections: runs of samples ending where nchild != 100 ----
  std::vector<DraftSection> draft;
  std::vector<int> section_of_sample(n, 0);
  {
    int start = 0;
    for (int i = 0; i < n; ++i) {
      section_of_sample[i] = static_cast<int>(draft.size());
      if (nchild[i] != 100 || i == n - 1) {
        DraftSection d;
        d.first_sample = start;
        d.last_sample = i;
        draft.push_back(d);
        start = i + 1;
      }
    }
  }

  // ---- mksection: parent, connection point, raw points ----
  for (std::size_t k = 0; k < draft.size(); ++k) {
    DraftSection& sec = draft[k];
    const int first = sec.first_sample;
    const int own = sec.last_sample - first + 1;
    sec.type = type(first);
    if (k == 0) {
      const int count = soma3geom ? 1 : own;
      for (int i = 0; i < count; ++i) sec.raw.push_back(first + i);
      continue;
    }
    const int pp = parent[first];
    const int ps = section_of_sample[pp];
    const DraftSection& psec = draft[ps];
    const int psec_points = static_cast<int>(psec.raw.size());  // ps < k: already built
    // Last sample of the parent section as Import3d counts it (the three-point root has 1).
    const int psec_last = ps == 0 ? psec.first_sample + psec_points - 1 : psec.last_sample;
    const bool parent_is_soma = psec.type == 1;
    const bool den_con_soma = parent_is_soma && type(first) != 1;
    sec.parent = ps;
    bool handled = false;
    if (ps == 0) {  // connects to the root section
      handled = true;
      if (den_con_soma && psec_points == 1) {  // one-point soma (sphere)
        sec.parent_x = 0.5;
        if (own > 1) sec.wire = 1;
      } else if (pp == psec.first_sample) {  // first point of the root
        sec.parent_x = 0;
        if (type(first) != 1 && nchild_soma[pp] > 1) sec.wire = 1;
      } else {
        handled = false;
      }
    }
    if (!handled && parent_is_soma) {
      if (pp < psec_last) {  // interior point of a soma section
        sec.parent_x = 0.5;
        if (den_con_soma && own > 1) sec.wire = 1;
      } else if (own > 1 && nchild_soma[pp] > 1 && type(first) != 1) {
        sec.wire = 1;
      }
    }
    sec.raw.push_back(pp);
    for (int i = 0; i < own; ++i) sec.raw.push_back(first + i);
    if (parent_is_soma && sec.type != 1) sec.first_diameter = diameter(first);
    if (connect2prox[first]) sec.parent_x = 0;
  }

  // ---- chk_valid: drop non-root sections of one point or of two coincident points ----
  for (std::size_t k = 1; k < draft.size(); ++k) {
    DraftSection& sec = draft[k];
    const int points = static_cast<int>(sec.raw.size()) - sec.wire;
    if (points <= 1) {
      sec.removed = true;
    } else if (points == 2) {
      const SwcSample& a = s[sec.raw[sec.wire]];
      const SwcSample& b = s[sec.raw[sec.wire + 1]];
      sec.removed = a.x == b.x && a.y == b.y && a.z == b.z;
    }
  }
  // Children of a removed section attach where it attached (parents precede children, so one
  // forward pass resolves chains of removed sections).
  for (std::size_t k = 1; k < draft.size(); ++k) {
    DraftSection& sec = draft[k];
    const DraftSection& p = draft[sec.parent];
    if (p.removed) {
      sec.parent_x = p.parent_x;
      sec.parent = p.parent;
    }
  }

  // ---- final sections: renumber, points (with the sphere rule) ----
  std::vector<int> final_index(draft.size(), -1);
  std::vector<CableSection> sections;
  std::map<int, int> count_of_type;
  for (std::size_t k = 0; k < draft.size(); ++k) {
    const DraftSection& d = draft[k];
    if (d.removed) continue;
    final_index[k] = static_cast<int>(sections.size());
    CableSection sec;
    sec.type = d.type;
    sec.parent = d.parent < 0 ? -1 : final_index[d.parent];
    sec.parent_x = d.parent < 0 ? 0 : d.parent_x;
    sec.first_sample = d.first_sample;
    sec.last_sample = d.last_sample;
    sec.index_in_type = count_of_type[d.type]++;
    for (std::size_t r = d.wire; r < d.raw.size(); ++r) {
      const SwcSample& p = s[d.raw[r]];
      double diam = diameter(d.raw[r]);
      if (r == 0 && d.first_diameter >= 0) diam = d.first_diameter;
      sec.points.push_back({p.x, p.y, p.z, diam});
    }
    if (sec.points.size() == 1) {  // one-point root: sphere as a cylinder, L = diam (rule 6)
      const CablePoint c = sec.points[0];
      const double r = c.diameter / 2;
      sec.points = {{c.x - r, c.y, c.z, c.diameter}, c, {c.x + r, c.y, c.z, c.diameter}};
    }
    sections.push_back(std::move(sec));
  }
  return sections;
}

}  // namespace tridiag::hines
