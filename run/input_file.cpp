#include "run/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gs::run {

namespace {

std::string size_text(uint64_t bytes) {
  if (bytes >= (uint64_t(1) << 20)) return fmt::format("{:.1f} MiB", double(bytes) / double(1 << 20));
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
  return fmt::format("{} bytes", bytes);
}

// Closes the descriptor on every path out of read_input_file.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, size_t max_bytes, InputKinds kinds) {
  if (path.empty()) throw std::runtime_error("no file named: give the path of a file");
  // O_NONBLOCK: opening a FIFO must not wait for a writer (cleared below for the reads).
  const Fd f{open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) throw std::runtime_error(fmt::format("cannot read '{}': no such file", path));
    throw std::runtime_error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw std::runtime_error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(fmt::format("cannot read '{}': it is a directory, not a file", path));
  const bool stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
  if (!S_ISREG(st.st_mode) && !(stream && kinds == InputKinds::files_and_streams))
    throw std::runtime_error(fmt::format("cannot read '{}': it is not a regular file", path));
  if (S_ISREG(st.st_mode) && uint64_t(st.st_size) > max_bytes)
    throw std::runtime_error(fmt::format("cannot read '{}': it is {}, more than the {} such a file can be", path,
                                         size_text(uint64_t(st.st_size)), size_text(max_bytes)));
  const int flags = fcntl(f.fd, F_GETFL);
  if (flags >= 0) fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);

  std::string text;
  text.resize(std::min<size_t>(max_bytes + 1, S_ISREG(st.st_mode) ? size_t(st.st_size) + 1 : 65536));
  size_t used = 0;
  for (;;) {
    if (used == text.size()) {
      if (used > max_bytes) break;
      text.resize(std::min(max_bytes + 1, 2 * text.size()));
    }
    const ssize_t n = read(f.fd, text.data() + used, text.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    }
    if (n == 0) break;
    used += size_t(n);
  }
  if (used > max_bytes)
    throw std::runtime_error(
        fmt::format("cannot read '{}': it holds more than the {} such a file can be", path, size_text(max_bytes)));
  text.resize(used);
  return text;
}

nlohmann::json parse_json_bounded(std::string_view text, int max_depth) {
  struct TooDeep {};
  using Event = nlohmann::json::parse_event_t;
  // The callback sees each container as it opens, with the number of containers around it.
  const auto limit_depth = [max_depth](int depth, Event event, nlohmann::json&) {
    if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth) throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), limit_depth);
  } catch (const TooDeep&) {
    throw std::runtime_error(fmt::format("not valid here: objects and arrays are nested more than {} levels deep",
                                         max_depth));
  } catch (const nlohmann::json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..." without the tag.
    std::string what = e.what();
    if (const size_t tag_end = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos)
      what = what.substr(tag_end + 2);
    throw std::runtime_error("not valid JSON: " + what);
  }
}

}  // namespace gs::run
