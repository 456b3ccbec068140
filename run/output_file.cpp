#include "run/output_file.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gs::run {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string parent_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where a path leads once its symbolic links are followed, link by link (so a link whose
// target does not exist yet still names the file to create). through_proc: some step went
// through /proc (/dev/stdout -> /proc/self/fd/1 -> "pipe:[...]"), whose links name open
// files rather than paths.
struct Resolved {
  std::string path;
  bool through_proc = false;
  bool exists = false;
  struct stat st {};
};

Resolved resolve(const std::string& path, std::string_view what) {
  Resolved r;
  r.path = path;
  r.through_proc = starts_with(path, "/proc/");
  for (int hops = 0;; ++hops) {
    if (lstat(r.path.c_str(), &r.st) != 0) {
      if (errno == ENOENT) return r;
      throw OutputPathError(fmt::format("{} '{}': cannot write there: {}", what, path, errno_text(errno)));
    }
    if (!S_ISLNK(r.st.st_mode)) {
      r.exists = true;
      return r;
    }
    if (hops == 40)
      throw OutputPathError(fmt::format("{} '{}': cannot write there: {}", what, path, errno_text(ELOOP)));
    std::string target(4096, '\0');
    const ssize_t n = readlink(r.path.c_str(), target.data(), target.size());
    if (n < 0) throw OutputPathError(fmt::format("{} '{}': cannot follow the link: {}", what, path, errno_text(errno)));
    target.resize(size_t(n));
    if (r.through_proc) return r;  // a /proc link names an open file, not a path: never follow it by text
    r.path = !target.empty() && target[0] == '/' ? target : parent_of(r.path) + "/" + target;
    r.through_proc = starts_with(r.path, "/proc/");
  }
}

std::string temp_name_in(const std::string& dir, const std::string& base) {
  static std::atomic<uint32_t> counter{0};
  // Short enough for any file system's 255-byte names, hidden, and unique per process and call.
  return fmt::format("{}/.{}.gemmscope-{:x}-{:x}", dir, base.substr(0, 100), uint32_t(getpid()), counter++);
}

// Creates a fresh temporary file next to `target` (the process's umask applies, as for any new
// file). Returns the descriptor and fills `name`; -1 and errno on failure.
int create_temp(const std::string& target, std::string& name) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = temp_name_in(parent_of(target), base_of(target));
    const int fd = open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Whether a file's or folder's mode bits let it be written. For root, whom access() and the
// kernel let write anything, a file or folder with no write bit at all was made read-only on
// purpose and is left alone. For anyone else the system's own checks (access(), creating a
// file) already say it, groups and ACLs included.
bool mode_allows_writing(const struct stat& st) {
  return geteuid() != 0 || (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0;
}

// Can a file be created next to `target`? Creates one and removes it at once: this asks the
// file system itself (read-only mounts, permissions, ACLs, quotas), which access() cannot.
void check_can_create_next_to(const std::string& target, const std::string& path, std::string_view what) {
  const std::string dir = parent_of(target);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0)
    throw OutputPathError(fmt::format("{} '{}': cannot write there: the folder '{}' {}", what, path, dir,
                                      errno == ENOENT ? "does not exist" : "cannot be reached: " + errno_text(errno)));
  if (!S_ISDIR(st.st_mode))
    throw OutputPathError(fmt::format("{} '{}': cannot write there: '{}' is not a folder", what, path, dir));
  if (!mode_allows_writing(st))
    throw OutputPathError(fmt::format("{} '{}': the folder '{}' is read-only (mode {:04o}); choose another path",
                                      what, path, dir, unsigned(st.st_mode & 07777)));
  std::string name;
  const int fd = create_temp(target, name);
  if (fd < 0)
    throw OutputPathError(fmt::format("{} '{}': cannot create a file in the folder '{}': {}", what, path, dir,
                                      errno_text(errno)));
  unlink(name.c_str());
  close(fd);
}

// Devices, FIFOs and /proc paths: opened now, never created or replaced. O_NONBLOCK makes a
// FIFO without a reader fail (ENXIO) instead of waiting for one; it is cleared afterwards.
int open_through(const std::string& path, std::string_view what, bool regular) {
  const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (regular ? O_TRUNC : 0));
  if (fd < 0) {
    if (errno == ENXIO)
      throw OutputPathError(fmt::format("{} '{}': no program is reading this FIFO (start the reader first)", what, path));
    throw OutputPathError(fmt::format("{} '{}': cannot write there: {}", what, path, errno_text(errno)));
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISBLK(mode)) return "a block device (a disk)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

