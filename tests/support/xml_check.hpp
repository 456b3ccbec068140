// Test helper: a strict little XML reader for the SVG pictures (gui/core/svg_picture.hpp). It
// accepts only well-formed XML of the kind a writer of pictures produces (a declaration,
// elements, attributes in double or single quotes, text, the five named entities and numeric
// character references; no DTD, comments or CDATA) and throws std::runtime_error naming the
// byte offset of the first thing that is not. What it returns is every element in document
// order, with its attributes and its own text, so tests can look for labels and colours.
#pragma once

#include <cctype>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gs::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // the element's own character data, entities decoded
  int depth = 0;
  std::string attr(const std::string& key) const {
    const auto it = attrs.find(key);
    return it == attrs.end() ? "" : it->second;
  }
};

class XmlReader {
 public:
  explicit XmlReader(std::string_view doc) : s_(doc) {}

  std::vector<XmlElement> read() {
    skip_space();
    if (s_.substr(i_, 5) == "<?xml") {
      const size_t end = s_.find("?>", i_);
      if (end == std::string_view::npos) fail("unterminated XML declaration");
      i_ = end + 2;
    }
    skip_space();
    if (i_ >= s_.size() || s_[i_] != '<') fail("no root element");
    element(0);
    skip_space();
    if (i_ != s_.size()) fail("content after the root element");
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("not well-formed XML at byte " + std::to_string(i_) + ": " + what);
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.';
  }
  std::string name() {
    const size_t start = i_;
    if (i_ >= s_.size() || !(std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) fail("expected a name");
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    return std::string(s_.substr(start, i_ - start));
  }
  // Character data up to `stop`, with entities decoded; a raw '<' or '&' that starts no entity fails.
  std::string chars(char stop) {
    std::string t;
    while (i_ < s_.size() && s_[i_] != stop) {
      if (s_[i_] == '<') fail("'<' inside text or an attribute");
      if (s_[i_] != '&') {
        t += s_[i_++];
        continue;
      }
      const size_t semi = s_.find(';', i_);
      if (semi == std::string_view::npos || semi - i_ > 8) fail("'&' that starts no entity");
      const std::string_view e = s_.substr(i_ + 1, semi - i_ - 1);
      if (e == "amp") t += '&';
      else if (e == "lt") t += '<';
      else if (e == "gt") t += '>';
      else if (e == "quot") t += '"';
      else if (e == "apos") t += '\'';
      else if (e.size() > 1 && e[0] == '#') t += '?';  // numeric reference: well-formed enough here
      else fail("unknown entity &" + std::string(e) + ";");
      i_ = semi + 1;
    }
    return t;
  }
  void element(int depth) {
    ++i_;  // '<'
    const size_t index = out_.size();
    out_.push_back({name(), {}, {}, depth});
    for (;;) {
      const size_t before = i_;
      skip_space();
      if (i_ >= s_.size()) fail("unterminated start tag <" + out_[index].name);
      if (s_.substr(i_, 2) == "/>") {
        i_ += 2;
        return;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      if (i_ == before) fail("attributes must be separated by space");
      const std::string key = name();
      if (i_ >= s_.size() || s_[i_] != '=') fail("attribute " + key + " without '='");
      ++i_;
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) fail("attribute " + key + " is not quoted");
      const char q = s_[i_++];
      std::string value = chars(q);
      if (i_ >= s_.size()) fail("unterminated attribute " + key);
      ++i_;
      if (!out_[index].attrs.emplace(key, std::move(value)).second) fail("attribute " + key + " given twice");
    }
    for (;;) {
      out_[index].text += chars('<');
      if (i_ >= s_.size()) fail("element <" + out_[index].name + "> is not closed");
      if (s_.substr(i_, 2) == "</") {
        i_ += 2;
        const std::string end = name();
        if (end != out_[index].name) fail("</" + end + "> closes <" + out_[index].name + ">");
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '>') fail("unterminated end tag");
        ++i_;
        return;
      }
      element(depth + 1);
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::vector<XmlElement> out_;
};

// The elements of a well-formed document; throws std::runtime_error otherwise.
inline std::vector<XmlElement> parse_xml(std::string_view doc) { return XmlReader(doc).read(); }

}  // namespace gs::test
