// Lookups over the built-in kernel sources (the table itself is generated: kernel_sources.cpp).
#include "kernels/sources.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gs::kernels {

const SourceFile* find_kernel_source(std::string_view path) {
  const auto files = kernel_sources();
  const auto it = std::find_if(files.begin(), files.end(), [&](const SourceFile& f) { return f.path == path; });
  return it == files.end() ? nullptr : &*it;
}

std::vector<std::string_view> source_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

const SourceFile* step_source(std::string_view kernel_id) {
  // A step's file is kernels/NN_<id>.cpp (kernels/CMakeLists.txt); NN is two digits.
  for (const SourceFile& f : kernel_sources()) {
    const std::string_view name = f.path.substr(f.path.rfind('/') + 1);
    if (name.size() == kernel_id.size() + 7 && name[2] == '_' && name.substr(3, kernel_id.size()) == kernel_id &&
        name.ends_with(".cpp"))
      return &f;
  }
  return nullptr;
}

std::string_view source_code_at(const ir::Kernel& k, const ir::SourceLoc& loc) {
  const SourceFile* file = loc.known() ? find_kernel_source(k.source_file(loc)) : nullptr;
  if (!file) return {};
  const auto lines = source_lines(file->text);
  if (loc.line > lines.size()) return {};
  std::string_view code = lines[loc.line - 1];
  code.remove_prefix(std::min(code.find_first_not_of(' '), code.size()));
  return code;
}

std::string describe_source(const ir::Kernel& k, const ir::SourceLoc& loc) {
  return fmt::format("{}:{}  {}", k.source_file(loc), loc.line, source_code_at(k, loc));
}

}  // namespace gs::kernels
