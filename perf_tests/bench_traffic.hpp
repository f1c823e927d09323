#pragma once
// Bytes model of every measurement: what a kernel must move at least ("useful" bytes), from which
// useful_GBps = useful bytes / median time and pct_of_copy_bw = useful_GBps / copy reference
// follow. The copy reference counts what the copy physically moves (read + write).

#include <cstddef>
#include <string>
#include <vector>

#include <tridiag/core/types.hpp>

namespace tridiag::bench::traffic {

/// Thomas (and any tridiagonal solver): read a, b, c, d once and write x once.
constexpr int tridiag_useful_values_per_unknown = 5;
/// The plain one-thread-per-system Thomas (algorithms/thomas/serial_thomas.hpp) also writes c'
/// and x in the forward sweep and reads both back in the backward sweep.
constexpr int thomas_plain_values_per_unknown = 9;

inline double tridiag_useful_bytes(index_type systems, index_type n, std::size_t scalar_bytes) {
  return double(tridiag_useful_values_per_unknown) * double(systems) * double(n) * double(scalar_bytes);
}
/// deep_copy of `bytes`: read once + written once.
inline double copy_bytes(double bytes) { return 2 * bytes; }
/// STREAM triad a = b + s*c over arrays of `bytes` each: b and c read, a written (write-allocate
/// traffic not counted, as in STREAM).
inline double triad_bytes(double bytes) { return 3 * bytes; }

/// GB/s (1e9 bytes per second) of `bytes` moved in `ms` milliseconds.
inline double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

/// The traffic models, one line each, for the CSV header.
inline std::vector<std::string> model_lines() {
  return {
      "traffic model thomas: 5 values per unknown useful (read a, b, c, d; write x) x sizeof(scalar); "
      "the plain algorithm moves 9 (it also writes c' and x in the forward sweep and reads both back)",
      "traffic model cusparse_*: same useful bytes as thomas (5 values per unknown); what cuSPARSE moves is not "
      "modelled",
      "traffic model copy deep_copy: 2 x array bytes (read + write); triad a = b + s*c: 3 x array bytes",
  };
}

}  // namespace tridiag::bench::traffic
