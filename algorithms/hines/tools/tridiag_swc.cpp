// tridiag-swc [--help] [--] FILE...
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
// --help prints the usage (exit status 0); another argument starting with '-' is an error (exit
// status 2) unless it follows "--", after which every argument is a file.

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

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

constexpr const char* usage =
    "usage: tridiag-swc [--help] [--] FILE...\n"
    "Reads each SWC file and prints one JSON object per line: points, branch_points, tips,\n"
    "max_depth, soma, and the compartments and matrix_size after discretising with the default\n"
    "settings (segments of at most 20 um). A file that cannot be read or discretised: its message\n"
    "on stderr, exit status 1; the other files are still printed.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace tridiag::hines;
  std::vector<std::string> paths;
  bool options_done = false;
  for (int k = 1; k < argc; ++k) {
    const std::string argument = argv[k];
    if (!options_done && argument == "--") {
      options_done = true;
    } else if (!options_done && (argument == "--help" || argument == "-h")) {
      std::fputs(usage, stdout);
      return 0;
    } else if (!options_done && argument.size() > 1 && argument[0] == '-') {
      std::fprintf(stderr, "tridiag-swc: unknown option %s (a file whose name starts with '-' goes after --)\n%s",
                   argument.c_str(), usage);
      return 2;
    } else {
      paths.push_back(argument);
    }
  }
  if (paths.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  int status = 0;
  for (const std::string& path : paths) {
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
