// Host memory for the model's GEMM buffers at any shape.
//
// ReservedBytes: zero-filled memory that costs nothing until it is touched: an anonymous
// private mapping made with MAP_NORESERVE, whose pages the kernel supplies on first write. A
// 65536×65536 f32 matrix is 16 GiB of addresses but, when one CTA is traced, only the few MiB
// of rows and columns that CTA reads ever become memory. The buffer keeps the device layout
// (and so every address the model computes) of a dense one. The price: the addresses must be
// there, so a `ulimit -v` below the matrices' size, or strict overcommit
// (vm.overcommit_memory=2), refuses it with a clear error.
//
// available_memory_bytes / require_memory: what this process can still allocate, for
// refusing a run up front, naming the size it would need, instead of dying half way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gs::run {

class ReservedBytes {
 public:
  ReservedBytes() = default;
  // Throws std::runtime_error naming `what` and the size when the system refuses the addresses.
  ReservedBytes(uint64_t bytes, std::string_view what);
  ReservedBytes(ReservedBytes&& other) noexcept;
  ReservedBytes& operator=(ReservedBytes&& other) noexcept;
  ReservedBytes(const ReservedBytes&) = delete;
  ReservedBytes& operator=(const ReservedBytes&) = delete;
  ~ReservedBytes();

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  std::span<uint8_t> span() const { return {data_, size_t(size_)}; }
  // Bytes of it that are memory now (pages touched), as the kernel counts them (mincore).
  uint64_t resident_bytes() const;

 private:
  void release() noexcept;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// Bytes this process can still allocate: the least of the memory the kernel reports as
// available (MemAvailable), what the address-space limit (ulimit -v) leaves and what the
// process's cgroup (a container's memory.max) leaves. UINT64_MAX when none can be read.
uint64_t available_memory_bytes();

// "1.5 GiB", "512.0 MiB", "12 KiB".
std::string bytes_text(uint64_t bytes);

}  // namespace gs::run
