// Variable batches (cuThomasVBatch): NCP on padded storage, NCP on offset-indexed storage, and CP
// (padding turned into identity rows), against the oracle system by system.

#include <climits>
#include <random>
#include <utility>

#include <tridiag/algorithms/thomas/thomas_solve.hpp>
#include <tridiag/layouts/variable_batch.hpp>

#include "thomas/variable_checks.hpp"
#include "status_rows_checks.hpp"

namespace tridiag::test {
namespace {

template <class C>
class ThomasVariable : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, list<layouts::Interleaved, layouts::BlockInterleaved<32>, layouts::Flat>,
                                 ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasVariable, Configs, ConfigNames);

TYPED_TEST(ThomasVariable, PaddedNcpStopsAtEachSize) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const index_type systems = 77, nmax = 90;
  const auto sizes = random_sizes(systems, 20, nmax, test_seed());
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed());
  auto sys = allocate_system<L, S, M>("v", systems, nmax);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  upload(h.d, sys.rhs);
  BatchVector<S, L, M> x("x", systems, nmax);
  fill_storage(x, nan_of<S>());
  auto sizes_view = layouts::make_sizes<M>(sizes);
  StatusView<M> status("status", systems);
  thomas::solve_padded(typename TypeParam::exec(), sys.matrix, sys.rhs, x, sizes_view, status);
  const auto xh = download(x);
  expect_variable_solution(h, sizes, xh, "padded NCP");
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = sizes[s]; i < nmax; ++i)
      ASSERT_TRUE(std::isnan(xh[s * nmax + i])) << "NCP wrote padding row " << i << " of system " << s;
  EXPECT_NO_THROW(tridiag::check(status));
}

TYPED_TEST(ThomasVariable, PaddedCpMatchesNcpInsideAndGivesZerosInThePadding) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  const index_type systems = 41, nmax = 64;
  const auto sizes = random_sizes(systems, 10, nmax, test_seed() + 7);
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 7);
  auto sys = allocate_system<L, S, M>("v", systems, nmax);
  upload(h.a, sys.matrix.lower);
  upload(h.b, sys.matrix.diag);
  upload(h.c, sys.matrix.upper);
  upload(h.d, sys.rhs);
  auto sizes_view = layouts::make_sizes<M>(sizes);
  typename TypeParam::exec exec;
  layouts::pad_matrix(exec, sys.matrix, sys.rhs, sizes_view);
  BatchVector<S, L, M> x("x", systems, nmax);
  fill_storage(x, nan_of<S>());
  thomas::solve(exec, sys.matrix, sys.rhs, x);
  const auto xh = download(x);
  expect_variable_solution(h, sizes, xh, "padded CP");
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = sizes[s]; i < nmax; ++i) ASSERT_EQ(xh[s * nmax + i], S(0));
}

TYPED_TEST(ThomasVariable, RaggedStorageNeedsNoPadding) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  const index_type systems = 64, nmax = 100;
  const auto sizes = random_sizes(systems, 1, nmax, test_seed() + 3);
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 3);
  auto offsets = layouts::make_offsets<M>(sizes);
  using V = layouts::RaggedVector<S, M>;
  V a("a", offsets), b("b", offsets), c("c", offsets), d("d", offsets), x("x", offsets);
  upload_ragged(h.a, sizes, nmax, a);
  upload_ragged(h.b, sizes, nmax, b);
  upload_ragged(h.c, sizes, nmax, c);
  upload_ragged(h.d, sizes, nmax, d);
  Kokkos::deep_copy(x.storage(), nan_of<S>());
  StatusView<M> status("status", systems);
  thomas::solve_ragged(typename TypeParam::exec(), a, b, c, d, x, status);
  const auto padded = download_ragged(x, sizes, nmax);
  expect_variable_solution(h, sizes, padded, "ragged NCP");
  EXPECT_NO_THROW(tridiag::check(status));
}

