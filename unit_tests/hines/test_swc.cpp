// SWC reader and morphology statistics: the real files of shared/morphologies against the
// README table, every accepted quirk, one bad input per error class, order independence, depth
// robustness (10^6-deep chains, no recursion) and randomly damaged real files (read whole or
// rejected with the reader's error; what is read discretises or is rejected by name).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <tridiag/algorithms/hines/discretization.hpp>
#include <tridiag/algorithms/hines/morphology_stats.hpp>
#include <tridiag/algorithms/hines/swc.hpp>

#include "test_support.hpp"

#ifndef TRIDIAG_SHARED_DIR
#define TRIDIAG_SHARED_DIR "/work/shared"
#endif

namespace {

using namespace tridiag::hines;

std::string morphology_path(const std::string& file) {
  return std::string(TRIDIAG_SHARED_DIR) + "/morphologies/" + file;
}

Morphology parse_text(const std::string& text, const SwcOptions& options = {}) {
  std::istringstream in(text);
  return parse_swc(in, "test.swc", options);
}

// ---- the README table -------------------------------------------------------------------------

struct TableRow {
  const char* file;
  long points, branch_points, tips, max_depth;
  SomaKind soma;
};

const TableRow readme_table[] = {
    {"mp_ma_40984_gc2.CNG.swc", 353, 14, 15, 61, SomaKind::point},
    {"HSN-fluoro02.CNG.swc", 996, 182, 183, 73, SomaKind::contour},
    {"tc200.CNG.swc", 1219, 99, 107, 54, SomaKind::contour},
    {"HSN-fluoro01.CNG.swc", 1288, 223, 224, 71, SomaKind::contour},
    {"control-1-wt.CNG.swc", 1696, 71, 78, 124, SomaKind::three_point},
    {"BG001.CNG.swc", 2810, 98, 99, 135, SomaKind::point},
    {"10-2012-02-09-001.CNG.swc", 3187, 392, 393, 88, SomaKind::contour},
    {"AA0013.swc", 3411, 156, 167, 498, SomaKind::three_point},
    {"nrn_ordering.swc", 3783, 57, 66, 406, SomaKind::point},
    {"C220498B-I4.CNG.swc", 4911, 247, 253, 236, SomaKind::point},
    {"C080400A3.CNG.swc", 5243, 421, 424, 189, SomaKind::point},
};

TEST(SwcRealFiles, StatisticsMatchReadmeTable) {
  for (const TableRow& row : readme_table) {
    SCOPED_TRACE(row.file);
    const Morphology m = load_swc(morphology_path(row.file));
    const MorphologyStats s = compute_stats(m);
    EXPECT_EQ(s.points, row.points);
    EXPECT_EQ(s.branch_points, row.branch_points);
    EXPECT_EQ(s.tips, row.tips);
    EXPECT_EQ(s.max_depth, row.max_depth);
    EXPECT_EQ(s.soma, row.soma);
    EXPECT_STREQ(to_string(s.soma), to_string(row.soma));
    EXPECT_EQ(m.root_count(), 1);
    EXPECT_EQ(m.source, morphology_path(row.file));
  }
}

TEST(SwcRealFiles, ParentsPrecedeChildrenAndFileOrderIsKept) {
  for (const TableRow& row : readme_table) {
    SCOPED_TRACE(row.file);
    const Morphology m = load_swc(morphology_path(row.file));
    ASSERT_EQ(m.parent_index.size(), m.samples.size());
    ASSERT_EQ(m.line.size(), m.samples.size());
    EXPECT_EQ(m.parent_index[0], -1);
    for (std::size_t i = 1; i < m.samples.size(); ++i) {
      ASSERT_GE(m.parent_index[i], 0);
      ASSERT_LT(m.parent_index[i], static_cast<int>(i));
      EXPECT_EQ(m.samples[m.parent_index[i]].id, m.samples[i].parent);
      EXPECT_LT(m.samples[i - 1].id, m.samples[i].id);  // these files are sorted: order kept
    }
  }
}

// ---- accepted quirks --------------------------------------------------------------------------

TEST(SwcParse, AcceptsEveryQuirk) {
  const std::string text =
      "# header line\r\n"
      "#another\n"
      "\n"
      "   \t  \r\n"
      "  10 1 0. 0. 0. 5. -1  \r\n"                  // leading/trailing blanks, "0." numbers
      "30\t3\t1.5e+01\t0\t-2.5E-1\t1.\t20\r\n"      // tabs, scientific notation, parent after
      "# a comment in the middle\n"
      "20 3 10 0 0 0.5 10 # trailing comment\n"
      "25 0 20 0 0 +0.5 20\n"                        // type 0, leading '+'
      "40 17 0 12 0 0.5 10.0\n"                      // custom type, parent written "10.0"
      "41 3 0 13 0 0.5 40";                          // no final newline
  const Morphology m = parse_text(text);
  ASSERT_EQ(m.samples.size(), 6u);
  // Ascending id (every parent id is smaller here), ids kept.
  std::vector<long> ids;
  for (const auto& s : m.samples) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<long>{10, 20, 25, 30, 40, 41}));
  EXPECT_EQ(m.parent_index, (std::vector<int>{-1, 0, 1, 1, 0, 4}));
  EXPECT_EQ(m.samples[0].type, 1);
  EXPECT_DOUBLE_EQ(m.samples[0].radius, 5.0);
  EXPECT_EQ(m.samples[0].parent, -1);
  EXPECT_EQ(m.samples[2].type, 0);
  EXPECT_DOUBLE_EQ(m.samples[2].radius, 0.5);
  EXPECT_DOUBLE_EQ(m.samples[3].x, 15.0);
  EXPECT_DOUBLE_EQ(m.samples[3].z, -0.25);
  EXPECT_DOUBLE_EQ(m.samples[3].radius, 1.0);
  EXPECT_EQ(m.samples[4].type, 17);
  EXPECT_EQ(m.line, (std::vector<long>{5, 8, 9, 6, 10, 11}));
  EXPECT_EQ(m.soma, SomaKind::point);
}

