#include "cli/values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"

namespace gs::cli {

namespace {

// Plain decimal digits only: no sign, no spaces, no 0x, no exponent, and no leading zero
// (CLI11's own conversion, which runs after the validators, would read 010 as octal 8).
std::optional<uint64_t> parse_decimal(std::string_view text) {
  if (text.empty() || text.size() > 20 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The value as the user typed it, quoted, cut short.
std::string shown_value(std::string_view text) {
  return fmt::format("'{}'", text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 37)) + "...");
}

// A validator that checks with `check` (which returns an error or "") under the name `kind`.
CLI::Validator validator(std::function<std::string(std::string&)> check, std::string kind) {
  return CLI::Validator(std::move(check), "", std::move(kind));
}

CLI::Validator whole_number_named(uint64_t lo, uint64_t hi, std::string what, std::string hint) {
  return validator(
      [lo, hi, what, hint](std::string& value) -> std::string {
        const std::optional<uint64_t> v = parse_decimal(value);
        if (v && *v >= lo && *v <= hi) return {};
        return fmt::format("{} is not a valid {}: give a whole number from {} to {}{}", shown_value(value), what, lo, hi, hint);
      },
      what);
}

}  // namespace

CLI::Validator dimension_value(char dim) {
  return whole_number_named(1, kernels::kMaxGemmDimension, std::string(1, dim),
                            " (each kernel's own rules, such as multiples of its tile: `gemmscope list`)");
}

CLI::Validator whole_number(uint64_t lo, uint64_t hi, std::string_view what) {
  return whole_number_named(lo, hi, std::string(what), "");
}

CLI::Validator seed_value() {
  return whole_number_named(0, UINT64_MAX, "seed", " (written in decimal)");
}

CLI::Validator seconds_value(double hi) {
  return validator(
      [hi](std::string& value) -> std::string {
        double v = 0.0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (!value.empty() && ec == std::errc() && end == value.data() + value.size() && std::isfinite(v) && v > 0.0 &&
            v <= hi)
          return {};
        return fmt::format("{} is not a number of seconds: give a number above 0 and at most {}", shown_value(value), hi);
      },
      "SECONDS");
}

bool ends_with_suffix(std::string_view path, std::string_view suffix) {
  if (path.size() < suffix.size()) return false;
  const std::string_view tail = path.substr(path.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

CLI::Validator number_in(double lo, double hi, std::string_view what) {
  return validator(
      [lo, hi, what = std::string(what)](std::string& value) -> std::string {
        double v = 0.0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (!value.empty() && ec == std::errc() && end == value.data() + value.size() && std::isfinite(v) && v >= lo &&
            v <= hi)
          return {};
        return fmt::format("{} is not {}: give a number from {:g} to {:g}", shown_value(value), what, lo, hi);
      },
      "NUMBER");
}

CLI::Validator one_of(std::vector<std::string> names, std::string_view what) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return validator(
      [names, what = std::string(what), list](std::string& value) -> std::string {
        for (const std::string& n : names)
          if (value == n) return {};
        return fmt::format("{} is not {}: valid values are {}", shown_value(value), what, list);
      },
      "{" + list + "}");
}

CLI::Validator non_empty(std::string_view what) {
  return validator(
      [what = std::string(what)](std::string& value) -> std::string {
        return value.empty() ? fmt::format("'' is not {}: give one (an empty value never means the default)", what)
                             : std::string();
      },
      "");
}

namespace {

// Each parse_* throws ConfigError; the validator turns that into CLI11's message.
template <typename Parse>
CLI::Validator parsed_by(Parse parse, std::string kind) {
  return validator(
      [parse](std::string& value) -> std::string {
        try {
          parse(value);
          return {};
        } catch (const kernels::ConfigError& e) {
          return e.what();
        }
      },
      std::move(kind));
}

// Whole numbers separated by `sep`, at most `max_count` of them; nullopt when malformed.
std::optional<std::vector<uint64_t>> split_numbers(std::string_view text, char sep, size_t max_count) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (true) {
    const size_t end = std::min(text.find(sep, start), text.size());
    const std::optional<uint64_t> v = parse_decimal(text.substr(start, end - start));
    if (!v || out.size() == max_count) return std::nullopt;
    out.push_back(*v);
    if (end == text.size()) return out;
    start = end + 1;
  }
}

}  // namespace

void add_shape_options(CLI::App* cmd, uint32_t& m, uint32_t& n, uint32_t& k) {
  cmd->add_option("--m", m, "Rows of A and C (default: the kernel's example shape)")->check(dimension_value('M'));
  cmd->add_option("--n", n, "Columns of B and C (default: the kernel's example shape)")->check(dimension_value('N'));
  cmd->add_option("--k", k, "The reduction dimension (default: the kernel's example shape)")->check(dimension_value('K'));
}

namespace {

std::pair<std::string, uint32_t> parse_param(const std::string& text) {
  const size_t eq = text.find('=');
  // Names are lower case; BM=64 is the article's spelling of bm=64.
  std::string name = text.substr(0, eq);
  std::transform(name.begin(), name.end(), name.begin(), [](char c) { return char(std::tolower((unsigned char)c)); });
  const bool name_ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  std::optional<uint64_t> value =
      eq == std::string::npos ? std::nullopt : parse_decimal(std::string_view(text).substr(eq + 1));
  if (!value && eq != std::string::npos)  // a named value: c_dtype=bf16, order=hilbert
    if (const std::optional<uint32_t> named = kernels::named_param_value(name, std::string_view(text).substr(eq + 1)))
      value = *named;
  if (!name_ok || !value || *value > UINT32_MAX)
    throw kernels::ConfigError(fmt::format(
        "{} is not a build parameter: give NAME=VALUE with a whole number, e.g. stages=3, or a named value "
        "({}; `gemmscope list` shows each kernel's parameters and their values)",
        shown_value(text), kernels::named_param_values_text()));
  return {name, uint32_t(*value)};
}

}  // namespace

void add_param_option(CLI::App* cmd, std::vector<std::string>& params) {
  cmd->add_option("--param", params,
                  "Set one of the kernel's build parameters, NAME=VALUE (repeatable; e.g. stages=3; see `gemmscope list`)")
      ->type_name("NAME=VALUE")
      ->check(parsed_by(parse_param, "NAME=VALUE"));
}

std::pair<std::string, std::vector<uint32_t>> parse_param_values(const std::string& text) {
  const size_t eq = text.find('=');
  const auto refuse = [&] {
    return kernels::ConfigError(fmt::format(
        "{} is not a parameter and its values: give NAME=V1,V2,... with whole numbers or named values, e.g. "
        "bm=64,128 or order=row,grouped (`gemmscope list` shows each kernel's parameters and their values)",
        shown_value(text)));
  };
  if (eq == std::string::npos || eq + 1 >= text.size()) throw refuse();
  try {
    parse_param(text.substr(0, eq) + "=0");  // the name alone
  } catch (const kernels::ConfigError&) {
    throw refuse();
  }
  std::pair<std::string, std::vector<uint32_t>> out;
  size_t start = eq + 1;
  while (true) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string value = text.substr(start, end - start);
    try {
      if (value.empty()) throw kernels::ConfigError("empty");
      auto [name, v] = parse_param(text.substr(0, eq) + "=" + value);
      out.first = name;
      out.second.push_back(v);
    } catch (const kernels::ConfigError&) {
      throw kernels::ConfigError(
          fmt::format("{} in --param {} is not a value: give whole numbers or named values separated by commas (e.g. "
                      "bm=64,128 or order=row,grouped)",
                      shown_value(value), shown_value(text)));
    }
    if (end == text.size()) return out;
    start = end + 1;
  }
}