[[noreturn]] void refuse(const std::string& path, std::string_view what, mode_t mode) {
  throw OutputPathError(fmt::format("{} '{}' is {}: give the path of a file (or a FIFO, or a device such as /dev/stdout)",
                                    what, path, kind_of(mode)));
}

// Writes everything, retrying short writes and interruptions. A reader that went away gives
// EPIPE, not a SIGPIPE that would end the program: the signal is blocked in this thread for
// the write and a pending one is taken back. Returns 0 or the errno of the failure.
int write_all(int fd, std::string_view bytes) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  int error = 0;
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    done += size_t(n);
  }
  if (error == EPIPE) {
    const timespec no_wait{0, 0};
    sigtimedwait(&pipe_only, nullptr, &no_wait);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return error;
}

}  // namespace

OutputFile::OutputFile(const std::string& path, std::string_view what) : path_(path) {
  if (path.empty()) throw OutputPathError(fmt::format("{} needs the path of a file, got ''", what));
  const Resolved r = resolve(path, what);
  if (r.through_proc) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
      const int e = errno;
      throw OutputPathError(fmt::format("{} '{}': cannot write there: {}{}", what, path, errno_text(e),
                                        e == ENOENT ? " (files cannot be created under /proc)" : ""));
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) refuse(path, what, st.st_mode);
    fd_ = open_through(path, what, S_ISREG(st.st_mode));
    return;
  }
  if (!r.exists) {
    check_can_create_next_to(r.path, path, what);
    target_ = r.path;
    return;
  }
  if (S_ISCHR(r.st.st_mode) || S_ISFIFO(r.st.st_mode)) {
    fd_ = open_through(r.path, what, false);
    return;
  }
  if (!S_ISREG(r.st.st_mode)) refuse(path, what, r.st.st_mode);
  // A file someone made read-only is not replaced behind their back (a rename would allow it).
  // access() says yes to root for any file: the mode bits say what its owner meant.
  if (!mode_allows_writing(r.st))
    throw OutputPathError(fmt::format("{} '{}': the file is read-only (mode {:04o}); make it writable first "
                                      "(chmod u+w) or choose another path",
                                      what, path, unsigned(r.st.st_mode & 07777)));
  if (access(r.path.c_str(), W_OK) != 0)
    throw OutputPathError(fmt::format("{} '{}': the file is not writable: {}", what, path, errno_text(errno)));
  check_can_create_next_to(r.path, path, what);
  target_ = r.path;
  keep_mode_ = unsigned(r.st.st_mode & 07777);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), target_(std::move(other.target_)), fd_(std::exchange(other.fd_, -1)),
      keep_mode_(other.keep_mode_) {
  other.path_.clear();
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    close_fd();
    path_ = std::move(other.path_);
    target_ = std::move(other.target_);
    fd_ = std::exchange(other.fd_, -1);
    keep_mode_ = other.keep_mode_;
    other.path_.clear();
  }
  return *this;
}

OutputFile::~OutputFile() { close_fd(); }

void OutputFile::close_fd() noexcept {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void OutputFile::write(std::string_view bytes) {
  if (path_.empty()) throw std::logic_error("OutputFile::write on an empty OutputFile");
  if (fd_ >= 0) {
    int error = write_all(fd_, bytes);
    const int fd = std::exchange(fd_, -1);
    if (close(fd) != 0 && error == 0) error = errno;
    if (error != 0) throw std::runtime_error(fmt::format("writing '{}' failed: {}", path_, errno_text(error)));
    return;
  }
  if (target_.empty()) throw std::logic_error(fmt::format("OutputFile '{}' was already written", path_));
  std::string tmp;
  const int fd = create_temp(target_, tmp);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path_, errno_text(errno)));
  int error = keep_mode_ != 0 && fchmod(fd, mode_t(keep_mode_)) != 0 ? errno : 0;
  if (error == 0) error = write_all(fd, bytes);
  if (close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && rename(tmp.c_str(), target_.c_str()) != 0) error = errno;
  if (error != 0) {
    unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("writing '{}' failed: {} (the file was left as it was)", path_,
                                         errno_text(error)));
  }
  target_.clear();
}

void write_output_file(const std::string& path, std::string_view bytes, std::string_view what) {
  OutputFile(path, what).write(bytes);
}

}  // namespace gs::run
