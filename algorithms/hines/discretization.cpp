// Discretisation of cable sections into NEURON's nodes (see discretization.hpp for the formulas).

#include <tridiag/algorithms/hines/discretization.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include <tridiag/core/errors.hpp>

namespace tridiag::hines {

namespace {

constexpr double pi = 3.14159265358979323846;

/// Cumulative arc length at each point of a section, um.
std::vector<double> arc_lengths(const CableSection& section) {
  std::vector<double> arc(section.points.size(), 0.0);
  for (std::size_t k = 1; k < arc.size(); ++k) {
    const CablePoint& a = section.points[k - 1];
    const CablePoint& b = section.points[k];
    const double dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
    arc[k] = arc[k - 1] + std::sqrt(dx * dx + dy * dy + dz * dz);
  }
  return arc;
}

/// Membrane area (um^2) and axial resistance (MOhm) of the part [a, b] of a section.
struct Piece {
  double area_um2 = 0;
  double resistance_MOhm = 0;
};

/// Integrates the frustums of `section` over arc lengths [a, b]. A zero-length diameter step at
/// arc t counts in [a, b] when a < t <= b, or t = a = 0 (NEURON's order of accumulation).
Piece integrate(const CableSection& section, const std::vector<double>& arc, double a, double b,
                double Ra_ohm_cm) {
  Piece piece;
  double resistance_sum = 0;  // sum of l / (d1 d2), 1/um
  const auto& p = section.points;
  // Pieces ending before a cannot contribute: start at the first k with arc[k+1] >= a, stop
  // after the last one starting at or before b (O(log n + pieces in [a, b]) per call).
  std::size_t k = static_cast<std::size_t>(
      std::lower_bound(arc.begin() + 1, arc.end(), a) - (arc.begin() + 1));
  for (; k + 1 < p.size() && arc[k] <= b; ++k) {
    const double s0 = arc[k], s1 = arc[k + 1];
    const double d0 = p[k].diameter, d1 = p[k + 1].diameter;
    if (s1 == s0) {  // duplicate point: annulus if the diameter steps
      const bool inside = (a < s0 && s0 <= b) || (s0 == 0 && a == 0);
      if (inside) piece.area_um2 += pi * 0.5 * (d0 + d1) * 0.5 * std::abs(d1 - d0);
      continue;
    }
    const double lo = std::max(a, s0), hi = std::min(b, s1);
    if (!(hi > lo)) continue;
    const double da = d0 + (d1 - d0) * (lo - s0) / (s1 - s0);
    const double db = d0 + (d1 - d0) * (hi - s0) / (s1 - s0);
    const double l = hi - lo;
    const double ra = 0.5 * da, rb = 0.5 * db;
    piece.area_um2 += pi * (ra + rb) * std::sqrt(l * l + (ra - rb) * (ra - rb));
    resistance_sum += l / (da * db);
  }
  // 4 Ra / pi * sum(l / (d1 d2)): ohm cm / um = 1e4 ohm = 1e-2 MOhm.
  piece.resistance_MOhm = 4.0 * Ra_ohm_cm / pi * resistance_sum * 1e-2;
  return piece;
}

void check_options(const DiscretizationOptions& o) {
  const char* where = "hines::discretize";
  require(o.Ra_ohm_cm > 0 && std::isfinite(o.Ra_ohm_cm), where, "Ra_ohm_cm=", o.Ra_ohm_cm,
          " must be positive");
  require(o.cm_uF_cm2 >= 0 && std::isfinite(o.cm_uF_cm2), where, "cm_uF_cm2=", o.cm_uF_cm2,
          " must be non-negative");
  require(o.max_nodes >= 1, where, "max_nodes=", o.max_nodes, " must be positive");
  if (o.rule == DiscretizationOptions::Rule::max_length) {
    require(o.max_length_um > 0 && std::isfinite(o.max_length_um), where, "max_length_um=", o.max_length_um,
            " must be positive");
  } else {
    require(o.d_lambda > 0 && std::isfinite(o.d_lambda), where, "d_lambda=", o.d_lambda, " must be positive");
    require(o.frequency_hz > 0 && std::isfinite(o.frequency_hz), where, "frequency_hz=", o.frequency_hz,
            " must be positive");
    // lambda_f divides by sqrt(cm): with cm = 0 every section would get one segment (NEURON stops).
    require(o.cm_uF_cm2 > 0, where, "the d_lambda rule needs cm_uF_cm2 > 0 (its length constant divides by it)");
  }
}

/// segment_count with options already checked (discretize checks them once for all sections).
int checked_segment_count(const CableSection& section, const DiscretizationOptions& options) {
  const std::vector<double> arc = arc_lengths(section);
  const double L = arc.empty() ? 0.0 : arc.back();
  if (options.rule == DiscretizationOptions::Rule::max_length) {
    const double ratio = std::ceil(L / options.max_length_um);
    require(ratio < 1e9, "hines::segment_count", "L=", L, " um needs too many segments of ",
            options.max_length_um, " um");
    int n = std::max(1, static_cast<int>(ratio));
    if (n % 2 == 0) ++n;
    return n;
  }
  // d_lambda: NEURON stdlib.hoc lambda_f(frequency) and the nseg formula of fixnseg.
  double lam = 0;  // sum l / sqrt(d1 + d2), um^(1/2)
  for (std::size_t k = 1; k < section.points.size(); ++k) {
    lam += (arc[k] - arc[k - 1]) /
           std::sqrt(section.points[k - 1].diameter + section.points[k].diameter);
  }
  lam *= std::sqrt(2.0) * 1e-5 *
         std::sqrt(4 * pi * options.frequency_hz * options.Ra_ohm_cm * options.cm_uF_cm2);
  if (!(lam > 0) || !(L > 0)) return 1;  // zero length: one segment
  const double lambda_f = L / lam;       // um
  const double count = (L / (options.d_lambda * lambda_f) + 0.9) / 2;
  require(count < 1e9, "hines::segment_count", "L=", L, " um needs too many segments for d_lambda=",
          options.d_lambda);
  return static_cast<int>(count) * 2 + 1;
}

}  // namespace

int segment_count(const CableSection& section, const DiscretizationOptions& options) {
  check_options(options);
  return checked_segment_count(section, options);
}

void check_compartmental_cell(const CompartmentalCell& cell, const std::string& where) {
  const char* w = where.c_str();
  const std::size_t n = cell.parent.size();
  require(n > 0 && !cell.sections.empty(), w, "the cell has no nodes");
  require(cell.area_um2.size() == n && cell.axial_conductance_uS.size() == n, w, "the cell has ", n,
          " parents but ", cell.area_um2.size(), " areas and ", cell.axial_conductance_uS.size(),
          " axial conductances");
  require(cell.parent[0] == -1, w, "node 0 has parent ", cell.parent[0], "; it must be the root (-1)");
  require(std::isfinite(cell.cm_uF_cm2) && cell.cm_uF_cm2 >= 0, w, "cm_uF_cm2=", cell.cm_uF_cm2,
          " must be non-negative");
  for (std::size_t i = 0; i < n; ++i) {
    require(std::isfinite(cell.area_um2[i]) && cell.area_um2[i] >= 0, w, "node ", i, " has area ", cell.area_um2[i],
            " um2; it must be finite and >= 0");
    if (i == 0) continue;
    require(cell.parent[i] >= 0 && static_cast<std::size_t>(cell.parent[i]) < i, w, "node ", i, " has parent ",
            cell.parent[i], "; a Hines numbering needs 0 <= parent(i) < i");
    require(std::isfinite(cell.axial_conductance_uS[i]) && cell.axial_conductance_uS[i] > 0, w, "node ", i,
            " has axial conductance ", cell.axial_conductance_uS[i], " uS; it must be positive");
  }
  const std::size_t sections = cell.sections.size();
  require(cell.nseg.size() == sections && cell.first_node.size() == sections, w, "the cell has ", sections,
          " sections but ", cell.nseg.size(), " segment counts and ", cell.first_node.size(), " first nodes");
  for (std::size_t k = 0; k < sections; ++k)
    require(cell.nseg[k] >= 1 && cell.first_node[k] >= 0 &&
                static_cast<std::size_t>(cell.first_node[k]) + static_cast<std::size_t>(cell.nseg[k]) < n,
            w, "section ", k, ": nseg ", cell.nseg[k], " from node ", cell.first_node[k], " does not fit the ", n,
            " nodes");
}

long CompartmentalCell::compartments() const {
  long total = 0;
  for (int n : nseg) total += n;
  return total;
}

double CompartmentalCell::total_area_um2() const {
  double total = 0;
  for (double a : area_um2) total += a;
  return total;
}

int CompartmentalCell::node_at(int section, double x) const {
  require(section >= 0 && section < static_cast<int>(sections.size()),
          "hines::CompartmentalCell::node_at", "section ", section, " of ", sections.size());
  require(x >= 0 && x <= 1, "hines::CompartmentalCell::node_at", "x=", x, " outside [0, 1]");
  if (x == 1) return first_node[section] + nseg[section];
  if (x == 0) return section == 0 ? 0 : parent[first_node[section]];
  const int j = std::min(static_cast<int>(x * nseg[section]), nseg[section] - 1);
  return first_node[section] + j;
}

namespace {

/// How messages name a section: its index and its own samples, as the caller knows them.
using SectionName = std::function<std::string(const CableSection& section, int index)>;

CompartmentalCell discretize_sections(std::vector<CableSection> sections, const DiscretizationOptions& options,
                                      const SectionName& section_name);

}  // namespace

CompartmentalCell discretize(const Morphology& morphology, const DiscretizationOptions& options) {
  check_options(options);
  std::vector<CableSection> sections = make_cable_sections(morphology);  // its messages name the file
  // A section's own samples are consecutive in the morphology: name them as the file does.
  const SectionName by_swc_ids = [&](const CableSection& section, int index) {
    const auto first = static_cast<std::size_t>(section.first_sample);
    const auto last = static_cast<std::size_t>(section.last_sample);
    return "section " + std::to_string(index) + " (SWC ids " + std::to_string(morphology.samples[first].id) + ".." +
           std::to_string(morphology.samples[last].id) + ", lines " + std::to_string(morphology.line[first]) + ".." +
           std::to_string(morphology.line[last]) + ")";
  };
  try {
    return discretize_sections(std::move(sections), options, by_swc_ids);
  } catch (const invalid_argument& e) {  // the sections' messages do not: say which file they came from
    throw invalid_argument(morphology.source + ": " + e.what());
  }
}

CompartmentalCell discretize(std::vector<CableSection> sections, const DiscretizationOptions& options) {
  return discretize_sections(std::move(sections), options, [](const CableSection& section, int index) {
    return "section " + std::to_string(index) + " (samples " + std::to_string(section.first_sample) + ".." +
           std::to_string(section.last_sample) + ")";
  });
}

namespace {

CompartmentalCell discretize_sections(std::vector<CableSection> sections, const DiscretizationOptions& options,
                                      const SectionName& section_name) {
  check_options(options);
  const char* where = "hines::discretize";
  const int section_count = static_cast<int>(sections.size());
  require(section_count > 0, where, "no sections");
  for (int k = 0; k < section_count; ++k) {
    require(sections[k].points.size() >= 2, where, "section ", k, " has ",
            sections[k].points.size(), " points; needs at least 2");
    require((k == 0) == (sections[k].parent < 0), where, "section ", k, " has parent ",
            sections[k].parent, "; only section 0 may be the root");
    require(sections[k].parent < k, where, "section ", k, " has parent ", sections[k].parent,
            "; parents must come first");
    require(k == 0 || (sections[k].parent_x >= 0 && sections[k].parent_x <= 1), where, "section ", k,
            " has parent_x ", sections[k].parent_x, "; it must lie in [0, 1]");
    for (std::size_t j = 0; j < sections[k].points.size(); ++j) {
      const CablePoint& point = sections[k].points[j];
      require(std::isfinite(point.x) && std::isfinite(point.y) && std::isfinite(point.z), where, "section ", k,
              ", point ", j, ": coordinates (", point.x, ", ", point.y, ", ", point.z, ") must be finite");
      require(point.diameter > 0 && std::isfinite(point.diameter), where, "section ", k, ", point ", j,
              ": diameter ", point.diameter, " um must be positive");
    }
  }

  // ---- nodes in section order ("creation order"), then renumbered depth first ----
  // Creation order: root node 0; then per section its centres and its end node.
  std::vector<int> nseg(section_count);
  std::vector<double> length(section_count);
  std::vector<int> created_first(section_count);  // creation index of segment 0
  // The whole count first (each nseg < 1e9, so a long long cannot overflow), so that a cell over
  // max_nodes is rejected before any node is allocated.
  long long requested_nodes = 1;
  int largest = 0;
  for (int k = 0; k < section_count; ++k) {
    nseg[k] = checked_segment_count(sections[k], options);
    requested_nodes += nseg[k] + 1LL;
    if (nseg[k] > nseg[largest]) largest = k;
  }
  require(requested_nodes <= options.max_nodes, where, "the cell would have ", requested_nodes,
          " nodes, more than max_nodes=", options.max_nodes, "; its largest, ", section_name(sections[largest], largest),
          ", has ", nseg[largest], " segments (a damaged coordinate? else raise DiscretizationOptions::max_nodes)");
  const int node_count = static_cast<int>(requested_nodes);
  for (int k = 0, next = 1; k < section_count; ++k) {
    created_first[k] = next;
    next += nseg[k] + 1;
  }
  std::vector<int> c_parent(node_count, -1), c_section(node_count, 0);
  std::vector<double> c_area(node_count, 0.0), c_g(node_count, 0.0), c_x(node_count, 0.0);
  auto created_node_at = [&](int sec, double x) {
    if (x >= 1) return created_first[sec] + nseg[sec];
    if (x <= 0) return sec == 0 ? 0 : c_parent[created_first[sec]];
    return created_first[sec] + std::min(static_cast<int>(x * nseg[sec]), nseg[sec] - 1);
  };
  // Diameters that are positive but tiny (1e-300 um) or lengths that are finite but huge give
  // areas or conductances that underflow to 0 or overflow: a cell no solver can use, rejected here
  // rather than by the assembly later (check_compartmental_cell).
  // The end node (j = nseg) has no membrane: its area is not checked.
  const auto require_usable_node = [&](int k, int j, double area_um2, double g_uS) {
    const bool end = j == nseg[k];
    const bool area_ok = end || (area_um2 > 0 && std::isfinite(area_um2));
    if (area_ok && g_uS > 0 && std::isfinite(g_uS)) return;
    constexpr const char* why = " must be positive and finite (diameters too small or lengths too large)";
    const std::string name = section_name(sections[k], k);
    require(!end, where, name, ", its end node: axial conductance ", g_uS, " uS", why);
    require(false, where, name, ", segment ", j, " of ", nseg[k], ": area ", area_um2, " um2, axial conductance ",
            g_uS, " uS; both", why);
  };
  for (int k = 0; k < section_count; ++k) {
    const CableSection& sec = sections[k];
    const std::vector<double> arc = arc_lengths(sec);
    const double L = arc.back();
    require(L > 0 && std::isfinite(L), where, section_name(sec, k), " has length ", L,
            " um; a cable needs a positive length");
    length[k] = L;
    const int n = nseg[k];
    const double ds = L / n;
    const int base = created_first[k];
    const int attach = k == 0 ? 0 : created_node_at(sec.parent, sec.parent_x);
    double right_half_of_previous = 0;  // MOhm
    for (int j = 0; j < n; ++j) {
      const double s0 = j * ds;
      const double mid = (j + 0.5) * ds;
      const double s1 = j + 1 == n ? L : (j + 1) * ds;
      const Piece left = integrate(sec, arc, s0, mid, options.Ra_ohm_cm);
      const Piece right = integrate(sec, arc, mid, s1, options.Ra_ohm_cm);
      const int node = base + j;
      c_parent[node] = j == 0 ? attach : node - 1;
      c_area[node] = left.area_um2 + right.area_um2;
      c_g[node] = 1.0 / (right_half_of_previous + left.resistance_MOhm);  // uS
      require_usable_node(k, j, c_area[node], c_g[node]);
      c_section[node] = k;
      c_x[node] = (j + 0.5) / n;
      right_half_of_previous = right.resistance_MOhm;
    }
    const int end = base + n;
    c_parent[end] = end - 1;
    c_g[end] = 1.0 / right_half_of_previous;
    require_usable_node(k, n, 0.0, c_g[end]);
    c_section[end] = k;
    c_x[end] = 1.0;
  }

  // Depth-first preorder, first child first. A node's first child in creation order is the next
  // node of its own section, so each section's nodes stay contiguous.
  std::vector<int> child_start(node_count + 1, 0), children(node_count > 0 ? node_count - 1 : 0);
  for (int v = 1; v < node_count; ++v) ++child_start[c_parent[v] + 1];
  for (int v = 0; v < node_count; ++v) child_start[v + 1] += child_start[v];
  {
    std::vector<int> fill(child_start.begin(), child_start.end() - 1);
    for (int v = 1; v < node_count; ++v) children[fill[c_parent[v]]++] = v;
  }
  std::vector<int> hines_of(node_count, -1);
  std::vector<int> stack{0};
  int next = 0;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    hines_of[v] = next++;
    for (int c = child_start[v + 1] - 1; c >= child_start[v]; --c) stack.push_back(children[c]);
  }

  CompartmentalCell cell;
  cell.parent.assign(node_count, -1);
  cell.area_um2.resize(node_count);
  cell.axial_conductance_uS.resize(node_count);
  cell.section_of.resize(node_count);
  cell.x_in_section.resize(node_count);
  for (int v = 0; v < node_count; ++v) {
    const int h = hines_of[v];
    cell.parent[h] = c_parent[v] < 0 ? -1 : hines_of[c_parent[v]];
    cell.area_um2[h] = c_area[v];
    cell.axial_conductance_uS[h] = c_g[v];
    cell.section_of[h] = c_section[v];
    cell.x_in_section[h] = c_x[v];
  }
  cell.first_node.resize(section_count);
  for (int k = 0; k < section_count; ++k) cell.first_node[k] = hines_of[created_first[k]];
  cell.sections = std::move(sections);
  cell.nseg = std::move(nseg);
  cell.length_um = std::move(length);
  cell.Ra_ohm_cm = options.Ra_ohm_cm;
  cell.cm_uF_cm2 = options.cm_uF_cm2;
  return cell;
}

}  // namespace

}  // namespace tridiag::hines
