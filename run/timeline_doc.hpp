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
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/ir/instrument.hpp"
#include "engine/model/timeline_decode.hpp"
#include "kernels/registry.hpp"

namespace gs::run {

// Which CTAs record: the traced one, its whole cluster, the first wave's first CTA on each SM,
// or every CTA of the grid (with capacity 0, each warp's start and end only: where and when
// every CTA of a whole launch ran).
enum class TimelineCtas : uint8_t { traced, cluster, wave, all };
std::optional<TimelineCtas> parse_timeline_ctas(std::string_view s);  // "cta", "cluster", "wave", "all"

// The most a recording's buffer may take on the card (and then in host memory, decoded).
inline constexpr uint64_t kTimelineMaxBufferBytes = uint64_t(2) << 30;

struct TimelineRequest {
  TimelineCtas ctas = TimelineCtas::traced;
  std::array<uint32_t, 3> cta{0, 0, 0};  // the traced CTA
  uint32_t capacity = 8192;              // records per warp
  uint32_t sms = 132;                    // the device's SMs (the first wave, for `wave`)
};

// The pass's options for `kernel` (throws kernels::ConfigError naming the value and what is
// valid: a CTA outside the grid, a cluster the range cannot describe, a buffer over
// kTimelineMaxBufferBytes). `wave` records the first wave's CTAs 0..sms-1, `all` every CTA.
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
  double start_ns = 0.0;  // globaltimer start, counted from where the events' ns are (MeasuredTimeline::first_ns)
};

// Passes of a loop the model skipped in one warp (fast-forward, engine/model/fast_forward.hpp):
// the warp's clock jumped from `cycle` (SM cycles since its CTA's first warp started, as an
// event's) on by `cycles`, the time of passes first..first+count-1 of `passes`. Model documents
// of a CTA run alone only.
struct TimelineSkip {
  uint32_t cta = 0, warp = 0;
  bool k_loop = false;  // a loop over K (its passes are K iterations); else e.g. a loop over tiles
  uint32_t first = 0, count = 0, passes = 0;
  uint64_t cycle = 0, cycles = 0;
};

struct TimelineDoc {
  std::string kernel_id;
  kernels::GemmShape shape;
  // How the kernel was built: every parameter it declares and the mistakes switched on.
  // build_known false: a file written before they were stored; its kernel's defaults are assumed.
  bool build_known = false;
  kernels::ParamValues params;
  std::set<std::string> mistakes;
  std::string source;        // "gpu" or "model"
  std::string device;        // "NVIDIA H100 80GB HBM3", or "model of an H100"
  double clock_ghz = 0.0;    // cycles per ns: measured (median over warps) on a GPU, a machine's on the model
  std::string clock;         // which clock clock_ghz is, in words ("" in files written before it was stored)
  std::string date;
  ir::TimelineLayout layout;
  std::vector<TimelineWarp> warps;
  std::vector<TimelineEvent> events;  // warp by warp, each in time order
  std::vector<TimelineSkip> skips;    // the model's skipped passes, in order (none on a GPU)
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

// "stages=3, mistake phase-not-flipped", "the kernel's defaults (not recorded)" for a file
// written before the build was stored, "" for a kernel without parameters or mistakes.
std::string build_text(const TimelineDoc& doc);

// The clock the model's cycles become time at: the sustained SM clock (machines.hpp,
// clock_sustained_mhz) of the card `device` names ("NVIDIA H100 80GB HBM3"), else of the
// machine a kernel built for `target` runs on (timing::machine_for). `named` says which.
struct ModelClock {
  std::string machine;  // "H100 SXM"
  double ghz = 0.0;
  bool named = false;   // false: `device` names no machine the model describes
  std::string text;     // "the H100 SXM's sustained SM clock, 1980 MHz (engine/model/machines.hpp)"
};
ModelClock model_clock(std::string_view device, ir::Arch target);

nlohmann::json timeline_json(const TimelineDoc& doc);
// Throws kernels::ConfigError naming what is missing or malformed ("timeline JSON: 'events'
// row 3 has 6 values, expected 8").
TimelineDoc timeline_from_json(const nlohmann::json& j);

// The Chrome trace event format (chrome://tracing, ui.perfetto.dev): one process per CTA
// (named with its SM), one thread per warp, waits and roles as spans, the rest as instants.
nlohmann::json chrome_trace_json(const TimelineDoc& doc);

}  // namespace gs::run
