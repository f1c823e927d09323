// Layout mappings: element (s, i) addressing, padding rules, and round-trip conversion between
// every pair of layouts on every execution space.

#include <set>

#include <tridiag/core/tridiagonal_batch.hpp>
#include <tridiag/layouts/conversion.hpp>
#include <tridiag/layouts/view_adapters.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

TEST(LayoutMapping, FlatAndInterleavedMatchKokkosLayoutRightAndLeft) {
  const layouts::Flat flat(5, 7);
  const layouts::Interleaved inter(5, 7);
  EXPECT_EQ(flat.offset(0, 0), 0);
  EXPECT_EQ(flat.offset(2, 3), 2 * 7 + 3);
  EXPECT_EQ(inter.offset(2, 3), 3 * 5 + 2);
  EXPECT_EQ(flat.required_span(), 35);
  EXPECT_EQ(inter.required_span(), 35);
}

TEST(LayoutMapping, BlockInterleavedTilesAndPads) {
  const layouts::BlockInterleaved<4> m(10, 3);  // 3 tiles of 4 systems, 2 padding systems
  EXPECT_EQ(m.stored_systems(), 12);
  EXPECT_EQ(m.required_span(), 36);
  EXPECT_EQ(m.offset(0, 0), 0);
  EXPECT_EQ(m.offset(1, 0), 1);
  EXPECT_EQ(m.offset(0, 1), 4);
  EXPECT_EQ(m.offset(5, 2), 1 * 12 + 2 * 4 + 1);
  EXPECT_EQ(m.offset(9, 2), 2 * 12 + 2 * 4 + 1);
}

TEST(LayoutMapping, UnifiedVectorPacksTheFourVectorsOfARow) {
  using U = layouts::UnifiedVector;
  const U lower(6, 5, U::packed_width, U::lower), rhs(6, 5, U::packed_width, U::rhs);
  EXPECT_EQ(lower.offset(0, 0), 0);
  EXPECT_EQ(rhs.offset(0, 0), 3);
  EXPECT_EQ(lower.offset(1, 0), 4);      // next system, same row: the next packed run
  EXPECT_EQ(lower.offset(0, 1), 6 * 4);  // next row starts after every system's row 0
  EXPECT_EQ(rhs.required_span(), 6 * 5 * 4);
  const U alone(6, 5);  // a vector on its own is ordered like Interleaved
  EXPECT_EQ(alone.offset(2, 3), layouts::Interleaved(6, 5).offset(2, 3));
}

/// Every layout maps (s, i) one-to-one into [0, required_span).
template <class Layout>
void expect_injective(const Layout& m) {
  std::set<index_type> seen;
  for (index_type s = 0; s < m.systems; ++s)
    for (index_type i = 0; i < m.rows; ++i) {
      const index_type k = m.offset(s, i);
      ASSERT_GE(k, 0);
      ASSERT_LT(k, m.required_span());
      ASSERT_TRUE(seen.insert(k).second) << Layout::name() << ": (" << s << ", " << i << ") collides";
    }
}

TEST(LayoutMapping, EveryLayoutIsOneToOne) {
  for (index_type nsys : {1, 7, 33, 64})
    for (index_type n : {1, 3, 10}) {
      expect_injective(layouts::Flat(nsys, n));
      expect_injective(layouts::Interleaved(nsys, n));
      expect_injective(layouts::BlockInterleaved<8>(nsys, n));
      expect_injective(layouts::BlockInterleaved<32>(nsys, n));
      expect_injective(layouts::UnifiedVector(nsys, n));
      for (int k = 0; k < 4; ++k) expect_injective(layouts::UnifiedVector(nsys, n, 4, k));
    }
}

// ---- conversion between every pair, on every execution space ----------------------------------
template <class C>
class LayoutConversion : public KokkosTest {};
using Configs = to_gtest<product<RealScalars, AllLayouts, ExecSpaces>::type>::type;
TYPED_TEST_SUITE(LayoutConversion, Configs, ConfigNames);

template <class C, class Target>
void round_trip(index_type systems, index_type rows) {
  using S = typename C::scalar;
  using M = typename C::memory;
  typename C::exec exec;
  std::vector<S> values(systems * rows);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = S(k) * S(0.5) + S(1);
  BatchVector<S, typename C::layout, M> source("source", systems, rows), back("back", systems, rows);
  BatchVector<S, Target, M> target("target", systems, rows);
  upload(values, source);
  fill_storage(target, nan_of<S>());
  fill_storage(back, nan_of<S>());
  layouts::convert(exec, source, target);
  layouts::convert(exec, target, back);
  exec.fence();
  EXPECT_EQ(download(target), values) << C::layout::name() << " -> " << Target::name();
  EXPECT_EQ(download(back), values) << Target::name() << " -> " << C::layout::name();
  expect_padding_untouched(target);
}

template <class C, class... Targets>
void round_trip_all(list<Targets...>, index_type systems, index_type rows) {
  (round_trip<C, Targets>(systems, rows), ...);
}

