#pragma once
// The threads that solve one neuron together in the BranchParallel kernel
// (branch_parallel_kernel.hpp): share out a range of indices, then wait for each other.
//   TeamCrew    a whole team per neuron: TeamThreadRange, team barriers.
//   VectorCrew  the vector lanes of one team thread, several neurons per team (small cells, so
//               that a GPU multiprocessor holds more neurons than it holds teams): ThreadVectorRange.
//               Kokkos 3.4 ends every ThreadVectorRange loop on CUDA with a __syncwarp of the
//               thread's lanes (Cuda/Kokkos_Cuda_Team.hpp), which orders their shared-memory
//               writes before the next loop; on host spaces the lanes are one thread. So a vector
//               crew needs no barrier of its own.

#include <Kokkos_Core.hpp>
#include <tridiag/core/types.hpp>

namespace tridiag::hines::impl {

template <class Member>
struct TeamCrew {
  const Member& member;
  template <class I, class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each(I begin, I end, const F& f) const {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, begin, end), f);
  }
  KOKKOS_FORCEINLINE_FUNCTION void sync() const { member.team_barrier(); }
};

template <class Member>
struct VectorCrew {
  const Member& member;
  template <class I, class F>
  KOKKOS_FORCEINLINE_FUNCTION void for_each(I begin, I end, const F& f) const {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, begin, end), f);
  }
  KOKKOS_FORCEINLINE_FUNCTION void sync() const {}  // for_each has synchronised the lanes (file comment)
};

}  // namespace tridiag::hines::impl
