#pragma once
// AllocationCounter: counts the Kokkos allocations made while it lives, through the Kokkos Tools
// allocation hook (which a test process has to itself). For the tests that a solve given a
// workspace allocates nothing. On host spaces the first team launches of a size grow Kokkos' own
// team scratch pool, which counts too: count a repeated call, not the first.

#include <Kokkos_Core.hpp>
#include <cstdint>

namespace tridiag::test {

class AllocationCounter {
 public:
  AllocationCounter() {
    count_ = 0;
    Kokkos::Tools::Experimental::set_allocate_data_callback(&AllocationCounter::on_allocate);
  }
  ~AllocationCounter() { Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr); }
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  int count() const { return count_; }

 private:
  static void on_allocate(Kokkos::Profiling::SpaceHandle, const char*, const void*, std::uint64_t) { ++count_; }
  static inline int count_ = 0;
};

}  // namespace tridiag::test