TEST(SwcParse, ParentListedAfterChildAndUnsortedIds) {
  // Child 5 appears before its parent 9; ids unsorted and not consecutive.
  const Morphology m = parse_text(
      "5 3 2 0 0 1 9\n"
      "9 3 1 0 0 1 100\n"
      "100 1 0 0 0 3 -1\n"
      "7 3 0 1 0 1 100\n");
  std::vector<long> ids;
  for (const auto& s : m.samples) ids.push_back(s.id);
  // Ascending id, each sample preceded by its missing ancestors: 100, 9, 5, 7.
  EXPECT_EQ(ids, (std::vector<long>{100, 9, 5, 7}));
  EXPECT_EQ(m.parent_index, (std::vector<int>{-1, 0, 1, 0}));
  const MorphologyStats s = compute_stats(m);
  EXPECT_EQ(s.points, 4);
  EXPECT_EQ(s.branch_points, 1);
  EXPECT_EQ(s.tips, 2);
  EXPECT_EQ(s.max_depth, 3);
}

// A Morphology built by hand: compute_stats relies on parents before children and checks it
// (a child listed first gave max_depth 2 for a 3-sample chain; a short parent_index read out of range).
TEST(SwcStats, HandBuiltMorphologyOutOfOrderIsRejected) {
  Morphology m = parse_text("1 1 0 0 0 3 -1\n2 3 1 0 0 1 1\n3 3 2 0 0 1 2\n");
  EXPECT_EQ(compute_stats(m).max_depth, 3);
  Morphology child_first = m;
  child_first.parent_index = {-1, 2, 0};
  EXPECT_THROW(compute_stats(child_first), tridiag::invalid_argument);
  Morphology short_parents = m;
  short_parents.parent_index.pop_back();
  EXPECT_THROW(compute_stats(short_parents), tridiag::invalid_argument);
  Morphology below_minus_one = m;
  below_minus_one.parent_index[1] = -2;
  EXPECT_THROW(compute_stats(below_minus_one), tridiag::invalid_argument);
}

