// SWC reader (see swc.hpp). Two passes: read every line into samples (syntax, radius and
// coordinate checks, with the line number), then check the topology (duplicate ids, missing
// parents, roots, cycles) and order the samples parent-first. Both passes are iterative.

#include <tridiag/algorithms/hines/swc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <locale>
#include <numeric>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

// std::from_chars for double is locale-independent and fast; libstdc++ has it from GCC 11
// (feature macro __cpp_lib_to_chars). Without it we fall back to a classic-locale stream.
#include <charconv>
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
#define TRIDIAG_SWC_HAVE_FROM_CHARS_DOUBLE 1
#else
#define TRIDIAG_SWC_HAVE_FROM_CHARS_DOUBLE 0
#endif

namespace tridiag::hines {

const char* to_string(SomaKind kind) {
  switch (kind) {
    case SomaKind::none: return "none";
    case SomaKind::point: return "point";
    case SomaKind::three_point: return "three-point";
    case SomaKind::contour: return "contour";
  }
  return "unknown";
}

namespace {

std::string format_swc_message(const std::string& file, long line, long sample_id,
                               bool has_sample_id, const std::string& reason) {
  std::ostringstream os;
  os << file;
  if (line > 0) os << ':' << line;
  os << ": ";
  if (has_sample_id) os << "sample " << sample_id << ": ";
  os << reason;
  return os.str();
}

}  // namespace

swc_error::swc_error(const std::string& file, long line, long sample_id, bool has_sample_id,
                     const std::string& reason)
    : tridiag::invalid_argument(format_swc_message(file, line, sample_id, has_sample_id, reason)),
      file_(file),
      line_(line),
      sample_id_(sample_id),
      has_sample_id_(has_sample_id),
      reason_(reason) {}

int Morphology::root_count() const {
  return static_cast<int>(std::count(parent_index.begin(), parent_index.end(), -1));
}

void Morphology::check_parent_order(const char* where) const {
  require(parent_index.size() == samples.size(), where, source, ": ", parent_index.size(), " parent indices for ",
          samples.size(), " samples");
  for (std::size_t i = 0; i < parent_index.size(); ++i) {
    const int p = parent_index[i];
    require(p >= -1 && p < static_cast<long>(i), where, source, ": sample ", i, " has parent index ", p,
            "; parents must come before their children (-1 for a root)");
  }
}

SomaKind classify_soma(const std::vector<SwcSample>& samples,
                       const std::vector<int>& parent_index) {
  std::vector<int> soma;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].type == 1) soma.push_back(static_cast<int>(i));
  }
  if (soma.empty()) return SomaKind::none;
  if (soma.size() == 1) return SomaKind::point;
  if (soma.size() == 3) {
    // Three-point: one of the three is the parent of the other two.
    for (int centre : soma) {
      int children_in_soma = 0;
      for (int other : soma) {
        if (other != centre && parent_index[other] == centre) ++children_in_soma;
      }
      if (children_in_soma == 2) return SomaKind::three_point;
    }
  }
  return SomaKind::contour;
}

