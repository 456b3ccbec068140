#include "engine/ptx/cubin_lines.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace gs::ptx {

namespace {

// Bounds-checked little-endian reads over a byte range: a malformed cubin is an error
// message, never a read past the end.
class ByteReader {
 public:
  ByteReader(std::string_view bytes, std::string_view what) : bytes_(bytes), what_(what) {}

  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ >= bytes_.size(); }
  void seek(size_t pos) {
    if (pos > bytes_.size()) fail("an offset past its end");
    pos_ = pos;
  }
  template <typename T>
  T fixed() {
    if (bytes_.size() - pos_ < sizeof(T)) fail("a value cut off at its end");
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));  // x86-64 and aarch64: little-endian, as ELF says
    pos_ += sizeof(T);
    return v;
  }
  uint64_t uleb() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = fixed<uint8_t>();
      if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t sleb() {
    int64_t v = 0;
    int shift = 0;
    uint8_t b = 0;
    do {
      b = fixed<uint8_t>();
      if (shift < 64) v |= int64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v -= int64_t(1) << shift;
    return v;
  }
  std::string_view cstring() {
    const size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) fail("a name without its terminating NUL");
    const std::string_view s = bytes_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  [[noreturn]] void fail(std::string_view problem) const {
    throw std::runtime_error(fmt::format("{} is malformed: {} (at byte {} of {})", what_, problem, pos_, bytes_.size()));
  }

 private:
  std::string_view bytes_;
  std::string_view what_;
  size_t pos_ = 0;
};

struct Section {
  std::string name;
  uint64_t offset = 0, size = 0;
  uint32_t type = 0;
};

constexpr uint32_t kSectionNoBits = 8;  // SHT_NOBITS: takes no bytes in the file

std::vector<Section> read_sections(std::string_view elf) {
  ByteReader r(elf, "the cubin");
  if (elf.size() < 64 || elf.substr(0, 4) != "\x7f" "ELF") r.fail("no ELF header");
  if (elf[4] != 2 || elf[5] != 1) r.fail("not a 64-bit little-endian ELF file");
  r.seek(0x28);
  const auto shoff = r.fixed<uint64_t>();
  r.seek(0x3a);
  const auto shentsize = r.fixed<uint16_t>(), shnum = r.fixed<uint16_t>(), shstrndx = r.fixed<uint16_t>();
  if (shentsize < 64 || shstrndx >= shnum) r.fail("a bad section header table");
  std::vector<Section> sections(shnum);
  std::vector<uint32_t> name_offsets(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    r.seek(shoff + uint64_t(i) * shentsize);
    name_offsets[i] = r.fixed<uint32_t>();
    sections[i].type = r.fixed<uint32_t>();
    r.fixed<uint64_t>();  // flags
    r.fixed<uint64_t>();  // address
    sections[i].offset = r.fixed<uint64_t>();
    sections[i].size = r.fixed<uint64_t>();
    if (sections[i].type != kSectionNoBits &&
        (sections[i].offset > elf.size() || sections[i].size > elf.size() - sections[i].offset))
      r.fail(fmt::format("section {} lies outside the file", i));
  }
  const Section& names = sections[shstrndx];
  const std::string_view name_bytes = elf.substr(names.offset, names.size);
  for (uint16_t i = 0; i < shnum; ++i) {
    ByteReader nr(name_bytes, "the cubin's section names");
    nr.seek(name_offsets[i]);
    sections[i].name = std::string(nr.cstring());
  }
  return sections;
}

}  // namespace