TEST(SwcParse, SomaKinds) {
  EXPECT_EQ(parse_text("1 3 0 0 0 1 -1\n2 3 1 0 0 1 1\n").soma, SomaKind::none);
  EXPECT_EQ(parse_text("1 1 0 0 0 5 -1\n2 3 6 0 0 1 1\n").soma, SomaKind::point);
  EXPECT_EQ(parse_text("1 1 0 0 0 5 -1\n2 1 0 -5 0 5 1\n3 1 0 5 0 5 1\n4 3 6 0 0 1 1\n").soma,
            SomaKind::three_point);
  // Three soma points in a chain: not the NeuroMorpho convention.
  EXPECT_EQ(parse_text("1 1 0 0 0 5 -1\n2 1 0 -5 0 5 1\n3 1 0 -9 0 5 2\n").soma,
            SomaKind::contour);
  EXPECT_EQ(parse_text("1 1 0 0 0 5 -1\n2 1 0 1 0 5 1\n").soma, SomaKind::contour);
  EXPECT_STREQ(to_string(SomaKind::none), "none");
  EXPECT_STREQ(to_string(SomaKind::point), "point");
  EXPECT_STREQ(to_string(SomaKind::three_point), "three-point");
  EXPECT_STREQ(to_string(SomaKind::contour), "contour");
}

TEST(SwcParse, ForestOnlyWhenAllowed) {
  const std::string text = "1 1 0 0 0 5 -1\n2 3 6 0 0 1 1\n3 3 50 0 0 1 -1\n4 3 51 0 0 1 3\n";
  SwcOptions forest;
  forest.allow_forest = true;
  const Morphology m = parse_text(text, forest);
  EXPECT_EQ(m.root_count(), 2);
  EXPECT_THROW(parse_text(text), swc_multiple_roots);
}

// ---- one bad input per defect class -----------------------------------------------------------

/// Runs the parser on `text`, expects exactly Error, and checks line, sample and message.
template <class Error>
void expect_swc_error(const std::string& text, long line, long sample_id, bool has_sample_id,
                      const std::string& reason_part) {
  SCOPED_TRACE(text);
  EXPECT_THROW(parse_text(text), Error);
  try {
    parse_text(text);
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "test.swc");
    EXPECT_EQ(e.line(), line);
    EXPECT_EQ(e.has_sample_id(), has_sample_id);
    if (has_sample_id) {
      EXPECT_EQ(e.sample_id(), sample_id);
    }
    const std::string what = e.what();
    std::string where = "test.swc";
    if (line > 0) where += ":" + std::to_string(line);
    where += ": ";
    if (has_sample_id) where += "sample " + std::to_string(sample_id) + ": ";
    EXPECT_EQ(what.rfind(where, 0), 0u) << what;  // starts with file:line: sample id:
    EXPECT_NE(what.find(reason_part), std::string::npos) << what;
    // Every class is-a swc_error, tridiag::invalid_argument, std::invalid_argument.
    const swc_error& base = e;
    const tridiag::invalid_argument& tridiag_base = base;
    const std::invalid_argument& std_base = tridiag_base;
    EXPECT_STREQ(std_base.what(), e.what());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(SwcErrors, ParseErrorNonNumericField) {
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\n# c\n2 3 abc 0 0 1 1\n", 3, 2, true,
                                    "field 3 (x) 'abc' is not a number");
}
TEST(SwcErrors, ParseErrorMissingField) {
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\n2 3 0 0 0 1\n", 2, 2, true,
                                    "expected 7 fields");
}
TEST(SwcErrors, ParseErrorExtraGarbage) {
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1 junk\n", 1, 1, true, "unexpected text 'junk'");
}
TEST(SwcErrors, ParseErrorNonIntegerId) {
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\n2.5 3 0 0 0 1 1\n", 2, 0, false,
                                    "field 1 (id) '2.5' is not an integer");
}
TEST(SwcErrors, ParseErrorNegativeType) {
  expect_swc_error<swc_parse_error>("1 -2 0 0 0 5 -1\n", 1, 1, true, "type code");
}
// Integers: negative ids, integers beyond the reader's range and reals that only round to an
// integer are each named for what they are.
TEST(SwcErrors, IdsAndIntegersOutOfRange) {
  expect_swc_error<swc_parse_error>("-5 1 0 0 0 5 -1\n-4 3 10 0 0 1 -5\n", 1, -5, true, "negative id");
  expect_swc_error<swc_parse_error>("9223372036854775807 1 0 0 0 5 -1\n", 1, 0, false,
                                    "field 1 (id) '9223372036854775807' is an integer beyond +-9e15");
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\n2 3 10 0 0 1 1e16\n", 2, 2, true,
                                    "field 7 (parent) '1e16' is an integer beyond +-9e15");
  expect_swc_error<swc_parse_error>("1 3000000000 0 0 0 5 -1\n", 1, 1, true,
                                    "field 2 (type) 3000000000 is not a type code: 0 to 2147483647");
  expect_swc_error<swc_parse_error>("2.0000000000000001 1 0 0 0 5 -1\n", 1, 0, false,
                                    "field 1 (id) '2.0000000000000001' is not an integer");
  // Still integers: "3.", "3.000", "1e1", and an id of 0.
  const Morphology m = parse_text("0 1 0 0 0 5 -1\n3. 3 10 0 0 1 0.000\n1e1 3 20 0 0 1 3.000\n");
  EXPECT_EQ(m.samples.size(), 3u);
  EXPECT_EQ(m.samples[2].id, 10);
  EXPECT_EQ(m.parent_index, (std::vector<int>{-1, 0, 1}));
}

