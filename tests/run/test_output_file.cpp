// run/output_file: what a path leads to decides how it is written, and nothing but the named
// file is ever created, replaced or truncated. Device cases use private twins of /dev/full
// and /dev/null made with mknod when the tests run as root, so that a broken writer can never
// replace the machine's own device nodes.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "run/output_file.hpp"
#include "tests/support/scratch.hpp"

namespace fs = std::filesystem;
using gs::run::OutputFile;
using gs::run::OutputPathError;
using Catch::Matchers::Contains;

namespace {

using Scratch = gs::test::ScratchDir;
using gs::test::read_file;

// Names in the folder that look like our temporary files.
std::vector<std::string> temporaries(const Scratch& s) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(s.dir))
    if (e.path().filename().string().find(".gemmscope-") != std::string::npos) found.push_back(e.path().string());
  return found;
}

template <typename F>
std::string thrown(F&& f) {
  return gs::test::thrown_message(std::forward<F>(f));
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// A character device that fails every write with ENOSPC: a private /dev/full (same numbers)
// when we may make device nodes, else the real one (which nobody but root could replace).
std::string full_device(const Scratch& s) {
  const std::string twin = s.path("full");
  if (geteuid() == 0 && mknod(twin.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) return twin;
  return "/dev/full";
}

}  // namespace

TEST_CASE("output file: a regular file is replaced whole, keeping its permissions", "[run][output]") {
  Scratch s;
  const std::string path = s.path("k.ptx");
  OutputFile(path, "-o").write("first\n");
  CHECK(read_file(path) == "first\n");
  chmod(path.c_str(), 0640);
  OutputFile out(path, "-o");
  CHECK(read_file(path) == "first\n");  // nothing happens to the file before the write
  out.write("second\n");
  CHECK(read_file(path) == "second\n");
  CHECK((fs::status(path).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write |
                                                              fs::perms::group_read));
  CHECK(temporaries(s).empty());
  CHECK_THAT(thrown([&] { out.write("third\n"); }), Contains("already written"));
}

TEST_CASE("output file: a symbolic link is followed, and stays a link", "[run][output]") {
  Scratch s;
  std::ofstream(s.path("target.txt")) << "old\n";
  fs::create_symlink("target.txt", s.path("link.txt"));
  OutputFile(s.path("link.txt"), "-o").write("new\n");
  CHECK(fs::is_symlink(s.path("link.txt")));
  CHECK(read_file(s.path("target.txt")) == "new\n");
  // A link whose target does not exist yet creates the target, as `>` would.
  fs::create_symlink("later.txt", s.path("dangling.txt"));
  OutputFile(s.path("dangling.txt"), "-o").write("made\n");
  CHECK(fs::is_symlink(s.path("dangling.txt")));
  CHECK(read_file(s.path("later.txt")) == "made\n");
  CHECK(temporaries(s).empty());
}

TEST_CASE("output file: directories, missing folders and empty paths are refused before any work",
          "[run][output][errors]") {
  Scratch s;
  fs::create_directory(s.path("dir"));
  const std::string dir_message = thrown([&] { OutputFile(s.path("dir"), "-o"); });
  CHECK_THAT(dir_message, Contains("is a directory") && Contains(s.path("dir")));
  CHECK_THAT(dir_message, !Contains("Success"));
  CHECK(fs::is_directory(s.path("dir")));
  CHECK_THAT(thrown([&] { OutputFile(s.path("dir") + "/", "-o"); }), Contains("is a directory"));
  CHECK_THAT(thrown([&] { OutputFile(s.path("nowhere/x.json"), "--trace"); }),
             Contains("--trace") && Contains("does not exist"));
  CHECK_THAT(thrown([&] { OutputFile("", "--json"); }), Contains("--json needs the path of a file"));
  CHECK_THAT(thrown([&] { OutputFile("/proc/x.json", "--json"); }), Contains("/proc/x.json") && Contains("/proc"));
  // All of them are usage errors (exit 2), found before the work.
  CHECK_THROWS_AS(OutputFile(s.path("dir"), "-o"), OutputPathError);
  CHECK(temporaries(s).empty());
}

TEST_CASE("output file: devices are written through, never replaced, and report the system's error",
          "[run][output][errors]") {
  Scratch s;
  const std::string full = full_device(s);
  REQUIRE(is_char_device(full));
  OutputFile out(full, "-o");
  CHECK(out.writes_through());
  CHECK_THAT(thrown([&] { out.write("PTX\n"); }), Contains(full) && Contains("No space left on device"));
  CHECK(is_char_device(full));
  CHECK(temporaries(s).empty());
  std::string null = "/dev/null";
  if (geteuid() == 0 && mknod(s.path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) null = s.path("null");
  OutputFile null_out(null, "-o");
  CHECK(null_out.writes_through());
  null_out.write("gone\n");
  CHECK(is_char_device(null));
}

TEST_CASE("output file: a FIFO is written through when someone reads it, refused when nobody does",
          "[run][output][errors]") {
  Scratch s;
  const std::string fifo = s.path("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Nobody reads: refused at once instead of waiting for ever.
  CHECK_THAT(thrown([&] { OutputFile(fifo, "--json"); }), Contains("no program is reading"));
  std::string received;
  std::thread reader([&] {
    const int fd = open(fifo.c_str(), O_RDONLY);
    char buf[64];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) received.append(buf, size_t(n));
    close(fd);
  });
  // Opening for writing succeeds once the reader has opened its end.
  std::unique_ptr<OutputFile> out;
  for (int i = 0; i < 500 && !out; ++i) {
    try {
      out = std::make_unique<OutputFile>(fifo, "--json");
    } catch (const OutputPathError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  REQUIRE(out);
  out->write("{\"ok\": true}\n");
  out.reset();
  reader.join();
  CHECK(received == "{\"ok\": true}\n");
  struct stat st {};
  REQUIRE(lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("output file: a path through /proc (/dev/stdout, /dev/fd/N) writes to the open file", "[run][output]") {
  Scratch s;
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[1]);
  OutputFile out(path, "-o");
  CHECK(out.writes_through());
  out.write("through the pipe\n");
  close(fds[1]);
  char buf[64] = {};
  CHECK(read(fds[0], buf, sizeof buf - 1) == 17);
  close(fds[0]);
  CHECK(std::string(buf) == "through the pipe\n");
  // A reader that went away is an error, not a SIGPIPE that ends the program.
  REQUIRE(pipe(fds) == 0);
  OutputFile orphan("/proc/self/fd/" + std::to_string(fds[1]), "-o");
  close(fds[0]);
  CHECK_THAT(thrown([&] { orphan.write("nobody reads this\n"); }), Contains("Broken pipe"));
  close(fds[1]);
}

TEST_CASE("output file: a read-only file or folder is refused, even for root", "[run][output][errors]") {
  // access(W_OK) answers yes to root for every file, so a read-only file was replaced and a
  // read-only folder written into when gemmscope ran as root. The mode bits decide.
  Scratch s;
  const std::string file = s.path("readonly.txt");
  std::ofstream(file) << "keep me\n";
  chmod(file.c_str(), 0444);
  CHECK_THAT(thrown([&] { OutputFile(file, "-o"); }), Contains("-o '" + file + "'") && Contains("read-only"));
  CHECK_THROWS_AS(OutputFile(file, "-o"), OutputPathError);
  CHECK(read_file(file) == "keep me\n");
  fs::create_directory(s.path("rodir"));
  chmod(s.path("rodir").c_str(), 0555);
  CHECK_THAT(thrown([&] { OutputFile(s.path("rodir/new.txt"), "--trace"); }),
             Contains("--trace") && Contains("read-only"));
  CHECK(fs::is_empty(s.path("rodir")));
  chmod(s.path("rodir").c_str(), 0755);
  CHECK(temporaries(s).empty());
}
