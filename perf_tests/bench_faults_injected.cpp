// tridiag-bench-faults, the test binary: the fault named by TRIDIAG_BENCH_FAULT (bench_faults.hpp).
// An unknown value ends the process with status 2, so that a mistyped test cannot pass unfaulted.
#include <cstdio>
#include <cstdlib>

#include "bench_faults.hpp"

namespace tridiag::bench::faults {
namespace {

struct Injected {
  std::string kind;       ///< "wrong-solution", "changed-inputs", "unwritten-solution", "unverified-copy" or empty
  std::string algorithm;  ///< the measurements it applies to
};

const Injected& injected() {
  static const Injected fault = [] {
    Injected f;
    const char* value = std::getenv("TRIDIAG_BENCH_FAULT");
    if (value == nullptr || *value == '\0') return f;
    const std::string text(value);
    const auto colon = text.find(':');
    f.kind = text.substr(0, colon);
    if (colon != std::string::npos) f.algorithm = text.substr(colon + 1);
    const bool per_algorithm =
        f.kind == "wrong-solution" || f.kind == "changed-inputs" || f.kind == "unwritten-solution";
    const bool valid = per_algorithm ? !f.algorithm.empty() : f.kind == "unverified-copy" && colon == std::string::npos;
    if (!valid) {
      std::fprintf(stderr, "tridiag-bench-faults: unknown TRIDIAG_BENCH_FAULT '%s' (bench_faults.hpp)\n", value);
      std::exit(2);
    }
    return f;
  }();
  return fault;
}

}  // namespace

bool wrong_solution(const std::string& algorithm) {
  return injected().kind == "wrong-solution" && injected().algorithm == algorithm;
}
bool changed_inputs(const std::string& algorithm) {
  return injected().kind == "changed-inputs" && injected().algorithm == algorithm;
}
bool unverified_copy() { return injected().kind == "unverified-copy"; }
bool unwritten_solution(const std::string& algorithm) {
  return injected().kind == "unwritten-solution" && injected().algorithm == algorithm;
}

}  // namespace tridiag::bench::faults
