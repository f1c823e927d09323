#include "bench_context.hpp"

#include <sstream>

#include "progress.hpp"

namespace tridiag::bench {

namespace {
std::string fmt(double v, int precision = 4) {
  std::ostringstream os;
  os.precision(precision);
  os << v;
  return os.str();
}
}  // namespace

void BenchContext::emit(const CsvRow& row, const std::string& extra) {
  csv.write(row);
  std::ostringstream os;
  os << row.sweep << ' ' << row.algorithm;
  if (!row.layout.empty()) os << '/' << row.layout;
  if (!row.precision.empty()) os << ' ' << row.precision;
  if (row.systems) os << ' ' << *row.systems << " x " << (row.size ? *row.size : 0);
  else if (row.size) os << ' ' << *row.size << " values";
  os << " on " << row.device << ':';
  if (row.time_ms) os << " median " << fmt(*row.time_ms) << " ms";
  if (!extra.empty()) os << " (" << extra << ')';
  if (row.useful_GBps) os << ", " << fmt(*row.useful_GBps) << " GB/s";
  if (row.pct_of_copy_bw) os << " = " << fmt(*row.pct_of_copy_bw, 3) << "% of copy";
  if (row.speedup_vs_sequential) os << ", x" << fmt(*row.speedup_vs_sequential, 3) << " vs sequential";
  if (row.speedup_vs_openmp) os << ", x" << fmt(*row.speedup_vs_openmp, 3) << " vs OpenMP";
  if (row.speedup_vs_cusparse_interleaved) os << ", x" << fmt(*row.speedup_vs_cusparse_interleaved, 3) << " vs cuSPARSE interleaved";
  if (row.speedup_vs_cusparse_strided) os << ", x" << fmt(*row.speedup_vs_cusparse_strided, 3) << " vs cuSPARSE strided";
  if (row.max_rel_error) os << ", err " << fmt(*row.max_rel_error, 2);
  if (progress != nullptr && console() == stderr) {
    progress->message(os.str());
  } else {
    if (progress != nullptr) progress->finish();
    std::fprintf(console(), "%s\n", os.str().c_str());
    std::fflush(console());
  }
}

void BenchContext::message(const std::string& line) {
  if (progress != nullptr) {
    progress->message(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }
}

void BenchContext::wrong_result(const std::string& what, const std::string& why) {
  ++wrong_results;
  message("tridiag-bench: WRONG RESULT: " + what + ": " + why);
}

void BenchContext::left_out(const std::string& what) {
  message("tridiag-bench: " + what + ": not written to the CSV (its check failed, see above)");
}

void BenchContext::failed(const std::string& what, const std::string& why) {
  ++failed_measurements;
  message("tridiag-bench: FAILED: " + what + ": " + why);
}

}  // namespace tridiag::bench
