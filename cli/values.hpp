// The kinds of value the command line takes, each checked in one place: a CLI11 validator per
// kind that rejects anything outside the kind's range with a message naming the value and
// what would be valid (exit 2), so that no flag quietly falls back to a default. CLI11 runs
// validators on the text before converting it; the number validators take plain decimal only
// (no sign, no leading zero), so CLI11's own conversion (which reads "010" as octal 8) can
// only see one meaning.
//
//   cmd->add_option("--m", o->m, "Rows of A and C")->check(dimension_value('M'));
//   // gemmscope sim simt_naive --m 0  ->  "--m: '0' is not a valid M: give a whole number
//   //                                      from 1 to 65536 (...)", exit 2
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/model/timing.hpp"
#include "kernels/registry.hpp"

namespace gs::cli {

// M, N or K: 1 to kernels::kMaxGemmDimension (each kernel's own rules are checked later).
CLI::Validator dimension_value(char dim);
// A whole number in [lo, hi], e.g. --frames 1..100000. `what` names it in messages.
CLI::Validator whole_number(uint64_t lo, uint64_t hi, std::string_view what);
// A seed: any whole number from 0 to 2^64 - 1, written in decimal.
CLI::Validator seed_value();
// Seconds: a finite number above 0 and at most `hi`.
CLI::Validator seconds_value(double hi);
// A finite number in [lo, hi], e.g. --scale 0.25..8. `what` names it in messages.
CLI::Validator number_in(double lo, double hi, std::string_view what);
// One of `names` (case-sensitive).
CLI::Validator one_of(std::vector<std::string> names, std::string_view what);
// A path or a name: not empty (an empty value is a mistake, never "the default").
CLI::Validator non_empty(std::string_view what);
// --cta X,Y (or X,Y,Z) and --size WxH, as below.
CLI::Validator cta_value();
CLI::Validator window_size_value();
// bench --sizes: N, MxNxK or example.
CLI::Validator bench_size_value();

// --m, --n and --k, each checked by dimension_value. Left out, one stays 0: the kernel's example
// shape for that dimension.
void add_shape_options(CLI::App* cmd, uint32_t& m, uint32_t& n, uint32_t& k);

// --param NAME=VALUE (repeatable): a kernel's build parameter, e.g. --param stages=3. The
// syntax is checked here; the kernel checks the name and the value (kernels::resolve_params).
void add_param_option(CLI::App* cmd, std::vector<std::string>& params);
// "stages=3" -> {"stages", 3}; throws kernels::ConfigError naming the text, or a name given twice.
kernels::ParamValues parse_params(const std::vector<std::string>& texts);
// `sweep`'s --param NAME=V1,V2,...: "bm=64,128" -> {"bm", {64, 128}}, each value as parse_params
// reads one (a whole number or a named value: order=row,hilbert); throws kernels::ConfigError
// naming the text. Whether the kernel takes them is the sweep's check (run::check_sweep).
std::pair<std::string, std::vector<uint32_t>> parse_param_values(const std::string& text);
// NAME=V1,V2,...: checked by parse_param_values (--param of sweep, --sweep-param of gui).
CLI::Validator param_values_value();
// --param NAME=V1,V2,... (repeatable), its syntax checked by parse_param_values.
void add_param_values_option(CLI::App* cmd, std::vector<std::string>& params);
// The kernel's deliberate mistakes to switch on, repeatable and comma-separated, under the
// option names `names` ("--break", or "--mistake,--break"); each name is checked by the
// registry when the kernel is built (an unknown one exits 2 naming the valid ones).
void add_mistake_option(CLI::App* cmd, std::vector<std::string>& mistakes, const std::string& names = "--break");

// Whether the file name `path` ends in `suffix` (".png"), ignoring case: a format chosen by name.
bool ends_with_suffix(std::string_view path, std::string_view suffix);

// "X,Y" or "X,Y,Z" of whole numbers; throws kernels::ConfigError naming the text.
std::array<uint32_t, 3> parse_cta(const std::string& text);
// "WxH" with 320 <= W <= 8192 and 240 <= H <= 8192; throws kernels::ConfigError.
std::pair<int, int> parse_window_size(const std::string& text);
// "4096" -> 4096³, "256x128x64" -> M=256, N=128, K=64, "example" -> {0,0,0} (each kernel's
// example shape); throws kernels::ConfigError.
kernels::GemmShape parse_bench_size(const std::string& text);
// --machine CARD: the card of that key (model::timing::machine_by_key); throws
// kernels::ConfigError naming the value and the valid keys.
const model::timing::Machine* machine_key(const std::string& key);
// --machine CARD for kernel `kernel_id`: the card of that key (machine_key);
// throws kernels::ConfigError naming the value and the valid keys, or the cards that run the
// kernel's target when this one cannot (b200 for sm_100a, h100 or h200 for sm_80 and sm_90a).
const model::timing::Machine* machine_option(const std::string& key, const std::string& kernel_id);

}  // namespace gs::cli
