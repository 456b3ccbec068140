// gs::cuda RAII objects over the driver: Context, DeviceBuffer, Event, Stream.
#include "engine/cuda/context.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "engine/cuda/driver_api.hpp"

namespace gs::cuda {

// --- moves and range checks (shared by both builds) -------------------------------------------

Context::Context(Context&& other) noexcept
    : ordinal_(std::exchange(other.ordinal_, -1)),
      device_handle_(other.device_handle_),
      context_(std::exchange(other.context_, nullptr)),
      device_(std::move(other.device_)) {}

Context& Context::operator=(Context&& other) noexcept {
  if (this != &other) {
    release();
    ordinal_ = std::exchange(other.ordinal_, -1);
    device_handle_ = other.device_handle_;
    context_ = std::exchange(other.context_, nullptr);
    device_ = std::move(other.device_);
  }
  return *this;
}

Context::~Context() {
  release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

void DeviceBuffer::check_range(std::size_t offset, std::size_t length, const char* what) const {
  if (offset > bytes_ || length > bytes_ - offset) {
    throw std::out_of_range(std::string(what) + " of " + std::to_string(length) +
                            " bytes at offset " + std::to_string(offset) +
                            " does not fit a device buffer of " + std::to_string(bytes_) +
                            " bytes");
  }
}

std::vector<std::byte> DeviceBuffer::download() const {
  std::vector<std::byte> bytes(bytes_);
  download(bytes);
  return bytes;
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    release();
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}
Event::~Event() {
  release();
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    release();
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}
Stream::~Stream() {
  release();
}

#if GEMMSCOPE_HAVE_CUDA_H

namespace {
// Releases only when this process may still talk to the driver (not in a child forked after
// cuInit, not after the driver vanished); release errors are ignored by design.
bool may_release() {
  return Driver::instance().available();
}
}  // namespace

// --- Context ----------------------------------------------------------------------------------

Context::Context(int ordinal) : ordinal_(ordinal) {
  const DriverApi& cu = api();
  device_ = device_info(ordinal);  // std::out_of_range for a GPU that does not exist
  CUdevice device = 0;
  check(cu.cuDeviceGet(&device, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
  device_handle_ = device;
  CUcontext context = nullptr;
  check(cu.cuDevicePrimaryCtxRetain(&context, device),
        "cuDevicePrimaryCtxRetain(GPU " + std::to_string(ordinal) + ")");
  context_ = context;
  try {
    make_current();
  } catch (...) {
    release();
    throw;
  }
}

void Context::release() noexcept {
  if (context_ != nullptr && may_release()) {
    (void)api().cuDevicePrimaryCtxRelease(device_handle_);
  }
  context_ = nullptr;
}

void Context::make_current() const {
  check(api().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

void Context::synchronize() const {
  check(api().cuCtxSynchronize(), "cuCtxSynchronize (waiting for the kernels launched so far)");
}

// --- DeviceBuffer -----------------------------------------------------------------------------

DeviceBuffer::DeviceBuffer(std::size_t bytes) {
  const DriverApi& cu = api();
  if (bytes == 0) return;  // cuMemAlloc rejects 0; an empty buffer owns nothing
  CUdeviceptr ptr = 0;
  check(cu.cuMemAlloc(&ptr, bytes), "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
  ptr_ = ptr;
  bytes_ = bytes;
}

void DeviceBuffer::release() noexcept {
  if (ptr_ != 0 && may_release()) (void)api().cuMemFree(ptr_);
  ptr_ = 0;
  bytes_ = 0;
}

void DeviceBuffer::upload(std::span<const std::byte> source, std::size_t offset) {
  check_range(offset, source.size(), "upload");
  if (source.empty()) return;
  check(api().cuMemcpyHtoD(ptr_ + offset, source.data(), source.size()),
        "cuMemcpyHtoD(" + std::to_string(source.size()) + " bytes)");
}

void DeviceBuffer::download(std::span<std::byte> destination, std::size_t offset) const {
  check_range(offset, destination.size(), "download");
  if (destination.empty()) return;
  check(api().cuMemcpyDtoH(destination.data(), ptr_ + offset, destination.size()),
        "cuMemcpyDtoH(" + std::to_string(destination.size()) + " bytes)");
}

void DeviceBuffer::memset_u8(std::uint8_t value) {
  if (bytes_ == 0) return;
  check(api().cuMemsetD8(ptr_, value, bytes_), "cuMemsetD8");
}

void DeviceBuffer::memset_u32(std::uint32_t value) {
  if (bytes_ % 4 != 0) {
    throw std::invalid_argument("memset_u32 on a buffer of " + std::to_string(bytes_) +
                                " bytes: the size must be a multiple of 4");
  }
  if (bytes_ == 0) return;
  check(api().cuMemsetD32(ptr_, value, bytes_ / 4), "cuMemsetD32");
}

// --- Event ------------------------------------------------------------------------------------

Event::Event() {
  CUevent event = nullptr;
  check(api().cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate");
  event_ = event;
}

void Event::release() noexcept {
  if (event_ != nullptr && may_release()) (void)api().cuEventDestroy(event_);
  event_ = nullptr;
}

void Event::record(StreamHandle stream) {
  check(api().cuEventRecord(event_, stream), "cuEventRecord");
}

void Event::synchronize() const {
  check(api().cuEventSynchronize(event_), "cuEventSynchronize");
}

float Event::elapsed_ms(const Event& start, const Event& stop) {
  stop.synchronize();
  float ms = 0.0f;
  check(api().cuEventElapsedTime(&ms, start.event_, stop.event_), "cuEventElapsedTime");
  return ms;
}

// --- Stream -----------------------------------------------------------------------------------

Stream::Stream() {
  CUstream stream = nullptr;
  check(api().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  stream_ = stream;
}

void Stream::release() noexcept {
  if (stream_ != nullptr && may_release()) (void)api().cuStreamDestroy(stream_);
  stream_ = nullptr;
}

void Stream::synchronize() const {
  check(api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

#else  // !GEMMSCOPE_HAVE_CUDA_H: nothing can be created, so nothing is ever released.

namespace {
[[noreturn]] void no_driver() {
  Driver::instance().require();
  throw DriverUnavailable(Driver::instance().unavailable_reason());
}
}  // namespace

Context::Context(int ordinal) : ordinal_(ordinal) {
  no_driver();
}
void Context::release() noexcept {
  context_ = nullptr;
}
void Context::make_current() const {
  no_driver();
}
void Context::synchronize() const {
  no_driver();
}

DeviceBuffer::DeviceBuffer(std::size_t) {
  no_driver();
}
void DeviceBuffer::release() noexcept {
  ptr_ = 0;
  bytes_ = 0;
}
void DeviceBuffer::upload(std::span<const std::byte>, std::size_t) {
  no_driver();
}
void DeviceBuffer::download(std::span<std::byte>, std::size_t) const {
  no_driver();
}
void DeviceBuffer::memset_u8(std::uint8_t) {
  no_driver();
}
void DeviceBuffer::memset_u32(std::uint32_t) {
  no_driver();
}

Event::Event() {
  no_driver();
}
void Event::release() noexcept {
  event_ = nullptr;
}
void Event::record(StreamHandle) {
  no_driver();
}
void Event::synchronize() const {
  no_driver();
}
float Event::elapsed_ms(const Event&, const Event&) {
  no_driver();
}

Stream::Stream() {
  no_driver();
}
void Stream::release() noexcept {
  stream_ = nullptr;
}
void Stream::synchronize() const {
  no_driver();
}

#endif  // GEMMSCOPE_HAVE_CUDA_H

}  // namespace gs::cuda