// Numbers beyond double's range read as +-inf or +-0 by their decimal exponent, whatever the
// locale (the reader never asks the C library, whose strtod follows LC_NUMERIC): a coordinate
// overflows, a radius underflows to 0.
TEST(SwcErrors, NumbersBeyondDoublesRange) {
  const std::string root = "1 1 0 0 0 5 -1\n";
  for (const char* x : {"1.5e400", "-1.5e400", "1e99999999999999999999999", "0.0001e313"}) {
    SCOPED_TRACE(x);
    expect_swc_error<swc_bad_radius>(root + "2 3 " + x + " 0 0 1 1\n", 2, 2, true, "is not finite");
  }
  expect_swc_error<swc_bad_radius>(root + "2 3 1" + std::string(400, '0') + " 0 0 1 1\n", 2, 2, true,
                                   "is not finite");
  for (const char* r : {"2.5e-400", "-2.5e-400", "1e-99999999999999999999999", "1000e-330", "0.0e400"}) {
    SCOPED_TRACE(r);
    expect_swc_error<swc_bad_radius>(root + "2 3 10 0 0 " + r + " 1\n", 2, 2, true, "radius");
  }
  expect_swc_error<swc_bad_radius>(root + "2 3 10 0 0 0." + std::string(400, '0') + "1 1\n", 2, 2, true,
                                   "radius");
}

// Tokens are quoted printable: other bytes as \xNN, a long token cut after 40 bytes, so that a
// binary file read as SWC gives a short, readable message.
TEST(SwcErrors, MessagesQuoteUnprintableBytesAndCutLongTokens) {
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\n2 3 1\x01\x02 0 0 1 1\n", 2, 2, true,
                                    "field 3 (x) '1\\x01\\x02' is not a number");
  expect_swc_error<swc_parse_error>("\x7f" "ELF\x02\x01\xff\n", 1, 0, false,
                                    "field 1 (id) '\\x7f" "ELF\\x02\\x01\\xff' is not an integer");
  const std::string long_token(100, 'a');
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1 " + long_token + "\n", 1, 1, true,
                                    "unexpected text '" + std::string(40, 'a') + "...' after the 7th field");
}

