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
// The file name is written as given, as valid JSON (bytes that are not UTF-8 become U+FFFD). An
// output that cannot be written (a full disk) makes the exit status 1.
// --help prints the usage (exit status 0); another argument starting with '-' is an error (exit
// status 2) unless it follows "--", after which every argument is a file.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/morphology_stats.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

namespace {

/// Bytes of the UTF-8 sequence starting at text[i] (1 to 4), or 0 where none starts there.
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const auto continuation = [&](std::size_t k) { return (byte(k) & 0xC0u) == 0x80u; };
  const unsigned c = byte(i);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return continuation(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;  // no overlong, no surrogates
    return byte(i + 1) >= low && byte(i + 1) <= high && continuation(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    return byte(i + 1) >= low && byte(i + 1) <= high && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
  }
  return 0;
}

/// A JSON string of `text`: control characters escaped, valid UTF-8 kept, every other byte (a
/// file name need not be UTF-8) replaced by U+FFFD, so that the line is always valid JSON.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_sequence(text, i);
    if (length == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text, i, length);
      i += length;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
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
  // A full disk or a closed pipe: say so rather than exit 0 with the output cut.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "tridiag-swc: cannot write the output: %s\n", std::strerror(errno));
    return 1;
  }
  return status;
}
