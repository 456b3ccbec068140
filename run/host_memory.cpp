#include "run/host_memory.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gs::run {

ReservedBytes::ReservedBytes(uint64_t bytes, std::string_view what) : size_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, size_t(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    const int e = errno;
    size_ = 0;
    throw std::runtime_error(fmt::format(
        "cannot reserve {} of addresses for {}: {} (only the part the run touches becomes memory, but the addresses "
        "must exist: check `ulimit -v` and vm.overcommit_memory)",
        bytes_text(bytes), what, std::strerror(e)));
  }
  data_ = static_cast<uint8_t*>(p);
}

ReservedBytes::ReservedBytes(ReservedBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ReservedBytes& ReservedBytes::operator=(ReservedBytes&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

ReservedBytes::~ReservedBytes() { release(); }

void ReservedBytes::release() noexcept {
  if (data_) munmap(data_, size_t(size_));
  data_ = nullptr;
  size_ = 0;
}

uint64_t ReservedBytes::resident_bytes() const {
  if (!data_) return 0;
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core(size_t((size_ + page - 1) / page));
  if (mincore(data_, size_t(size_), in_core.data()) != 0) return size_;
  uint64_t pages = 0;
  for (unsigned char c : in_core) pages += c & 1;
  return pages * page;
}

std::string bytes_text(uint64_t bytes) {
  const double b = double(bytes);
  if (b >= double(1ull << 30)) return fmt::format("{:.1f} GiB", b / double(1ull << 30));
  if (b >= double(1ull << 20)) return fmt::format("{:.1f} MiB", b / double(1ull << 20));
  if (b >= 1024.0) return fmt::format("{:.0f} KiB", b / 1024.0);
  return fmt::format("{} bytes", bytes);
}

namespace {

// The number after `key` in a "Key:   123 kB" file such as /proc/meminfo; 0 when absent.
uint64_t kib_field(const char* path, std::string_view key) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + key.size(), nullptr, 10);
  return 0;
}

// One number in a file (cgroup's memory.max, memory.current); nullopt for "max" or none.
std::optional<uint64_t> number_in(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text) || text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  return std::strtoull(text.c_str(), nullptr, 10);
}

}  // namespace

uint64_t available_memory_bytes() {
  uint64_t left = UINT64_MAX;
  if (const uint64_t kib = kib_field("/proc/meminfo", "MemAvailable:"); kib > 0) left = kib * 1024;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t used = kib_field("/proc/self/status", "VmSize:") * 1024;
    left = std::min<uint64_t>(left, as.rlim_cur > used ? as.rlim_cur - used : 0);
  }
  // cgroup v2: "0::/path" in /proc/self/cgroup names the group whose memory.max applies.
  std::ifstream cg("/proc/self/cgroup");
  std::string line;
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string dir = "/sys/fs/cgroup" + line.substr(3);
    const std::optional<uint64_t> max = number_in(dir + "/memory.max");
    const std::optional<uint64_t> current = number_in(dir + "/memory.current");
    if (max) left = std::min<uint64_t>(left, *max > current.value_or(0) ? *max - current.value_or(0) : 0);
  }
  return left;
}

}  // namespace gs::run