void add_param_values_option(CLI::App* cmd, std::vector<std::string>& params) {
  cmd->add_option("--param", params,
                  "A build parameter to sweep and its values, NAME=V1,V2,... (repeatable: every combination runs; e.g. "
                  "bm=64,128; see `gemmscope list`)")
      ->type_name("NAME=V1,V2,...")
      ->check(param_values_value());
}

kernels::ParamValues parse_params(const std::vector<std::string>& texts) {
  kernels::ParamValues out;
  for (const std::string& t : texts) {
    auto [name, value] = parse_param(t);
    if (!out.emplace(name, value).second)
      throw kernels::ConfigError(fmt::format("--param {} is given twice: give each build parameter once", name));
  }
  return out;
}

CLI::Validator cta_value() { return parsed_by(parse_cta, "X,Y"); }
CLI::Validator param_values_value() { return parsed_by(parse_param_values, "NAME=V1,V2,..."); }
CLI::Validator window_size_value() { return parsed_by(parse_window_size, "WxH"); }
CLI::Validator bench_size_value() { return parsed_by(parse_bench_size, "N|MxNxK|example"); }

std::array<uint32_t, 3> parse_cta(const std::string& text) {
  const auto v = split_numbers(text, ',', 3);
  if (!v || v->size() < 2 || std::any_of(v->begin(), v->end(), [](uint64_t x) { return x > UINT32_MAX; }))
    throw kernels::ConfigError(fmt::format(
        "{} is not a CTA: give X,Y (e.g. 1,0), its x and y in the launch grid as whole numbers from 0", shown_value(text)));
  return {uint32_t((*v)[0]), uint32_t((*v)[1]), v->size() == 3 ? uint32_t((*v)[2]) : 0u};
}

