// tridiag-swc FILE...
// For each SWC file prints one JSON object per line:
//   {"file": ..., "points": N, "branch_points": N, "tips": N, "max_depth": N, "soma": "...",
//    "compartments": N, "matrix_size": N}
// points .. soma are the sample-tree statistics of shared/morphologies/README.md;
// compartments (segments, sum of nseg) and matrix_size (Hines system rows: segments + one end
// node per section + the root node, as in NEURON) come from discretising with the default
// DiscretizationOptions: NEURON's Import3d sections, nseg = smallest odd count with segments of
// at most 20 um, Ra = 35.4 ohm cm, cm = 1 uF/cm^2.
// A file that cannot be read prints the reader's message on stderr and makes the exit status 1;
// the other files are still printed. A file that reads but cannot be discretised (a section of
// zero length, say) prints its statistics with "compartments" and "matrix_size" null, and the
// discretisation's message (which names the file) on stderr; the exit status is 1 too.

#include <cstdio>
#include <exception>
#include <string>

#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/morphology_stats.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tridiag::hines;
  if (argc < 2) {
    std::fprintf(stderr, "usage: tridiag-swc FILE...\n");
    return 2;
  }
  int status = 0;
  for (int k = 1; k < argc; ++k) {
    const std::string path = argv[k];
    try {
      const Morphology morphology = load_swc(path);
      const MorphologyStats stats = compute_stats(morphology);
      std::string sizes, problem;
      try {
        const CompartmentalCell cell = discretize(morphology);  // default options (see above)
        sizes = std::to_string(cell.compartments()) + ", \"matrix_size\": " + std::to_string(cell.size());
      } catch (const std::exception& error) {
        sizes = "null, \"matrix_size\": null";
        problem = error.what();
      }
      std::printf(
          "{\"file\": %s, \"points\": %ld, \"branch_points\": %ld, \"tips\": %ld, "
          "\"max_depth\": %ld, \"soma\": \"%s\", \"compartments\": %s}\n",
          json_string(path).c_str(), stats.points, stats.branch_points, stats.tips,
          stats.max_depth, to_string(stats.soma), sizes.c_str());
      std::fflush(stdout);
      if (!problem.empty()) {
        std::fprintf(stderr, "tridiag-swc: %s\n", problem.c_str());
        status = 1;
      }
    } catch (const std::exception& error) {
      std::fflush(stdout);
      std::fprintf(stderr, "tridiag-swc: %s\n", error.what());
      status = 1;
    }
  }
  return status;
}
