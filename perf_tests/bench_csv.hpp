#pragma once
// The CSV tridiag-bench writes (STYLE 6.7): `#` comment lines (configuration, device, commit,
// date, command, traffic models), one header row, then one row per measurement, flushed as it
// is written so that an interrupted sweep still leaves its rows. A cell that does not apply is
// empty. Text cells holding a comma or a quote are quoted (RFC 4180).

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tridiag::bench {

/// One measurement. Optional cells are left empty when they do not apply.
struct CsvRow {
  std::string sweep, algorithm, layout, precision;
  std::optional<std::int64_t> systems, size;
  std::optional<double> time_ms, useful_GBps, pct_of_copy_bw;
  std::optional<double> speedup_vs_sequential, speedup_vs_openmp;
  std::optional<double> speedup_vs_cusparse_interleaved, speedup_vs_cusparse_strided;
  std::optional<std::int64_t> memory_bytes;
  std::optional<double> max_rel_error;
  std::string device, commit;
};

class CsvWriter {
 public:
  static constexpr const char* header =
      "sweep,algorithm,layout,precision,systems,size,time_ms,useful_GBps,pct_of_copy_bw,speedup_vs_sequential,"
      "speedup_vs_openmp,speedup_vs_cusparse_interleaved,speedup_vs_cusparse_strided,memory_bytes,max_rel_error,"
      "device,commit";

  CsvWriter() = default;

  /// path "" writes nothing, "-" writes to stdout; throws std::runtime_error if the file cannot be opened.
  explicit CsvWriter(const std::string& path) {
    if (path.empty()) return;
    if (path == "-") {
      out_ = &std::cout;
    } else {
      file_.open(path);
      if (!file_) throw std::runtime_error("cannot open CSV file '" + path + "' for writing");
      out_ = &file_;
    }
  }

  bool enabled() const { return out_ != nullptr; }

  /// A "# ..." line; only before the header. Newlines inside `text` start new comment lines.
  void comment(const std::string& text) {
    if (!out_) return;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) *out_ << "# " << line << '\n';
  }

  void write_header() {
    if (!out_) return;
    *out_ << header << '\n';
    out_->flush();
  }

  void write(const CsvRow& r) {
    if (!out_) return;
    std::ostream& o = *out_;
    o << text(r.sweep) << ',' << text(r.algorithm) << ',' << text(r.layout) << ',' << text(r.precision) << ','
      << integer(r.systems) << ',' << integer(r.size) << ',' << number(r.time_ms) << ',' << number(r.useful_GBps)
      << ',' << number(r.pct_of_copy_bw) << ',' << number(r.speedup_vs_sequential) << ','
      << number(r.speedup_vs_openmp) << ',' << number(r.speedup_vs_cusparse_interleaved) << ','
      << number(r.speedup_vs_cusparse_strided) << ',' << integer(r.memory_bytes) << ',' << number(r.max_rel_error)
      << ',' << text(r.device) << ',' << text(r.commit) << '\n';
    o.flush();
  }

 private:
  static std::string text(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  }
  static std::string integer(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(); }
  static std::string number(const std::optional<double>& v) {
    if (!v) return {};
    if (std::isnan(*v)) return "nan";
    std::ostringstream os;
    os.precision(6);
    os << *v;
    return os.str();
  }

  std::ofstream file_;
  std::ostream* out_ = nullptr;
};

}  // namespace tridiag::bench