namespace {

constexpr const char* field_names[7] = {"id", "type", "x", "y", "z", "radius", "parent"};

// No CR reaches it: parse_swc ends lines at every CR.
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/// The value of a decimal number that from_chars found out of double's range: +-inf where its
/// decimal exponent (the written one plus the place of its first non-zero digit) is positive,
/// else +-0.
double out_of_range_value(std::string_view token) {
  const bool negative = token.front() == '-';
  if (negative) token.remove_prefix(1);
  const std::size_t e = token.find_first_of("eE");
  const std::string_view digits = token.substr(0, e);
  const std::size_t point = std::min(digits.find('.'), digits.size());
  const std::size_t lead = digits.find_first_not_of("0.");
  double exponent = 0;  // a double: the written exponent may exceed any integer type
  if (e != std::string_view::npos) {
    std::string_view written = token.substr(e + 1);
    const bool minus = !written.empty() && written.front() == '-';
    if (!written.empty() && (written.front() == '-' || written.front() == '+')) written.remove_prefix(1);
    for (char c : written) exponent = exponent * 10 + (c - '0');
    if (minus) exponent = -exponent;
  }
  if (lead != std::string_view::npos) {
    exponent += lead < point ? static_cast<double>(point - lead - 1) : -static_cast<double>(lead - point);
  }
  const double magnitude = lead != std::string_view::npos && exponent > 0 ? HUGE_VAL : 0.0;
  return negative ? -magnitude : magnitude;
}

/// Parses a whole token as a double; false if any character is left over or nothing parses.
bool parse_real(std::string_view token, double& value) {
  if (token.empty()) return false;
  // from_chars takes no leading '+'; accept one before a digit or a point.
  if (token.front() == '+' && token.size() > 1 && token[1] != '-' && token[1] != '+') {
    token.remove_prefix(1);
  }
#if TRIDIAG_SWC_HAVE_FROM_CHARS_DOUBLE
  const char* first = token.data();
  const char* last = first + token.size();
  auto result = std::from_chars(first, last, value, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range && result.ptr == last) {
    // from_chars leaves value untouched on overflow/underflow (strtod would follow the C
    // locale's decimal point): +-inf or +-0 by the number's decimal exponent.
    value = out_of_range_value(token);
    return true;
  }
  return result.ec == std::errc() && result.ptr == last;
#else
  std::istringstream is{std::string(token)};
  is.imbue(std::locale::classic());
  is >> value;
  return !is.fail() && is.peek() == std::char_traits<char>::eof();
#endif
}

/// Parses an integer field, which may be written as an integral real ("3", "3.", "3.0", "1e1").
/// Returns nullptr, or why the token is not one: the end of a message that quotes it.
const char* parse_integer(std::string_view token, long& value) {
  double real = 0;
  if (!parse_real(token, real) || !std::isfinite(real) || real != std::floor(real)) return " is not an integer";
  // "2.0000000000000001" reads as the double 2: its digits say it is not an integer.
  const std::size_t point = token.find('.');
  if (point != std::string_view::npos && token.find_first_of("eE") == std::string_view::npos &&
      token.find_first_not_of('0', point + 1) != std::string_view::npos) {
    return " is not an integer";
  }
  if (real < -9.0e15 || real > 9.0e15) return " is an integer beyond +-9e15, the range this reader takes";
  value = static_cast<long>(real);
  return nullptr;
}

/// One data line split into tokens (views into the line).
struct Tokens {
  std::string_view field[7];
  int count = 0;                 // number of data fields found (<= 7)
  std::string_view extra;        // first token after the seventh that is not a comment
};

Tokens tokenize(std::string_view line) {
  Tokens t;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && is_blank(line[pos])) ++pos;
    if (pos >= line.size()) break;
    std::size_t end = pos;
    while (end < line.size() && !is_blank(line[end])) ++end;
    std::string_view token = line.substr(pos, end - pos);
    if (t.count < 7) {
      t.field[t.count++] = token;
    } else {
      if (token.front() != '#') t.extra = token;
      break;  // a trailing comment ends the line; garbage is reported
    }
    pos = end;
  }
  return t;
}

struct RawSample {
  SwcSample sample;
  long line;
};

/// A token as messages quote it: in single quotes, bytes outside printable ASCII as \xNN, and cut
/// after 40 bytes ("...") so that a binary file read as SWC gives a short, readable message.
std::string quoted(std::string_view token) {
  constexpr std::size_t most = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < most; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr const char* hex = "0123456789abcdef";
      out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
  }
  if (token.size() > most) out += "...";
  return out + "'";
}

[[noreturn]] void throw_parse(const std::string& file, long line, bool has_id, long id,
                              const std::string& reason) {
  throw swc_parse_error(file, line, id, has_id, reason);
}

