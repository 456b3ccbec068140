// Test helper: assemble PTX with ptxas, skipping with a printed reason when ptxas is
// missing, failing instead when GEMMSCOPE_REQUIRE_PTXAS=1 (CI sets it).
#pragma once

#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "engine/ptx/ptxas.hpp"

namespace gs::test {

inline bool ptxas_required() {
  const char* v = std::getenv("GEMMSCOPE_REQUIRE_PTXAS");
  return v && std::string(v) == "1";
}

// Returns true when ptxas ran and accepted the PTX; false (after a WARN) when skipped.
// It asks ptxas what a simulation's register count asks (ptx/registers.cpp: -lineinfo, the cubin
// kept), so that under $GEMMSCOPE_PTXAS_CACHE (the test suite's) a text checked here and then run
// on the model for the same target starts ptxas once, not twice.
inline bool check_assembles(const std::string& ptx, ir::Arch target, const std::string& what) {
  const ptx::PtxasResult r = ptx::run_ptxas(ptx, target, {.line_info = true, .keep_cubin = true});
  if (!r.ran) {
    if (ptxas_required()) FAIL("GEMMSCOPE_REQUIRE_PTXAS=1 but " << r.log);
    WARN("skipped ptxas check of " << what << ": " << r.log);
    return false;
  }
  INFO(what << "\n" << r.command << "\n" << r.log);
  CHECK(r.ok);
  return r.ok;
}

}  // namespace gs::test