TEST(SwcErrors, DuplicateId) {
  expect_swc_error<swc_duplicate_id>("1 1 0 0 0 5 -1\n2 3 1 0 0 1 1\n2 3 2 0 0 1 1\n", 3, 2, true,
                                     "duplicate id (first defined at line 2)");
}
TEST(SwcErrors, MissingParent) {
  expect_swc_error<swc_missing_parent>("1 1 0 0 0 5 -1\n\n12 3 1 0 0 1 9999\n", 3, 12, true,
                                       "parent 9999 does not exist");
  // The exact message format of the brief.
  try {
    std::istringstream in("1 1 0 0 0 5 -1\n12 3 1 0 0 1 9999\n");
    parse_swc(in, "BG001.CNG.swc");
    ADD_FAILURE();
  } catch (const swc_missing_parent& e) {
    EXPECT_STREQ(e.what(), "BG001.CNG.swc:2: sample 12: parent 9999 does not exist");
  }
}
TEST(SwcErrors, Cycle) {
  // 2 -> 3 -> 4 -> 2, beside a proper root.
  expect_swc_error<swc_cycle>("1 1 0 0 0 5 -1\n2 3 1 0 0 1 4\n3 3 2 0 0 1 2\n4 3 3 0 0 1 3\n", 2,
                              2, true, "cycle");
  expect_swc_error<swc_cycle>("1 1 0 0 0 5 -1\n2 3 1 0 0 1 2\n", 2, 2, true, "own parent");
}
TEST(SwcErrors, BadRadius) {
  expect_swc_error<swc_bad_radius>("1 1 0 0 0 5 -1\n2 3 1 0 0 0 1\n", 2, 2, true, "radius 0");
  expect_swc_error<swc_bad_radius>("1 1 0 0 0 -1 -1\n", 1, 1, true, "radius -1");
  expect_swc_error<swc_bad_radius>("1 1 0 0 0 nan -1\n", 1, 1, true, "radius nan");
  expect_swc_error<swc_bad_radius>("1 1 0 inf 0 1 -1\n", 1, 1, true, "coordinate y");
  expect_swc_error<swc_bad_radius>("1 1 0 0 1e999 1 -1\n", 1, 1, true, "coordinate z");
}
TEST(SwcErrors, MultipleRoots) {
  expect_swc_error<swc_multiple_roots>("1 1 0 0 0 5 -1\n2 3 1 0 0 1 1\n7 3 9 0 0 1 -1\n", 3, 7,
                                       true, "second root (the first is sample 1 at line 1)");
}
TEST(SwcErrors, Empty) {
  expect_swc_error<swc_empty>("# only a header\n\n   \n", 0, 0, false, "no samples");
  expect_swc_error<swc_empty>("", 0, 0, false, "no samples");
}
TEST(SwcErrors, MissingFileOrDirectory) {
  for (const auto& [path, reason] : {std::pair<std::string, std::string>{"/nonexistent/dir/none.swc",
                                                                         "cannot open file: No such file or directory"},
                                     {morphology_path(""), "is a directory"}}) {
    try {
      load_swc(path);
      ADD_FAILURE() << path << ": no exception";
    } catch (const swc_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path + ": " + reason, 0), 0u) << e.what();
    }
  }
}

// ---- order independence -----------------------------------------------------------------------