std::pair<int, int> parse_window_size(const std::string& text) {
  const auto v = split_numbers(text, 'x', 2);
  if (!v || v->size() != 2 || (*v)[0] < 320 || (*v)[1] < 240 || (*v)[0] > 8192 || (*v)[1] > 8192)
    throw kernels::ConfigError(fmt::format(
        "{} is not a window size: give WxH in pixels from 320x240 to 8192x8192 (e.g. 1600x1000)", shown_value(text)));
  return {int((*v)[0]), int((*v)[1])};
}

kernels::GemmShape parse_bench_size(const std::string& text) {
  if (text == "example") return {0, 0, 0};
  std::optional<std::vector<uint64_t>> v = split_numbers(text, 'x', 3);
  if (!v) v = split_numbers(text, 'X', 3);
  const bool in_range = v && std::all_of(v->begin(), v->end(), [](uint64_t d) {
    return d >= 1 && d <= kernels::kMaxGemmDimension;
  });
  if (!in_range || v->size() == 2)
    throw kernels::ConfigError(fmt::format(
        "{} is not a problem size: give N (a square N×N×N problem), MxNxK or example, each dimension from 1 to {}, "
        "several separated by commas (e.g. 4096,8192 or 256x128x64)",
        shown_value(text), kernels::kMaxGemmDimension));
  if (v->size() == 1) return {uint32_t((*v)[0]), uint32_t((*v)[0]), uint32_t((*v)[0])};
  return {uint32_t((*v)[0]), uint32_t((*v)[1]), uint32_t((*v)[2])};
}

void add_mistake_option(CLI::App* cmd, std::vector<std::string>& mistakes, const std::string& names) {
  cmd->add_option(names, mistakes,
                  "Switch on one of the kernel's deliberate mistakes (repeatable; see `gemmscope list --json`)")
      ->delimiter(',')
      ->type_name("MISTAKE")
      ->check(non_empty("a mistake name"));
}

}  // namespace gs::cli

namespace gs::cli {

const model::timing::Machine* machine_key(const std::string& key) {
  const model::timing::Machine* m = model::timing::machine_by_key(key);
  if (!m)
    throw kernels::ConfigError(
        fmt::format("--machine '{}' is not a card the model knows; valid: {}", key, model::timing::machine_keys()));
  return m;
}

const model::timing::Machine* machine_option(const std::string& key, const std::string& kernel_id) {
  const model::timing::Machine* m = machine_key(key);
  const kernels::KernelInfo& info = kernels::kernel_or_throw(kernel_id);
  if (!model::timing::machine_runs(*m, info.arch))
    throw kernels::ConfigError(fmt::format("--machine {}: {} is built for {}, which does not run on {}; valid: {}", key,
                                           kernel_id, ir::arch_name(info.arch), m->name,
                                           model::timing::machine_keys_for(info.arch)));
  return m;
}

}  // namespace gs::cli
