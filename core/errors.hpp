#pragma once
// Exceptions thrown at tridiag's host API boundary. Device code never throws: it reports per
// system through a status View (core/status.hpp).

#include <sstream>
#include <stdexcept>
#include <string>

namespace tridiag {

/// Bad input detected on the host before any kernel runs: extents that disagree, sizes out of
/// range, options that do not apply. Nothing has been written to any output when it is thrown.
/// The message names the function and the offending values,
/// e.g. "thomas::solve: rhs is 255 systems x 64 rows, matrix is 256 systems x 64 rows".
class invalid_argument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One or more systems of a batch failed numerically (zero or tiny pivot, non-finite input);
/// thrown by tridiag::check(status), never by a solver itself.
class numerical_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace impl {
/// Builds "where: part1part2..." from streamable parts.
template <class... Parts>
std::string message(const char* where, const Parts&... parts) {
  std::ostringstream os;
  os << where << ": ";
  (os << ... << parts);
  return os.str();
}
}  // namespace impl

/// Throws tridiag::invalid_argument with a message built from `parts` unless `condition` holds.
template <class... Parts>
void require(bool condition, const char* where, const Parts&... parts) {
  if (!condition) throw invalid_argument(impl::message(where, parts...));
}

}  // namespace tridiag
