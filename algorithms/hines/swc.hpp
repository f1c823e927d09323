#pragma once
// SWC morphology reader: one neuron reconstruction (points with a radius and a parent) read into
// a parent-before-child tree, with every defect of the input reported as an exception that names
// the file, the line and the sample.
//
// Format (Cannon et al. 1998, the NeuroMorpho.Org "standardized SWC"): one sample per line,
//   id  type  x  y  z  radius  parent
// id and parent are integers of at most 9e15 (id >= 0, parent < 0 for a root); x, y, z, radius are
// lengths in um.
// Accepted quirks (see shared/morphologies/README.md): '#' comment lines anywhere, blank lines,
// LF, CRLF or CR (classic Mac) line ends, a UTF-8 byte order mark before the first line (Windows
// editors write one), leading/trailing blanks and tabs, numbers written "12." or "1.5e+01", integer
// fields written as integral reals ("3." or "3.0"), ids that are not consecutive or not sorted,
// parents listed after their children, any non-negative type code, and a '#' comment after the
// seventh field. Anything else on a data line is an error.
//
// Differs from Arbor's arborio::parse_swc, which stops at the first line that does not parse and
// silently returns a truncated cell: this reader either returns the whole morphology or throws.
// Nothing here recurses on tree depth: a chain of 10^6 samples is read in O(n) time and stack.

#include <iosfwd>
#include <string>
#include <vector>

#include <tridiag/core/errors.hpp>

namespace tridiag::hines {

/// One SWC line. Lengths in um.
struct SwcSample {
  long id = 0;          ///< sample identifier as written in the file (kept, never renumbered)
  int type = 0;         ///< structure code: 1 soma, 2 axon, 3 basal, 4 apical, other >= 0 custom
  double x = 0, y = 0, z = 0;  ///< centre of the sample, um
  double radius = 0;    ///< um, > 0
  long parent = -1;     ///< id of the parent sample; -1 for a root
};

/// How the soma is represented, in the words of shared/morphologies/README.md.
enum class SomaKind {
  none,         ///< no type-1 sample
  point,        ///< exactly one type-1 sample: a sphere of that radius
  three_point,  ///< NeuroMorpho convention: three type-1 samples, two of them children of the third
  contour       ///< any other soma of two or more type-1 samples (an outline or a stack of points)
};

/// "none", "point", "three-point", "contour" (the words tridiag-swc prints).
const char* to_string(SomaKind kind);

/// Reader options.
struct SwcOptions {
  /// Accept several roots (a forest, e.g. a reconstruction with detached fragments). When false
  /// (the default) a second root throws swc_multiple_roots.
  bool allow_forest = false;
};

/// A morphology read from SWC.
struct Morphology {
  std::string source;  ///< file name (or the name given to parse_swc), for messages
  /// Every sample of the file, reordered so that every parent comes before its children. The
  /// order is ascending id whenever every parent id is smaller than its child's id (the case of
  /// all standardized files, and the order NEURON's Import3d uses); otherwise each sample is
  /// preceded by its not-yet-listed ancestors, still visiting samples in ascending id.
  std::vector<SwcSample> samples;
  /// parent_index[i]: index into samples of the parent of samples[i]; -1 for a root.
  /// parent_index[i] < i for every non-root i.
  std::vector<int> parent_index;
  /// Line (1-based) of samples[i] in the source, for messages of later stages.
  std::vector<long> line;
  SomaKind soma = SomaKind::none;

  /// Number of roots (1 unless read with allow_forest).
  int root_count() const;
  /// Throws tridiag::invalid_argument (message starting with `where`) unless parent_index has one
  /// entry per sample, each -1 or below its sample's index. A Morphology read by read_swc /
  /// parse_swc satisfies this; the stages that take one built by hand check it.
  void check_parent_order(const char* where) const;
};

/// Classifies the soma of a parent-before-child sample list (see SomaKind).
SomaKind classify_soma(const std::vector<SwcSample>& samples, const std::vector<int>& parent_index);

// ---------------------------------------------------------------------------------------------
// Errors: one class per input defect, all derived from swc_error (and so from
// tridiag::invalid_argument and std::invalid_argument). what() reads
//   "<file>:<line>: sample <id>: <reason>"
//   e.g. "BG001.CNG.swc:57: sample 12: parent 9999 does not exist"
// where the line and sample parts are left out when they do not apply (swc_empty).
// ---------------------------------------------------------------------------------------------

/// Base of all SWC input errors.
class swc_error : public tridiag::invalid_argument {
 public:
  /// line: 1-based line number, 0 if not applicable; sample_id: the id of the offending sample,
  /// has_sample_id false if the line did not get as far as an id.
  swc_error(const std::string& file, long line, long sample_id, bool has_sample_id,
            const std::string& reason);
  const std::string& file() const noexcept { return file_; }
  long line() const noexcept { return line_; }
  long sample_id() const noexcept { return sample_id_; }
  bool has_sample_id() const noexcept { return has_sample_id_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  long line_;
  long sample_id_;
  bool has_sample_id_;
  std::string reason_;
};

/// A field is missing, is not a number, is not an integer where one is required, a type code is
/// negative, an id is negative, there is text after the seventh field, or the file is UTF-16 text.
class swc_parse_error : public swc_error {
 public:
  using swc_error::swc_error;
};
/// Two samples share an id (reported at the second).
class swc_duplicate_id : public swc_error {
 public:
  using swc_error::swc_error;
};
/// A parent id names no sample (reported at the child).
class swc_missing_parent : public swc_error {
 public:
  using swc_error::swc_error;
};
/// Following parents from a sample comes back to it (reported at a sample on the cycle).
class swc_cycle : public swc_error {
 public:
  using swc_error::swc_error;
};
/// A radius <= 0 or not finite, or a coordinate that is not finite.
class swc_bad_radius : public swc_error {
 public:
  using swc_error::swc_error;
};
/// More than one sample without a parent, and SwcOptions::allow_forest is false (reported at the
/// second root in file order).
class swc_multiple_roots : public swc_error {
 public:
  using swc_error::swc_error;
};
/// The input holds no sample at all.
class swc_empty : public swc_error {
 public:
  using swc_error::swc_error;
};

/// Reads SWC text from `in`; `source_name` is used in messages and stored in Morphology::source.
/// Throws a subclass of swc_error on any defect (never returns a partial morphology).
Morphology parse_swc(std::istream& in, const std::string& source_name,
                     const SwcOptions& options = {});

/// Opens `path` and parses it. Throws swc_error (base class) if it is a directory or cannot be
/// opened (the message gives the system's reason, e.g. "No such file or directory").
Morphology load_swc(const std::string& path, const SwcOptions& options = {});

}  // namespace tridiag::hines