TEST(SwcOrder, ShuffledAndRenumberedFileGivesSameStatistics) {
  const Morphology sorted = load_swc(morphology_path("tc200.CNG.swc"));
  const MorphologyStats expected = compute_stats(sorted);
  // Renumber ids with gaps and in a random order, then write the lines shuffled.
  std::mt19937 rng(12345);
  const std::size_t n = sorted.samples.size();
  std::vector<long> new_id(n);
  std::iota(new_id.begin(), new_id.end(), 0L);
  std::shuffle(new_id.begin(), new_id.end(), rng);
  for (auto& id : new_id) id = 3 * id + 7;
  std::vector<std::size_t> line_order(n);
  std::iota(line_order.begin(), line_order.end(), std::size_t{0});
  std::shuffle(line_order.begin(), line_order.end(), rng);
  std::ostringstream text;
  text.precision(17);
  for (std::size_t k : line_order) {
    const SwcSample& s = sorted.samples[k];
    const int p = sorted.parent_index[k];
    text << new_id[k] << ' ' << s.type << ' ' << s.x << ' ' << s.y << ' ' << s.z << ' '
         << s.radius << ' ' << (p < 0 ? -1L : new_id[p]) << '\n';
  }
  const Morphology shuffled = parse_text(text.str());
  const MorphologyStats got = compute_stats(shuffled);
  EXPECT_EQ(got.points, expected.points);
  EXPECT_EQ(got.branch_points, expected.branch_points);
  EXPECT_EQ(got.tips, expected.tips);
  EXPECT_EQ(got.max_depth, expected.max_depth);
  EXPECT_EQ(got.soma, expected.soma);
  for (std::size_t i = 1; i < n; ++i) ASSERT_LT(shuffled.parent_index[i], static_cast<int>(i));
}

// ---- depth robustness -------------------------------------------------------------------------

std::string chain_text(long length, bool reversed, bool closed_cycle) {
  std::string text;
  text.reserve(static_cast<std::size_t>(length) * 24);
  char line[96];
  for (long k = 0; k < length; ++k) {
    const long id = reversed ? length - k : k + 1;
    long parent = id - 1;
    if (id == 1) parent = closed_cycle ? length : -1;
    std::snprintf(line, sizeof line, "%ld %d 0 0 %ld 0.5 %ld\n", id, id == 1 ? 1 : 3, id, parent);
    text += line;
  }
  return text;
}

TEST(SwcDepth, MillionDeepChain) {
  const long depth = 1000000;
  for (bool reversed : {false, true}) {
    SCOPED_TRACE(reversed ? "children listed before parents" : "parents first");
    const Morphology m = parse_text(chain_text(depth, reversed, false));
    const MorphologyStats s = compute_stats(m);
    EXPECT_EQ(s.points, depth);
    EXPECT_EQ(s.max_depth, depth);
    EXPECT_EQ(s.tips, 1);
    EXPECT_EQ(s.branch_points, 0);
    EXPECT_EQ(s.soma, SomaKind::point);
  }
}

TEST(SwcDepth, MillionLongCycleIsReportedNotRecursed) {
  EXPECT_THROW(parse_text(chain_text(1000000, true, true)), swc_cycle);
}

// ---- damaged real files -----------------------------------------------------------------------

