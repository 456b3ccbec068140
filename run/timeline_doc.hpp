// A recorded timeline as a document: what ran (kernel, shape, where: a GPU or the model), the
// instrumentation's overhead, and every warp's decoded events with their roles and source
// lines. Written as JSON (`gemmscope bench --timeline FILE`), read back without a GPU
// (`gemmscope timeline --import FILE`), and written in the Chrome/Perfetto trace format.
//
//   run::TimelineDoc doc = run::timeline_doc(kernel, measured, "gpu");
//   run::write_output_file(path, run::timeline_json(doc).dump(), "--timeline");
//   run::TimelineDoc back = run::timeline_from_json(nlohmann::json::parse(text));  // ConfigError when malformed
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/instrument.hpp"
#include "engine/model/timeline_decode.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// Which CTAs record: the traced one, its whole cluster, or the first wave's first CTA on each SM.
enum class TimelineCtas : uint8_t { traced, cluster, wave };
std::optional<TimelineCtas> parse_timeline_ctas(std::string_view s);  // "cta", "cluster", "wave"

struct TimelineRequest {
  TimelineCtas ctas = TimelineCtas::traced;
  std::array<uint32_t, 3> cta{0, 0, 0};  // the traced CTA
  uint32_t capacity = 8192;              // records per warp
  uint32_t sms = 132;                    // the device's SMs (the first wave, for `wave`)
};

// The pass's options for `kernel` (throws kernels::ConfigError naming the value and what is
// valid: a CTA outside the grid, a cluster the range cannot describe). `wave` records the
// first wave's CTAs 0..sms-1.
ir::TimelineOptions timeline_options(const ir::Kernel& kernel, const TimelineRequest& request);

struct TimelineEvent {
  ir::RecordKind kind = ir::RecordKind::role_enter;
  ir::WarpRole role = ir::WarpRole::none;  // the declared role of the instruction
  uint32_t inst = 0, cta = 0, warp = 0;
  uint64_t cycle = 0;                      // SM cycles since the CTA's first warp started
  double ns = 0.0;                         // ns since the first recorded warp started
  uint32_t line = 0;                       // source line (0 unknown) in `file`
  std::string file;
};

struct TimelineWarp {
  uint32_t cta = 0, warp = 0, smid = 0;
  bool finished = false;
  uint32_t records = 0, kept = 0;
  uint64_t cycles = 0;   // clock64 end - start
  double ns = 0.0;       // globaltimer end - start
};

struct TimelineDoc {
  std::string kernel_id;
  kernels::GemmShape shape;
  std::string source;        // "gpu" or "model"
  std::string device;        // "NVIDIA H100 80GB HBM3", or "model of an H100"
  double clock_ghz = 0.0;    // cycles per ns: measured (median over warps) on a GPU, the machine's on the model
  std::string date;
  ir::TimelineLayout layout;
  std::vector<TimelineWarp> warps;
  std::vector<TimelineEvent> events;  // warp by warp, each in time order
  std::vector<std::string> warnings;
  uint64_t lost = 0;
  // The plain and the instrumented kernel's median time, and whether C came out the same.
  std::optional<double> plain_ms, instrumented_ms;
  std::optional<bool> c_identical;
  std::optional<double> slowdown() const;  // instrumented / plain - 1
};

// The document of a decoded timeline of `kernel` (the plain kernel: its instructions name the
// events' lines and roles).
TimelineDoc timeline_doc(const ir::Kernel& kernel, const model::MeasuredTimeline& measured, std::string source);

nlohmann::json timeline_json(const TimelineDoc& doc);
// Throws kernels::ConfigError naming what is missing or malformed ("timeline JSON: 'events'
// row 3 has 6 values, expected 8").
TimelineDoc timeline_from_json(const nlohmann::json& j);

// The Chrome trace event format (chrome://tracing, ui.perfetto.dev): one process per CTA
// (named with its SM), one thread per warp, waits and roles as spans, the rest as instants.
nlohmann::json chrome_trace_json(const TimelineDoc& doc);

}  // namespace gs::run
