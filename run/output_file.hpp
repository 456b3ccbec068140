// Writing what gemmscope produces (PTX, traces, bench results, screenshots, the app's state and
// settings) to a path someone named, without ever destroying what that path leads to. Every
// writer of the command line and the app goes through here.
//
//   run::OutputFile out(path, "-o");  // before the work: throws OutputPathError (exit 2)
//   ... the work ...
//   out.write(text);                  // throws std::runtime_error with the system's reason
//
// What the path leads to decides how it is written:
//   * a regular file, or nothing yet: a temporary file in the same folder is written and then
//     renamed over the target, so a failure never leaves a truncated file. A symbolic link is
//     followed first: the link stays and the file it names is replaced (what `>` does, but
//     atomically). A file that exists keeps its permission bits.
//   * a character device or a FIFO (/dev/stdout, /dev/null, a terminal, a named pipe): written
//     through, opened up front without creating, renaming or truncating anything. A FIFO that
//     nobody reads is refused rather than waited on for ever. Paths through /proc (such as
//     /dev/stdout when it is redirected to a file) are written through as well: replacing the
//     file behind a descriptor would cut off the program that holds it.
//   * a directory, a block device or a socket: refused, naming it.
#pragma once

#include <string>
#include <string_view>

#include "kernels/registry.hpp"

namespace gs::run {

// A path that cannot be written, found before any work: bad input (exit 2). The message names
// the path, what it leads to and what would work.
class OutputPathError : public kernels::ConfigError {
 public:
  using kernels::ConfigError::ConfigError;
};

class OutputFile {
 public:
  OutputFile() = default;  // nothing to write
  // Checks that `path` can be written as described above, and for devices and FIFOs opens it.
  // `what` names where the path came from in messages ("-o", "--trace", "settings").
  OutputFile(const std::string& path, std::string_view what);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  bool empty() const { return path_.empty(); }
  const std::string& path() const { return path_; }
  // True when the bytes go straight to a device or pipe (no temporary file, no rename).
  bool writes_through() const { return fd_ >= 0; }

  // Writes all of `bytes` (once). Throws std::runtime_error naming the path and the system's
  // reason ("No space left on device"); a regular file is then left as it was.
  void write(std::string_view bytes);

 private:
  void close_fd() noexcept;

  std::string path_;    // as given
  std::string target_;  // regular files: the file to replace, symbolic links followed
  int fd_ = -1;         // devices and FIFOs: opened by the constructor
  unsigned keep_mode_ = 0;  // permission bits of the file being replaced (0: a new file)
};

// Writes `bytes` to `path` now (OutputFile(path, what).write(bytes)).
void write_output_file(const std::string& path, std::string_view bytes, std::string_view what);

}  // namespace gs::run
