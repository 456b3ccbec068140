// Catch2's main for the whole suite, after one piece of set-up: the programs the tests start
// (the app headless, above all) keep the speed ladder's model figures in the build folder's
// test-cache, not in the user's ~/.cache, and share them there: the first GUI test of a build
// makes them (about 9 s of a core, several times that under the sanitizers), the others read them.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

int main(int argc, char* argv[]) {
  const std::string cache = std::string(GEMMSCOPE_BUILD_DIR) + "/test-cache";
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  return Catch::Session().run(argc, argv);
}
