// Test helper: an environment variable set for one scope and restored after it (how the tests
// point GEMMSCOPE_PTXAS / GEMMSCOPE_NVDISASM at a missing or stand-in tool).
#pragma once

#include <cstdlib>
#include <string>

namespace gs::test {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* v = std::getenv(name_.c_str())) had_ = true, old_ = v;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? (void)::setenv(name_.c_str(), old_.c_str(), 1) : (void)::unsetenv(name_.c_str()); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace gs::test
