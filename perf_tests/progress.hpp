#pragma once
// Progress of a sweep on stderr: a bar redrawn in place when stderr is a terminal (or --progress
// asks for it), plain "[k/N] what (+T s)" lines otherwise (logs, CTest), T = seconds since the
// sweep started, so that a log tells how long each step took. Messages that must not be
// overwritten by the bar (WRONG RESULT, errors) go through message().

#include <chrono>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace tridiag::bench {

class Progress {
 public:
  Progress(std::size_t total, bool force_bar)
      : total_(total), bar_(force_bar || isatty(fileno(stderr))) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Starts step k+1 of N, described by `what`.
  void step(const std::string& what) {
    ++done_;
    if (bar_) {
      constexpr int width = 30;
      const int filled = total_ ? static_cast<int>(width * (done_ - 1) / total_) : width;
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar.resize(width, '.');
      std::fprintf(stderr, "\r\033[K[%s] %zu/%zu %s (+%.1f s)", bar.c_str(), done_, total_, what.c_str(), seconds());
      drawn_ = true;
    } else {
      std::fprintf(stderr, "[%zu/%zu] %s (+%.1f s)\n", done_, total_, what.c_str(), seconds());
    }
    std::fflush(stderr);
  }

  /// A line of its own on stderr (the bar, if any, is redrawn by the next step).
  void message(const std::string& line) {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    drawn_ = false;
  }

  /// Seconds since the progress display was created.
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  /// The end of the sweep: its duration, on a line of its own (not in bar mode).
  void done(const std::string& what) {
    finish();
    if (!bar_) {
      std::fprintf(stderr, "[%zu/%zu] %s done (+%.1f s)\n", done_, total_, what.c_str(), seconds());
      std::fflush(stderr);
    }
  }

  void finish() {
    if (drawn_) {
      std::fprintf(stderr, "\r\033[K");
      std::fflush(stderr);
      drawn_ = false;
    }
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t total_ = 0, done_ = 0;
  bool bar_ = false, drawn_ = false;
};

}  // namespace tridiag::bench
