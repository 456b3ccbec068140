// Reading data that comes from outside gemmscope (bench JSON files, the settings file): bounded
// in size before it is read and in nesting while it is parsed, so that no file, however made,
// can exhaust memory or the stack. Each reader then checks its fields' values itself.
//
//   const std::string text = run::read_input_file(path, 16 << 20);
//   const nlohmann::json j = run::parse_json_bounded(text, 32);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gs::run {

// Which kinds of file a reader takes besides regular files.
enum class InputKinds { regular_only, files_and_streams };

// The whole file, at most max_bytes. Streams (a FIFO, /dev/stdin) are read up to the limit;
// a FIFO with no writer reads as empty rather than waiting. Throws std::runtime_error naming
// the path and what is wrong: missing, a directory, not readable, not a file, too large.
std::string read_input_file(const std::string& path, size_t max_bytes,
                            InputKinds kinds = InputKinds::files_and_streams);

// JSON with objects and arrays nested at most max_depth deep. Throws std::runtime_error
// ("not valid JSON: ... at line 3, column 7", "nested more than 32 levels deep"). The parser
// is iterative and stops at the first container past the limit, so depth costs no stack.
nlohmann::json parse_json_bounded(std::string_view text, int max_depth);

}  // namespace gs::run
