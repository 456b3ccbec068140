// An allocator whose blocks start on a 64-byte cache line, for the arrays the straight paths
// stream through with 64-byte loads (machine.hpp's register file, decode.hpp's instructions):
// a register's 32 lanes (256 bytes) are then four lines, a 192-byte DecodedInst three, wherever
// the heap puts the block. malloc gives 16 bytes: step 08's register file came 16 bytes past a
// line when Cta grew by 80 bytes, every 64-byte load of 8 lanes crossed two lines, and the step
// ran 5% slower (docs/results/2026-12-07-model-speed-9). Not for the shared-memory records: a
// cluster's CTAs of 200 KB of shared memory each then grew the heap over a process's first
// runs (500 more page faults in the bench's repeats 2 and 3, 4-7% of hopper_cluster_multicast),
// for nothing measurable on the Ampere steps.
#pragma once

#include <cstddef>
#include <new>

namespace gs::model {

template <class T>
struct LineAligned {
  using value_type = T;
  static constexpr std::align_val_t kLine{64};
  LineAligned() = default;
  template <class U>
  LineAligned(const LineAligned<U>&) noexcept {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kLine)); }
  void deallocate(T* p, size_t n) noexcept { ::operator delete(p, n * sizeof(T), kLine); }
  template <class U>
  bool operator==(const LineAligned<U>&) const noexcept {
    return true;
  }
};

}  // namespace gs::model