/// The lines of a shared morphology file.
std::vector<std::string> file_lines(const std::string& file) {
  std::ifstream in(morphology_path(file));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The same real file with LF, CRLF or CR (classic Mac) line ends, with and without a UTF-8 byte
// order mark, reads into the same morphology with the same line numbers; an error in a CR-only
// file names its line; a byte order mark anywhere but before the first line is an error, and so is
// UTF-16 text; CRs just before an LF do not count as lines.
TEST(SwcParse, LineEndsAndByteOrderMark) {
  std::vector<std::string> lines = file_lines("control-1-wt.CNG.swc");  // a CRLF file
  ASSERT_GT(lines.size(), 1000u);
  for (auto& line : lines) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }
  const auto joined_by = [&](const std::string& prefix, const std::string& end) {
    std::string text = prefix;
    for (const auto& line : lines) text += line + end;
    return text;
  };
  const Morphology reference = load_swc(morphology_path("control-1-wt.CNG.swc"));
  const std::string bom = "\xEF\xBB\xBF";
  for (const std::string prefix : {std::string(), bom}) {
    for (const char* end : {"\n", "\r\n", "\r"}) {
      SCOPED_TRACE(std::string(prefix.empty() ? "no BOM" : "BOM") + ", end " + (end[0] == '\n' ? "LF" : end[1] ? "CRLF" : "CR"));
      const Morphology m = parse_text(joined_by(prefix, end));
      ASSERT_EQ(m.samples.size(), reference.samples.size());
      EXPECT_EQ(m.parent_index, reference.parent_index);
      EXPECT_EQ(m.line, reference.line);
      EXPECT_EQ(m.soma, reference.soma);
      for (std::size_t i = 0; i < m.samples.size(); ++i) {
        const SwcSample &a = m.samples[i], &b = reference.samples[i];
        ASSERT_TRUE(a.id == b.id && a.type == b.type && a.x == b.x && a.y == b.y && a.z == b.z &&
                    a.radius == b.radius && a.parent == b.parent)
            << "sample " << i;
      }
    }
  }
  expect_swc_error<swc_parse_error>("1 1 0 0 0 5 -1\r# c\r2 3 abc 0 0 1 1\r", 3, 2, true,
                                    "field 3 (x) 'abc' is not a number");
  expect_swc_error<swc_parse_error>(bom + "1 1 0 0 0 5 -1\n" + bom + "2 3 0 0 0 1 1\n", 2, 0, false,
                                    "is not an integer");
  // UTF-16 (a Windows editor's "Unicode"), little or big endian: one clear error at line 1.
  std::string utf16le = "\xFF\xFE", utf16be = "\xFE\xFF";
  for (const char c : std::string("1 1 0 0 0 5 -1\n")) {
    utf16le += std::string{c, '\0'};
    utf16be += std::string{'\0', c};
  }
  expect_swc_error<swc_parse_error>(utf16le, 1, 0, false, "UTF-16");
  expect_swc_error<swc_parse_error>(utf16be, 1, 0, false, "UTF-16");
  // CRs just before an LF are one line end, however many: line numbers are grep -n's (AA0013's
  // header has CR CR LF and CR CR CR LF line ends). A CR file with one LF at its very end is a CR
  // file.
  expect_swc_error<swc_parse_error>("# a\r\r\n# b\r\r\r\n1 1 0 0 0 5 -1\r\r\n2 3 abc 0 0 1 1\r\n", 4, 2, true,
                                    "field 3 (x) 'abc' is not a number");
  const Morphology mac = parse_text("# header\r1 1 0 0 0 5 -1\r2 3 10 0 0 1 1\r\n");
  EXPECT_EQ(mac.line, (std::vector<long>{2, 3}));
}

/// `lines` with 1-4 random edits of the kinds a damaged or hand-edited file shows: a line lost,
/// repeated or moved, a field replaced by a number out of range, a non-number or nothing, a
/// character changed, a parent redirected, a point moved onto the origin.
std::string damaged(std::vector<std::string> lines, std::mt19937_64& rng) {
  static const char* const tokens[] = {"nan", "inf", "-inf", "1e308", "1e400", "-1", "0", "-0",
                                       "99999999999999999999", "2147483647", "-2147483648", "1e-320",
                                       "0x10", "+", "", "#", "1.5", "3", "7", "-7"};
  auto fields = [](const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> f;
    for (std::string t; in >> t;) f.push_back(t);
    return f;
  };
  auto joined = [](const std::vector<std::string>& f) {
    std::string line;
    for (const auto& t : f) line += t + " ";
    return line;
  };
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !lines.empty(); ++e) {
    const std::size_t k = rng() % lines.size();
    std::vector<std::string> f = fields(lines[k]);
    switch (rng() % 7) {
      case 0: lines.erase(lines.begin() + static_cast<long>(k)); break;
      case 1: lines.insert(lines.begin() + static_cast<long>(rng() % lines.size()), lines[k]); break;
      case 2: std::swap(lines[k], lines[rng() % lines.size()]); break;
      case 3:
        if (!f.empty()) f[rng() % f.size()] = tokens[rng() % (sizeof tokens / sizeof *tokens)];
        lines[k] = joined(f);
        break;
      case 4:
        if (!lines[k].empty()) lines[k][rng() % lines[k].size()] = static_cast<char>(rng() % 128);
        break;
      case 5:
        if (f.size() == 7) f[6] = std::to_string(static_cast<long>(rng() % 6000) - 1);
        lines[k] = joined(f);
        break;
      case 6:
        if (f.size() == 7) f[2] = f[3] = f[4] = "0";
        lines[k] = joined(f);
        break;
    }
  }
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