RawSample parse_data_line(std::string_view text, long line, const std::string& file) {
  Tokens t = tokenize(text);
  RawSample raw{};
  raw.line = line;
  long id = 0;
  bool has_id = false;
  if (t.count >= 1) {
    if (const char* why = parse_integer(t.field[0], id)) {
      throw_parse(file, line, false, 0, "field 1 (id) " + quoted(t.field[0]) + why);
    }
    has_id = true;
    if (id < 0) throw_parse(file, line, true, id, "negative id; SWC ids are >= 0 (a negative parent marks a root)");
  }
  if (t.count < 7) {
    throw_parse(file, line, has_id, id,
                "expected 7 fields (id type x y z radius parent), found " +
                    std::to_string(t.count));
  }
  if (!t.extra.empty()) {
    throw_parse(file, line, has_id, id,
                "unexpected text " + quoted(t.extra) + " after the 7th field");
  }
  long type = 0, parent = 0;
  double real[4] = {0, 0, 0, 0};
  if (const char* why = parse_integer(t.field[1], type)) {
    throw_parse(file, line, true, id, "field 2 (type) " + quoted(t.field[1]) + why);
  }
  if (type < 0 || type > std::numeric_limits<int>::max()) {
    throw_parse(file, line, true, id,
                "field 2 (type) " + std::string(t.field[1]) + " is not a type code: 0 to 2147483647");
  }
  for (int k = 0; k < 4; ++k) {
    if (!parse_real(t.field[2 + k], real[k])) {
      throw_parse(file, line, true, id,
                  "field " + std::to_string(3 + k) + " (" + field_names[2 + k] + ") " +
                      quoted(t.field[2 + k]) + " is not a number");
    }
  }
  if (const char* why = parse_integer(t.field[6], parent)) {
    throw_parse(file, line, true, id, "field 7 (parent) " + quoted(t.field[6]) + why);
  }
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(real[k])) {
      throw swc_bad_radius(file, line, id, true,
                           std::string("coordinate ") + field_names[2 + k] + " = " +
                               std::string(t.field[2 + k]) + " is not finite");
    }
  }
  if (!(std::isfinite(real[3]) && real[3] > 0)) {
    throw swc_bad_radius(file, line, id, true,
                         "radius " + std::string(t.field[5]) + " is not a positive finite number");
  }
  raw.sample.id = id;
  raw.sample.type = static_cast<int>(type);
  raw.sample.x = real[0];
  raw.sample.y = real[1];
  raw.sample.z = real[2];
  raw.sample.radius = real[3];
  raw.sample.parent = parent < 0 ? -1 : parent;
  return raw;
}

}  // namespace

