// gs::cuda RAII: the primary context of a device, device memory, events and streams.
//
// Ownership rules: every object here is move-only and releases its driver resource in its
// destructor. Destructors never throw: a release that fails (for example because an earlier
// kernel fault destroyed the context) is ignored. Create a Context first and destroy it last;
// buffers, modules, events and streams belong to the context that was current when they were
// made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "engine/cuda/device.hpp"
#include "engine/cuda/driver.hpp"

namespace gs::cuda {

// The device's primary context (the one the CUDA runtime and cuBLAS use too), retained and made
// current on the calling thread. Two Context objects for the same device share it.
class Context {
 public:
  explicit Context(int ordinal = 0);
  ~Context();
  Context(Context&& other) noexcept;
  Context& operator=(Context&& other) noexcept;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int ordinal() const { return ordinal_; }
  ContextHandle handle() const { return context_; }
  const DeviceInfo& device() const { return device_; }

  // Makes this context current on the calling thread (needed once per extra thread).
  void make_current() const;
  // Waits for all work; a failing earlier kernel surfaces here as a CudaError naming it.
  void synchronize() const;

 private:
  void release() noexcept;
  int ordinal_ = -1;
  int device_handle_ = 0;  // CUdevice
  ContextHandle context_ = nullptr;
  DeviceInfo device_;
};

// A cuMemAlloc'd block of device memory (256-byte aligned by the driver).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DevicePtr ptr() const { return ptr_; }
  std::size_t size() const { return bytes_; }

  // Synchronous copies; offset and length are checked against size() (std::out_of_range).
  void upload(std::span<const std::byte> source, std::size_t offset = 0);
  void download(std::span<std::byte> destination, std::size_t offset = 0) const;
  std::vector<std::byte> download() const;
  void memset_u8(std::uint8_t value);
  void memset_u32(std::uint32_t value);  // size() must be a multiple of 4

  template <class T>
  void upload_values(std::span<const T> values, std::size_t offset = 0) {
    static_assert(std::is_trivially_copyable_v<T>);
    upload(std::as_bytes(values), offset);
  }
  template <class T>
  void upload_values(const std::vector<T>& values, std::size_t offset = 0) {
    upload_values(std::span<const T>(values), offset);
  }
  template <class T>
  std::vector<T> download_values(std::size_t count, std::size_t offset = 0) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> values(count);
    download(std::as_writable_bytes(std::span<T>(values)), offset);
    return values;
  }

 private:
  void check_range(std::size_t offset, std::size_t length, const char* what) const;
  void release() noexcept;
  DevicePtr ptr_ = 0;
  std::size_t bytes_ = 0;
};

// A CUDA event with timing enabled.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  EventHandle handle() const { return event_; }
  void record(StreamHandle stream = nullptr);
  void synchronize() const;
  // Milliseconds between two recorded events (about 0.5 us resolution); waits for `stop`.
  static float elapsed_ms(const Event& start, const Event& stop);

 private:
  void release() noexcept;
  EventHandle event_ = nullptr;
};

// A non-blocking stream (it does not synchronise with the legacy default stream).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamHandle handle() const { return stream_; }
  void synchronize() const;

 private:
  void release() noexcept;
  StreamHandle stream_ = nullptr;
};

}  // namespace gs::cuda