std::vector<SassLineRow> decode_line_program(std::string_view section) {
  ByteReader r(section, "the line table");
  std::map<uint32_t, uint32_t> rows;  // address -> line; a later row at the same address wins
  while (!r.at_end()) {
    const uint32_t unit_length = r.fixed<uint32_t>();
    if (unit_length == 0xffffffffu) r.fail("64-bit DWARF, which ptxas does not write");
    const size_t unit_end = r.pos() + unit_length;
    if (unit_end > section.size()) r.fail("a unit longer than its section");
    const uint16_t version = r.fixed<uint16_t>();
    if (version < 2 || version > 4) r.fail(fmt::format("DWARF line table version {} (2 to 4 are read)", version));
    const uint32_t header_length = r.fixed<uint32_t>();
    const size_t program_start = r.pos() + header_length;
    const uint8_t min_inst_length = r.fixed<uint8_t>();
    if (version >= 4) r.fixed<uint8_t>();  // maximum operations per instruction (VLIW only)
    r.fixed<uint8_t>();                    // default is_stmt
    const int8_t line_base = r.fixed<int8_t>();
    const uint8_t line_range = r.fixed<uint8_t>();
    const uint8_t opcode_base = r.fixed<uint8_t>();
    if (line_range == 0 || opcode_base == 0) r.fail("a zero line range or opcode base");
    std::vector<uint8_t> arg_counts(opcode_base, 0);
    for (int op = 1; op < opcode_base; ++op) arg_counts[op] = r.fixed<uint8_t>();
    r.seek(program_start);  // the file table is not needed: one PTX file per module

    uint64_t address = 0;
    int64_t line = 1;
    auto emit = [&] {
      if (line > 0 && line <= 0xffffffff && address <= 0xffffffff) rows[uint32_t(address)] = uint32_t(line);
    };
    while (r.pos() < unit_end) {
      const uint8_t op = r.fixed<uint8_t>();
      if (op >= opcode_base) {  // special opcode: advance both, then add a row
        const int adjusted = op - opcode_base;
        address += uint64_t(adjusted / line_range) * min_inst_length;
        line += line_base + adjusted % line_range;
        emit();
        continue;
      }
      switch (op) {
        case 0: {  // extended opcode
          const uint64_t len = r.uleb();
          const size_t end = r.pos() + len;
          if (len == 0 || end > unit_end) r.fail("an extended opcode past its unit");
          const uint8_t sub = r.fixed<uint8_t>();
          if (sub == 1) {  // end_sequence: the address after the last instruction; no row of its own
            address = 0;
            line = 1;
          } else if (sub == 2) {  // set_address (relative to the kernel's .text: relocated against its symbol)
            address = len >= 9 ? r.fixed<uint64_t>() : r.fixed<uint32_t>();
          }
          r.seek(end);
          break;
        }
        case 1: emit(); break;                                          // copy
        case 2: address += r.uleb() * min_inst_length; break;          // advance_pc
        case 3: line += r.sleb(); break;                                // advance_line
        case 8: address += uint64_t((255 - opcode_base) / line_range) * min_inst_length; break;  // const_add_pc
        case 9: address += r.fixed<uint16_t>(); break;                  // fixed_advance_pc
        default:  // set_file, set_column, negate_stmt, ...: skip their arguments
          for (int i = 0; i < arg_counts[op]; ++i) r.uleb();
      }
    }
    r.seek(unit_end);
  }
  std::vector<SassLineRow> out;
  for (const auto& [a, l] : rows) out.push_back({a, l});
  return out;
}

CubinLines read_cubin_lines(std::string_view cubin) {
  const std::vector<Section> sections = read_sections(cubin);
  CubinLines out;
  for (const char* name : {".nv_debug_line_sass", ".debug_line"}) {
    for (const Section& s : sections) {
      if (s.name != name || s.size == 0) continue;
      std::vector<SassLineRow> rows = decode_line_program(cubin.substr(s.offset, s.size));
      if (rows.empty()) continue;  // ptxas writes an empty .debug_line when the PTX has no .loc
      out.line_section = s.name;
      out.rows = std::move(rows);
      break;
    }
    if (!out.rows.empty()) break;
  }
  for (const Section& s : sections)
    if (s.name.rfind(".text.", 0) == 0) out.text_size += s.size;
  return out;
}

uint32_t ptx_line_at(const std::vector<SassLineRow>& rows, uint32_t address) {
  auto it = std::upper_bound(rows.begin(), rows.end(), address,
                             [](uint32_t a, const SassLineRow& row) { return a < row.address; });
  return it == rows.begin() ? 0 : std::prev(it)->line;
}

}  // namespace gs::ptx
