// BatchVector and TridiagonalBatch: construction, wrapping, checks on bad extents.

#include <limits>

#include <tridiag/core/tridiagonal_batch.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

class BatchVectorTest : public KokkosTest {};

TEST_F(BatchVectorTest, AllocatesPaddedStorage) {
  BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v("v", 33, 10);
  EXPECT_EQ(v.systems(), 33);
  EXPECT_EQ(v.rows(), 10);
  EXPECT_EQ(static_cast<index_type>(v.storage().extent(0)), 64 * 10);
  EXPECT_EQ(v.label(), "v");
}

TEST_F(BatchVectorTest, WrapsStorageThatIsLargeEnough) {
  Kokkos::View<double*, Kokkos::HostSpace> storage("s", 64 * 10);
  BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v(storage, {33, 10});
  v(32, 9) = 3;
  EXPECT_EQ(storage(32 % 32 + 9 * 32 + 32 * 10), 3);
}

TEST_F(BatchVectorTest, RejectsStorageThatDoesNotCoverThePadding) {
  // 33 systems need 64 stored systems with BlockSize 32: storage for 33 x 10 is too small.
  Kokkos::View<double*, Kokkos::HostSpace> storage("user_storage", 33 * 10);
  try {
    BatchVector<double, layouts::BlockInterleaved<32>, Kokkos::HostSpace> v(storage, {33, 10});
    FAIL() << "accepted";
  } catch (const invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("330 scalars"), std::string::npos) << what;
    EXPECT_NE(what.find("64 stored systems"), std::string::npos) << what;
    EXPECT_NE(what.find("640"), std::string::npos) << what;
  }
}

TEST_F(BatchVectorTest, RejectsNegativeAndOverflowingExtents) {
  using V = BatchVector<double, layouts::Flat, Kokkos::HostSpace>;
  EXPECT_THROW(V("v", -1, 10), invalid_argument);
  EXPECT_THROW(V("v", 10, -3), invalid_argument);
  const index_type huge = std::numeric_limits<index_type>::max() / 4;
  try {
    V("v", huge, 1000);
    FAIL() << "accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("overflows"), std::string::npos) << e.what();
  }
}

TEST_F(BatchVectorTest, MatrixDiagonalsMustAgree) {
  using V = BatchVector<float, layouts::Interleaved, Kokkos::HostSpace>;
  V a("a", 4, 5), b("b", 4, 5), c_wrong("c", 4, 6);
  EXPECT_NO_THROW((TridiagonalBatch<float, layouts::Interleaved, Kokkos::HostSpace>(a, b, b)));
  EXPECT_THROW((TridiagonalBatch<float, layouts::Interleaved, Kokkos::HostSpace>(a, b, c_wrong)), invalid_argument);
}

TEST_F(BatchVectorTest, ConstViewsOfMutableVectors) {
  BatchVector<double, layouts::Flat, Kokkos::HostSpace> v("v", 2, 2);
  v(1, 1) = 4;
  BatchVector<const double, layouts::Flat, Kokkos::HostSpace> cv = v;
  EXPECT_EQ(cv(1, 1), 4);
}

/// rows_of through a shared mapping addresses the same element as v(s, i), on every layout.
template <class Layout>
void expect_mapped_rows_match(index_type systems, index_type rows) {
  using V = BatchVector<double, Layout, Kokkos::HostSpace>;
  V v("v", systems, rows);
  for (index_type s = 0; s < systems; ++s)
    for (index_type i = 0; i < rows; ++i) v(s, i) = static_cast<double>(1000 * s + i);
  const BatchVector<const double, Layout, Kokkos::HostSpace> cv = v;
  const auto map = v.mapping();
  for (index_type s = 0; s < systems; ++s) {
    const auto r = rows_of(v, s, map);
    const auto cr = rows_of(cv, s, map);
    for (index_type i = 0; i < rows; ++i) {
      EXPECT_EQ(&r(i), &v(s, i)) << Layout::name() << " system " << s << " row " << i;
      EXPECT_EQ(cr(i), 1000.0 * s + i);
    }
  }
}

TEST_F(BatchVectorTest, RowsThroughASharedMappingAreTheVectorsRows) {
  expect_mapped_rows_match<layouts::Flat>(5, 7);
  expect_mapped_rows_match<layouts::Interleaved>(5, 7);
  expect_mapped_rows_match<layouts::BlockInterleaved<4>>(5, 7);  // a partial last block
  expect_mapped_rows_match<layouts::BlockInterleaved<32>>(33, 3);
  expect_mapped_rows_match<layouts::UnifiedVector>(5, 7);
}

TEST_F(BatchVectorTest, PackedUnifiedVectorsKeepTheirOwnMappingThroughASharedOne) {
  // The upper diagonal packed in a unified allocation, addressed with a lone vector's mapping of
  // the same shape: its own width and component must still be used.
  using L = layouts::UnifiedVector;
  using V = BatchVector<double, L, Kokkos::HostSpace>;
  const index_type systems = 3, rows = 4;
  const typename V::storage_type packed_storage("packed", L(systems, rows, L::packed_width).required_span());
  const V upper(packed_storage, L(systems, rows, L::packed_width, L::upper));
  const V lone("lone", systems, rows);
  for (index_type s = 0; s < systems; ++s) {
    const auto r = rows_of(upper, s, lone.mapping());
    for (index_type i = 0; i < rows; ++i) EXPECT_EQ(&r(i), &upper(s, i)) << "system " << s << " row " << i;
  }
}

}  // namespace
}  // namespace tridiag::test