// The brief's promise for malformed input: an exception naming the file, the line and the reason,
// never a crash, never a half-read morphology returned as valid. Each damaged file is either read
// whole (the reader's guarantees hold: parents before children, one root, positive radii, finite
// coordinates, a source line per sample; one root unless read as a forest) or rejected with an
// swc_error naming it; what is read
// either discretises into a cell check_compartmental_cell accepts or is rejected by
// tridiag::invalid_argument naming the file. Fresh damage every run (TRIDIAG_TEST_SEED repeats one).
TEST(SwcDamagedFiles, AreReadWholeOrRejectedByName) {
  const std::uint64_t seed = tridiag::test::test_seed();
  std::mt19937_64 rng(seed);
  long read = 0, rejected = 0, discretised = 0;
  for (const char* file : {"mp_ma_40984_gc2.CNG.swc", "control-1-wt.CNG.swc", "tc200.CNG.swc"}) {
    const std::vector<std::string> lines = file_lines(file);
    ASSERT_FALSE(lines.empty()) << file;
    for (int trial = 0; trial < 150; ++trial) {
      const std::string text = damaged(lines, rng);
      const std::string trace = std::string(file) + ", trial " + std::to_string(trial) + ", seed " + std::to_string(seed);
      std::istringstream in(text);
      Morphology m;
      const bool forest = trial % 3 == 0;  // a third read as forests: several roots allowed
      try {
        m = parse_swc(in, "damaged.swc", SwcOptions{forest});
      } catch (const swc_error& e) {
        ++rejected;
        EXPECT_EQ(std::string(e.what()).rfind("damaged.swc:", 0), 0u) << trace << ": " << e.what();
        continue;
      } catch (const std::exception& e) {
        ADD_FAILURE() << trace << ": not an swc_error: " << e.what();
        continue;
      }
      ++read;
      const std::size_t n = m.samples.size();
      ASSERT_GT(n, 0u) << trace;
      ASSERT_EQ(m.parent_index.size(), n) << trace;
      ASSERT_EQ(m.line.size(), n) << trace;
      EXPECT_EQ(m.parent_index[0], -1) << trace;
      int roots = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const SwcSample& p = m.samples[i];
        ASSERT_LT(m.parent_index[i], static_cast<int>(i)) << trace << ", sample " << i;
        ASSERT_GE(m.parent_index[i], -1) << trace << ", sample " << i;
        roots += m.parent_index[i] == -1;
        ASSERT_TRUE(p.radius > 0 && std::isfinite(p.radius) && std::isfinite(p.x) && std::isfinite(p.y) &&
                    std::isfinite(p.z))
            << trace << ", sample " << i;
        ASSERT_GE(m.line[i], 1) << trace << ", sample " << i;
      }
      EXPECT_EQ(m.root_count(), roots) << trace;
      if (!forest) EXPECT_EQ(roots, 1) << trace;
      EXPECT_EQ(compute_stats(m).points, static_cast<long>(n)) << trace;
      // A coordinate edited to 1e308 or -2^31 um is a kilometres-long neurite: discretize rejects
      // it by name (too many segments, or more than DiscretizationOptions::max_nodes).
      if (roots > 1) {  // a forest is not one cell
        EXPECT_THROW(discretize(m), tridiag::invalid_argument) << trace;
        continue;
      }
      try {
        const CompartmentalCell cell = discretize(m);
        ++discretised;
        EXPECT_NO_THROW(check_compartmental_cell(cell, trace)) << trace;
      } catch (const tridiag::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("damaged.swc"), std::string::npos) << trace << ": " << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << trace << ": discretize threw something else: " << e.what();
      }
    }
  }
  // Both outcomes occur (else the damage is too mild or too harsh to test anything).
  EXPECT_GT(read, 0);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(discretised, 0);
  std::printf("damaged files: %ld read (%ld discretised), %ld rejected (seed %llu)\n", read, discretised, rejected,
              static_cast<unsigned long long>(seed));
}

}  // namespace