Morphology parse_swc(std::istream& in, const std::string& source_name, const SwcOptions& options) {
  // ---- pass 1: lines -> samples in file order ----
  std::vector<RawSample> raw;
  std::string text;
  long line = 0;
  const auto take_line = [&](std::string_view view) {
    ++line;
    std::size_t first = 0;
    while (first < view.size() && is_blank(view[first])) ++first;
    if (first == view.size()) return;      // blank line
    if (view[first] == '#') return;        // comment / header
    raw.push_back(parse_data_line(view.substr(first), line, source_name));
  };
  // Lines end at LF, CRLF or a lone CR (classic Mac files). CRs just before an LF are one line
  // end however many there are, so that line numbers are those of grep -n where a converter wrote
  // CR CR LF (AA0013's header).
  while (std::getline(in, text)) {
    std::string_view view(text);
    if (line == 0) {
      if (view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);  // UTF-8 byte order mark
      if (view.substr(0, 2) == "\xFF\xFE" || view.substr(0, 2) == "\xFE\xFF") {
        throw_parse(source_name, 1, false, 0,
                    "UTF-16 text (it starts with a UTF-16 byte order mark); SWC is ASCII: save the file as "
                    "ASCII or UTF-8");
      }
    }
    while (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    for (std::size_t cr = view.find('\r'); cr != std::string_view::npos; cr = view.find('\r')) {
      take_line(view.substr(0, cr));
      view.remove_prefix(cr + 1);
    }
    take_line(view);
  }
  if (in.bad()) throw swc_error(source_name, line, 0, false, "read error");
  if (raw.empty()) throw swc_empty(source_name, 0, 0, false, "no samples");
  if (raw.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw swc_error(source_name, 0, 0, false, "too many samples");
  }
  const int n = static_cast<int>(raw.size());

  // ---- pass 2: ids, parents, roots ----
  std::unordered_map<long, int> index_of_id;  // id -> index in file order
  index_of_id.reserve(static_cast<std::size_t>(n) * 2);
  for (int i = 0; i < n; ++i) {
    auto [it, inserted] = index_of_id.emplace(raw[i].sample.id, i);
    if (!inserted) {
      throw swc_duplicate_id(source_name, raw[i].line, raw[i].sample.id, true,
                             "duplicate id (first defined at line " +
                                 std::to_string(raw[it->second].line) + ")");
    }
  }
  std::vector<int> parent_in_file(n, -1);
  int first_root = -1;
  for (int i = 0; i < n; ++i) {
    const SwcSample& s = raw[i].sample;
    if (s.parent < 0) {
      if (first_root >= 0 && !options.allow_forest) {
        throw swc_multiple_roots(source_name, raw[i].line, s.id, true,
                                 "second root (the first is sample " +
                                     std::to_string(raw[first_root].sample.id) + " at line " +
                                     std::to_string(raw[first_root].line) + ")");
      }
      if (first_root < 0) first_root = i;
      continue;
    }
    auto it = index_of_id.find(s.parent);
    if (it == index_of_id.end()) {
      throw swc_missing_parent(source_name, raw[i].line, s.id, true,
                               "parent " + std::to_string(s.parent) + " does not exist");
    }
    if (it->second == i) {
      throw swc_cycle(source_name, raw[i].line, s.id, true, "sample is its own parent");
    }
    parent_in_file[i] = it->second;
  }

  // ---- pass 3: parent-first order, cycle detection (iterative, O(n)) ----
  // Visit samples by ascending id; before emitting one, emit its not-yet-emitted ancestors.
  // state: 0 not seen, 1 on the current ancestor walk, 2 emitted.
  std::vector<int> by_id(n);
  std::iota(by_id.begin(), by_id.end(), 0);
  std::stable_sort(by_id.begin(), by_id.end(),
                   [&](int a, int b) { return raw[a].sample.id < raw[b].sample.id; });
  std::vector<unsigned char> state(n, 0);
  std::vector<int> order;  // file indices, parents first
  order.reserve(n);
  std::vector<int> walk;
  for (int start : by_id) {
    if (state[start] == 2) continue;
    walk.clear();
    int v = start;
    while (v >= 0 && state[v] == 0) {
      state[v] = 1;
      walk.push_back(v);
      v = parent_in_file[v];
    }
    if (v >= 0 && state[v] == 1) {
      // v is on the walk: the cycle is v -> parent(v) -> ... -> v. Report the member with the
      // smallest line so the message does not depend on where the walk started.
      int reported = v;
      int u = parent_in_file[v];
      std::string path = std::to_string(raw[v].sample.id);
      int shown = 0;
      while (u != v) {
        if (raw[u].line < raw[reported].line) reported = u;
        if (shown < 8) path += " -> " + std::to_string(raw[u].sample.id);
        ++shown;
        u = parent_in_file[u];
      }
      path += shown < 8 ? " -> " + std::to_string(raw[v].sample.id) : std::string(" -> ...");
      throw swc_cycle(source_name, raw[reported].line, raw[reported].sample.id, true,
                      "parents form a cycle (" + path + ")");
    }
    for (auto it = walk.rbegin(); it != walk.rend(); ++it) {
      state[*it] = 2;
      order.push_back(*it);
    }
  }
  if (first_root < 0) {
    // Unreachable: a finite graph in which every sample has a parent contains a cycle.
    throw swc_cycle(source_name, raw[0].line, raw[0].sample.id, true, "no root");
  }

  Morphology m;
  m.source = source_name;
  m.samples.resize(n);
  m.parent_index.resize(n);
  m.line.resize(n);
  std::vector<int> new_index(n);
  for (int k = 0; k < n; ++k) new_index[order[k]] = k;
  for (int k = 0; k < n; ++k) {
    const int f = order[k];
    m.samples[k] = raw[f].sample;
    m.line[k] = raw[f].line;
    m.parent_index[k] = parent_in_file[f] < 0 ? -1 : new_index[parent_in_file[f]];
  }
  m.soma = classify_soma(m.samples, m.parent_index);
  return m;
}

Morphology load_swc(const std::string& path, const SwcOptions& options) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw swc_error(path, 0, 0, false, "is a directory, not a file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int reason = errno;  // set by the open(2) under the stream on POSIX systems
    throw swc_error(path, 0, 0, false, std::string("cannot open file") + (reason ? ": " : "") +
                                           (reason ? std::strerror(reason) : ""));
  }
  return parse_swc(in, path, options);
}

}  // namespace tridiag::hines
