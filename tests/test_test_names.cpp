// CTest runs each test case by giving its name to the test binary as a filter
// (catch_discover_tests, which escapes commas and brackets): a name the command line reads as
// something else ("-x" an option, "~x" a negation) would make CTest fail a test that passes.
#include <catch2/catch.hpp>

#include <string>

TEST_CASE("test names: every test case's name works as a command-line filter", "[meta]") {
  const auto& all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  REQUIRE(all.size() > 100);
  for (const Catch::TestCase& t : all) {
    const std::string& name = t.name;
    INFO(name);
    REQUIRE_FALSE(name.empty());
    CHECK(name.front() != '-');
    CHECK(name.front() != '~');
  }
}