// x may be rhs (in place: Thomas reads d(i) before it writes x(i)); anything else x or the
// workspace shares with the solve's inputs is rejected before anything is written. On ragged
// storage (before the check): x = upper gave wrong results with status 0 (Thomas writes x(i)
// before it reads upper(i)), as did x one scalar past rhs and a workspace that is x; x = lower or
// diag and a workspace on a diagonal or rhs gave the right x but overwrote the inputs.
TYPED_TEST(ThomasVariable, OutputsThatOverlapTheInputsAreRejected) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  using V = layouts::RaggedVector<S, M>;
  typename TypeParam::exec exec;
  const index_type systems = 9, nmax = 30;
  const auto sizes = random_sizes(systems, 5, nmax, test_seed() + 11);  // with an empty and a 1-row system
  const auto h = make_host_batch<S>(systems, nmax, MatrixKind::diagonally_dominant, test_seed() + 11);
  auto offsets = layouts::make_offsets<M>(sizes);
  V a("a", offsets), b("b", offsets), c("c", offsets), d("d", offsets), x("x", offsets), work("w", offsets);
  upload_ragged(h.a, sizes, nmax, a);
  upload_ragged(h.b, sizes, nmax, b);
  upload_ragged(h.c, sizes, nmax, c);
  upload_ragged(h.d, sizes, nmax, d);
  // x one scalar past rhs in one allocation: overlapping, not the same vector.
  const index_type total = d.required_span();
  const typename V::storage_type both("both", total + 1);
  const V shifted_rhs(Kokkos::subview(both, std::make_pair(index_type(0), total)), offsets);
  const V shifted_x(Kokkos::subview(both, std::make_pair(index_type(1), total + 1)), offsets);
  const auto ragged = [&](const V& rhs, const V& out, const V& workspace) {
    return [&, rhs, out, workspace] { thomas::solve_ragged(exec, a, b, c, rhs, out, {}, workspace); };
  };
  expect_invalid_argument(ragged(d, a, {}), "x shares storage with the matrix's lower diagonal");
  expect_invalid_argument(ragged(d, b, {}), "x shares storage with the matrix's diagonal");
  expect_invalid_argument(ragged(d, c, {}), "x shares storage with the matrix's upper diagonal");
  expect_invalid_argument(ragged(shifted_rhs, shifted_x, {}), "x overlaps rhs without being it");
  expect_invalid_argument(ragged(d, x, x), "the workspace shares storage with x");
  expect_invalid_argument(ragged(d, x, d), "the workspace shares storage with rhs");
  expect_invalid_argument(ragged(d, x, c), "the workspace shares storage with the matrix's upper diagonal");
  // The padded storage has had the same checks since 3a447ba (check_solve_arguments).
  using L = typename TypeParam::layout;
  auto sys = upload_system<TypeParam>(h);
  const auto sizes_view = layouts::make_sizes<M>(sizes);
  BatchVector<S, L, M> xp("xp", systems, nmax);
  expect_invalid_argument([&] { thomas::solve_padded(exec, sys.matrix, sys.rhs, sys.matrix.upper, sizes_view); },
                          "x shares storage with the matrix's upper diagonal");
  expect_invalid_argument([&] { thomas::solve_padded(exec, sys.matrix, sys.rhs, xp, sizes_view, {}, xp); },
                          "the workspace shares storage with x");
  // Nothing was written: the inputs are intact.
  const auto expect_intact = [&](const V& v, const std::vector<S>& flat, const char* name) {
    const auto now = download_ragged(v, sizes, nmax);
    for (index_type s = 0; s < systems; ++s)
      for (index_type i = 0; i < sizes[s]; ++i) ASSERT_EQ(now[s * nmax + i], flat[s * nmax + i]) << name << " written";
  };
  expect_intact(a, h.a, "lower");
  expect_intact(b, h.b, "diag");
  expect_intact(c, h.c, "upper");
  expect_intact(d, h.d, "rhs");
  // The allowed cases still solve: a workspace of its own, and in place.
  thomas::solve_ragged(exec, a, b, c, d, x, {}, work);
  expect_variable_solution(h, sizes, download_ragged(x, sizes, nmax), "ragged, own workspace");
  thomas::solve_ragged(exec, a, b, c, d, d, {}, work);
  expect_variable_solution(h, sizes, download_ragged(d, sizes, nmax), "ragged, in place");
  thomas::solve_padded(exec, sys.matrix, sys.rhs, sys.rhs, sizes_view);
  expect_variable_solution(h, sizes, download(sys.rhs), "padded, in place");
}

TYPED_TEST(ThomasVariable, MismatchedOffsetsAndSizesAreRejected) {
  using S = typename TypeParam::scalar;
  using L = typename TypeParam::layout;
  using M = typename TypeParam::memory;
  auto offsets = layouts::make_offsets<M>({3, 4, 5});
  auto other = layouts::make_offsets<M>({3, 4, 5});
  layouts::RaggedVector<S, M> a("a", offsets), x("x", other);
  EXPECT_THROW(thomas::solve_ragged(typename TypeParam::exec(), a, a, a, a, x), tridiag::invalid_argument);
  auto sys = allocate_system<L, S, M>("v", 3, 4);
  auto too_big = layouts::make_sizes<M>({3, 5, 4});
  EXPECT_THROW(thomas::solve_padded(typename TypeParam::exec(), sys.matrix, sys.rhs, sys.rhs, too_big),
               tridiag::invalid_argument);
  auto wrong_count = layouts::make_sizes<M>({3, 4});
  EXPECT_THROW(thomas::solve_padded(typename TypeParam::exec(), sys.matrix, sys.rhs, sys.rhs, wrong_count),
               tridiag::invalid_argument);
  EXPECT_THROW(layouts::make_sizes<M>({3, -1}), tridiag::invalid_argument);
}

template <class C>
class ThomasVariableLongSystem : public KokkosTest {};
using LongSystemConfigs = to_gtest<product<list<float>, list<layouts::Flat>, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(ThomasVariableLongSystem, LongSystemConfigs, ConfigNames);

// A ragged batch whose longest system has more than INT_MAX rows, with a status View: a status
// code (an int row number) could not name its rows (row 2^32 would read 0, "solved"), and the
// solve ran. Now rejected before anything is read (one system of 2^31 rows in float, storage
// mapped read-only without reserve, never touched; the ragged check itself: test_variable_batch.cpp).
// Device spaces skip.
TYPED_TEST(ThomasVariableLongSystem, StatusOfRaggedSystemsBeyondIntMaxRowsIsRejected) {
  using E = typename TypeParam::exec;
  expect_ragged_status_beyond_int_max_rejected<typename TypeParam::memory>(
      [](const auto& matrix, const auto& rhs, const auto& status) {
        thomas::solve_ragged(E(), matrix, matrix, matrix, rhs, rhs, status);
      });
}

}  // namespace
}  // namespace tridiag::test
