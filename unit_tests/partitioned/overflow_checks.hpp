#pragma once
// A system whose solution overflows inside one chunk of the partitioned solver only, for the
// tests of solve and solve_ragged.

#include <cmath>
#include <limits>

#include "test_support.hpp"

namespace tridiag::test {

/// Rows k and k + 1 of system s of h become a block of their own whose solution overflows in
/// row k + 1 alone: x(k) = 4 sqrt(max), x(k + 1) = -x(k) / b(k + 1) with b(k + 1) = 1 / sqrt(max).
/// Where row k starts a chunk of at least 3 rows, every input, every value of the chunk's
/// elimination and every interface value stays finite: only the chunk's inner row k + 1 is not.
template <class S>
void overflow_inside_a_chunk(HostBatch<S>& h, index_type s, index_type k) {
  const S root = std::sqrt(std::numeric_limits<S>::max());
  if (k > 0) h.at(h.c, s, k - 1) = 0;
  h.at(h.a, s, k) = 0;
  h.at(h.b, s, k) = 1;
  h.at(h.c, s, k) = 0;
  h.at(h.d, s, k) = 4 * root;
  h.at(h.a, s, k + 1) = 1;
  h.at(h.b, s, k + 1) = 1 / root;
  h.at(h.c, s, k + 1) = 0;
  h.at(h.d, s, k + 1) = 0;
  if (k + 2 < h.rows) h.at(h.a, s, k + 2) = 0;
}

}  // namespace tridiag::test
