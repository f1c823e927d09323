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
/// Constant coefficients: read d and write x per unknown, plus a, b, c once per triple: `triples`
/// is the systems for one triple per system, 1 for one triple shared by the batch (counting 3 per
/// system there credited the shared rows with bytes their problem does not have: +37% at n = 4).
inline double constant_useful_bytes(index_type systems, index_type n, index_type triples, std::size_t scalar_bytes) {
  return (2.0 * double(systems) * double(n) + 3.0 * double(triples)) * double(scalar_bytes);
}

/// Hines: read a, b, d, rhs and write x per real matrix row: a neuron's compartments plus one
/// zero-area end node per section plus the root (NEURON's matrix; CompartmentalCell::size(), about
/// 1.4x the compartments of the size classes), not its pad rows; the parent indices are shared by
/// every neuron of a morphology and not counted.
constexpr int hines_useful_values_per_row = 5;
inline double hines_useful_bytes(index_type real_rows, std::size_t scalar_bytes) {
  return double(hines_useful_values_per_row) * double(real_rows) * double(scalar_bytes);
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
      "traffic model vbatch (CP, NCP, size-aware): 5 values per real unknown (sum of the sizes; padding "
      "computed by CP is not useful)",
      "traffic model constant: read d and write x per unknown plus 3 scalars (a, b, c) per triple: one triple per "
      "system, or one for the whole batch (the *-shared rows); the direct solve moves 7 values per unknown, the "
      "factorized one 4 (+ its factors, cached when shared)",
      "traffic model hines: 5 values per real matrix row useful (read a, b, d, rhs; write x) x sizeof(scalar); "
      "a neuron's matrix rows are its compartments (segments) plus one zero-area end node per section plus the root, "
      "as in NEURON; parent indices are per morphology, shared by its neurons, and not counted; pad rows of a mixed "
      "batch are not useful",
      "traffic model copy deep_copy: 2 x array bytes (read + write); triad a = b + s*c: 3 x array bytes",
  };
}

}  // namespace tridiag::bench::traffic