TYPED_TEST(LayoutConversion, RoundTripsThroughEveryOtherLayout) {
  for (auto shape : {std::pair<index_type, index_type>{1, 1}, {13, 7}, {33, 65}, {64, 1}, {0, 5}, {5, 0}})
    round_trip_all<TypeParam>(AllLayouts{}, shape.first, shape.second);
}

TYPED_TEST(LayoutConversion, ShapeMismatchIsRejected) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  BatchVector<S, typename TypeParam::layout, M> a("a", 4, 5);
  BatchVector<S, layouts::Flat, M> b("b", 4, 6);
  EXPECT_THROW(layouts::convert(typename TypeParam::exec(), a, b), tridiag::invalid_argument);
}

// An in-place transpose loses the elements written before they are read (5 of 12 wrong, no
// error, before convert checked): a destination sharing storage with the source is rejected.
TYPED_TEST(LayoutConversion, SourceAndDestinationMustNotShareStorage) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  using L = typename TypeParam::layout;
  BatchVector<S, L, M> a("a", 3, 4);
  const BatchVector<S, layouts::Flat, M> flat_over_a(a.storage(), layouts::Flat(3, 4));
  const typename TypeParam::exec exec;
  EXPECT_THROW(layouts::convert(exec, a, flat_over_a), tridiag::invalid_argument);
  EXPECT_THROW(layouts::convert(exec, flat_over_a, a), tridiag::invalid_argument);
}

// Every diagonal of both matrices is checked before any is converted: a wrong-shaped upper
// diagonal used to throw only after lower and diag had been written.
TYPED_TEST(LayoutConversion, MatrixChecksEveryDiagonalBeforeWriting) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  using L = typename TypeParam::layout;
  using Src = TridiagonalBatch<S, L, M>;
  using Dst = TridiagonalBatch<S, layouts::Flat, M>;
  const typename TypeParam::exec exec;
  Src src("src", 4, 5);
  fill_storage(src.lower, S(1));
  fill_storage(src.diag, S(2));
  fill_storage(src.upper, S(3));
  const auto untouched = [](const Dst& dst) {
    for (const auto* v : {&dst.lower, &dst.diag, &dst.upper})
      for (const S value : download(*v)) EXPECT_EQ(value, S(-7));
  };
  Dst dst("dst", 4, 5);
  for (const auto* v : {&dst.lower, &dst.diag, &dst.upper}) fill_storage(*v, S(-7));
  dst.upper = BatchVector<S, layouts::Flat, M>("short_upper", 4, 4);  // members are public
  fill_storage(dst.upper, S(-7));
  EXPECT_THROW(layouts::convert(exec, src, dst), tridiag::invalid_argument);
  exec.fence();
  untouched(dst);
  Dst fine("fine", 4, 5);
  for (const auto* v : {&fine.lower, &fine.diag, &fine.upper}) fill_storage(*v, S(-7));
  Src bad_source = src;
  bad_source.lower = BatchVector<S, L, M>("short_lower", 3, 5);
  EXPECT_THROW(layouts::convert(exec, bad_source, fine), tridiag::invalid_argument);
  exec.fence();
  untouched(fine);
  Dst aliased = fine;
  aliased.upper = BatchVector<S, layouts::Flat, M>(fine.lower.storage(), layouts::Flat(4, 5));
  EXPECT_THROW(layouts::convert(exec, src, aliased), tridiag::invalid_argument);  // two outputs in one
  layouts::convert(exec, src, fine);
  exec.fence();
  for (const S value : download(fine.upper)) EXPECT_EQ(value, S(3));
}

TYPED_TEST(LayoutConversion, UnifiedVectorSystemSharesOneAllocation) {
  using S = typename TypeParam::scalar;
  using M = typename TypeParam::memory;
  auto sys = allocate_system<layouts::UnifiedVector, S, M>("uv", 9, 4);
  EXPECT_EQ(sys.matrix.lower.storage().data(), sys.rhs.storage().data());
  EXPECT_EQ(sys.matrix.diag.storage().data(), sys.rhs.storage().data());
  EXPECT_EQ(static_cast<index_type>(sys.rhs.storage().extent(0)), 9 * 4 * 4);
}

TEST(LayoutViews, PlainViewsAdaptWithoutCopy) {
  if (!kokkos_available()) GTEST_SKIP() << kokkos_unavailable_reason();
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> left("left", 6, 4);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> right("right", 6, 4);
  left(2, 3) = 5;
  right(2, 3) = 7;
  auto l = layouts::as_batch_vector(left);
  auto r = layouts::as_batch_vector(right);
  static_assert(std::is_same_v<decltype(l)::layout_type, layouts::Interleaved>);
  static_assert(std::is_same_v<decltype(r)::layout_type, layouts::Flat>);
  EXPECT_EQ(l(2, 3), 5);
  EXPECT_EQ(r(2, 3), 7);
  EXPECT_EQ(l.systems(), 6);
  EXPECT_EQ(r.rows(), 4);
  // The first 3 systems of a LayoutLeft View: still LayoutLeft, but with a row stride of 6.
  auto first_three = Kokkos::subview(left, std::make_pair(0, 3), Kokkos::ALL);
  EXPECT_THROW(layouts::as_batch_vector(first_three), tridiag::invalid_argument);
}

}  // namespace
}  // namespace tridiag::test
