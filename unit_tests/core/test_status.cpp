// Status codes and tridiag::check.

#include <tridiag/core/status.hpp>

#include "test_support.hpp"

namespace tridiag::test {
namespace {

TEST(Status, DescribesEveryKindOfCode) {
  EXPECT_EQ(describe_status(0), "ok");
  EXPECT_NE(describe_status(5).find("pivot at row 5"), std::string::npos);
  EXPECT_NE(describe_status(-3).find("non-finite value at row 3"), std::string::npos);
}

class StatusCheck : public KokkosTest {};

TEST_F(StatusCheck, PassesWhenAllSystemsSucceeded) {
  StatusView<Kokkos::HostSpace> status("status", 10);
  EXPECT_NO_THROW(check(status));
  EXPECT_NO_THROW(check(StatusView<Kokkos::HostSpace>()));
}

TEST_F(StatusCheck, ListsTheFailedSystems) {
  StatusView<Kokkos::DefaultExecutionSpace::memory_space> status("status", 100);
  auto host = Kokkos::create_mirror_view(status);
  Kokkos::deep_copy(host, 0);
  host(17) = 4;
  host(60) = -2;
  Kokkos::deep_copy(status, host);
  try {
    check(status, "my_solver");
    FAIL() << "no exception";
  } catch (const numerical_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("my_solver"), std::string::npos) << what;
    EXPECT_NE(what.find("2 of 100"), std::string::npos) << what;
    EXPECT_NE(what.find("system 17: zero, tiny or non-finite pivot at row 4"), std::string::npos) << what;
    EXPECT_NE(what.find("system 60: non-finite value at row 2"), std::string::npos) << what;
  }
}

TEST(Errors, RequireBuildsTheMessageFromItsParts) {
  EXPECT_NO_THROW(require(true, "f", "never"));
  try {
    require(false, "thomas::solve", "rhs has ", 255, " systems, matrix has ", 256);
    FAIL();
  } catch (const invalid_argument& e) {
    EXPECT_STREQ(e.what(), "thomas::solve: rhs has 255 systems, matrix has 256");
  }
}

}  // namespace
}  // namespace tridiag::test
