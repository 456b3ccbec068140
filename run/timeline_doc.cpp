#include "run/timeline_doc.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "engine/model/machine_ceilings.hpp"

namespace gs::run {

namespace {

using nlohmann::json;

constexpr const char* kColumns[] = {"kind", "inst", "cta", "warp", "cycle", "ns", "line", "file", "role"};
constexpr size_t kColumnCount = std::size(kColumns);

[[noreturn]] void malformed(const std::string& what) { throw kernels::ConfigError("timeline JSON: " + what); }

std::optional<ir::RecordKind> find_record_kind(std::string_view name) {
  for (uint32_t k = 0; k < uint32_t(ir::RecordKind::count_); ++k)
    if (ir::record_kind_name(ir::RecordKind(k)) == name) return ir::RecordKind(k);
  return std::nullopt;
}

std::optional<ir::WarpRole> find_role(std::string_view name) {
  for (ir::WarpRole r : {ir::WarpRole::none, ir::WarpRole::simt, ir::WarpRole::producer, ir::WarpRole::consumer,
                         ir::WarpRole::mma_issuer, ir::WarpRole::epilogue})
    if (ir::warp_role_name(r) == name) return r;
  return std::nullopt;
}

template <class T>
T field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) malformed(fmt::format("{} has no '{}'", where, key));
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    malformed(fmt::format("'{}' of {} is {}, not the expected type", key, where, j.at(key).dump()));
  }
}

json skip_json(const TimelineSkip& k) {
  return {{"cta", k.cta},     {"warp", k.warp},   {"k_loop", k.k_loop}, {"first", k.first},
          {"count", k.count}, {"passes", k.passes}, {"cycle", k.cycle},  {"cycles", k.cycles}};
}

TimelineSkip skip_from_json(const json& j, size_t i) {
  const std::string where = fmt::format("'fast_forwards' row {}", i);
  if (!j.is_object()) malformed(fmt::format("{} is {}, not an object", where, j.dump()));
  TimelineSkip k{field<uint32_t>(j, "cta", where),    field<uint32_t>(j, "warp", where),
                 field<bool>(j, "k_loop", where),     field<uint32_t>(j, "first", where),
                 field<uint32_t>(j, "count", where),  field<uint32_t>(j, "passes", where),
                 field<uint64_t>(j, "cycle", where),  field<uint64_t>(j, "cycles", where)};
  if (uint64_t(k.first) + k.count > k.passes)
    malformed(fmt::format("{} skips passes {}..{} of {}", where, k.first, uint64_t(k.first) + k.count - 1, k.passes));
  return k;
}

// The build: "params" (every declared parameter) and "mistakes"; both absent in older files.
void read_build(const json& j, TimelineDoc& d) {
  if (!j.contains("params") && !j.contains("mistakes")) return;
  d.build_known = true;
  const json params = j.value("params", json::object());
  if (!params.is_object()) malformed(fmt::format("'params' is {}, expected an object of NAME: value", params.dump()));
  for (const auto& [name, value] : params.items()) {
    if (!value.is_number_unsigned() || value.get<uint64_t>() > UINT32_MAX)
      malformed(fmt::format("'params' value of '{}' is {}, expected a whole number", name, value.dump()));
    d.params[name] = value.get<uint32_t>();
  }
  const json mistakes = j.value("mistakes", json::array());
  if (!mistakes.is_array()) malformed(fmt::format("'mistakes' is {}, expected an array of names", mistakes.dump()));
  for (const json& m : mistakes) {
    if (!m.is_string()) malformed(fmt::format("'mistakes' holds {}, expected a mistake's name", m.dump()));
    d.mistakes.insert(m.get<std::string>());
  }
}

}  // namespace

std::string build_text(const TimelineDoc& d) {
  if (!d.build_known) return "the kernel's defaults (the recording does not name its build)";
  std::string s = kernels::params_text(d.params);
  for (const std::string& m : d.mistakes) s += fmt::format("{}mistake {}", s.empty() ? "" : ", ", m);
  return s;
}

ModelClock model_clock(std::string_view device, ir::Arch target) {
  const model::timing::Machine* m = model::timing::machine_named_in(device);
  ModelClock c;
  c.named = m != nullptr;
  if (!m) m = &model::timing::machine_for(target);
  c.machine = m->desc->name;
  const double mhz = m->desc->clock_sustained_mhz.value;
  c.ghz = mhz / 1000.0;
  const std::string whose = c.named         ? fmt::format(", the card '{}' names", device)
                            : device.empty() ? std::string(", the machine the kernel runs on")
                                             : fmt::format(": '{}' names no machine the model describes, so the "
                                                           "kernel's",
                                                           device);
  c.text = fmt::format("the {}'s sustained SM clock, {:.0f} MHz (engine/model/machines.hpp){}", c.machine, mhz, whose);
  return c;
}

std::optional<TimelineCtas> parse_timeline_ctas(std::string_view s) {
  if (s == "cta") return TimelineCtas::traced;
  if (s == "cluster") return TimelineCtas::cluster;
  if (s == "wave") return TimelineCtas::wave;
  if (s == "all") return TimelineCtas::all;
  return std::nullopt;
}

ir::TimelineOptions timeline_options(const ir::Kernel& k, const TimelineRequest& req) {
  const ir::LaunchShape& L = k.launch;
  for (int d = 0; d < 3; ++d)
    if (req.cta[d] >= L.grid[d])
      throw kernels::ConfigError(fmt::format("CTA ({},{},{}) is outside the grid ({},{},{})", req.cta[0], req.cta[1],
                                             req.cta[2], L.grid[0], L.grid[1], L.grid[2]));
  const uint32_t linear = req.cta[0] + L.grid[0] * (req.cta[1] + L.grid[1] * req.cta[2]);
  ir::TimelineOptions o;
  o.capacity = req.capacity;
  switch (req.ctas) {
    case TimelineCtas::traced: o.first_cta = linear; o.ctas = 1; break;
    case TimelineCtas::cluster:
      // A range of linear ids holds a cluster only when the cluster lies along x.
      if (L.cluster[1] != 1 || L.cluster[2] != 1)
        throw kernels::ConfigError(fmt::format("--timeline-ctas cluster records clusters along x only; this kernel's "
                                               "clusters are {}x{}x{}: use cta or wave",
                                               L.cluster[0], L.cluster[1], L.cluster[2]));
      o.first_cta = linear - req.cta[0] % L.cluster[0];
      o.ctas = L.cluster[0];
      break;
    case TimelineCtas::wave:
      o.first_cta = 0;
      o.ctas = uint32_t(std::min<uint64_t>(L.ctas(), std::max(req.sms, 1u)));
      break;
    case TimelineCtas::all:
      if (L.ctas() > uint64_t(UINT32_MAX))
        throw kernels::ConfigError(
            fmt::format("--ctas all: the grid has {} CTAs, more than a timeline numbers", L.ctas()));
      o.first_cta = 0;
      o.ctas = uint32_t(L.ctas());
      break;
  }
  const ir::TimelineLayout layout{o.first_cta, o.ctas, o.capacity, (L.threads() + 31) / 32};
  if (layout.buffer_bytes() > kTimelineMaxBufferBytes)
    throw kernels::ConfigError(fmt::format(
        "a timeline of {} CTA(s) x {} warps x {} records a warp needs {:.2f} GiB, more than the {} GiB allowed: "
        "record fewer records a warp (--capacity N; 0 keeps each warp's start and end only) or fewer CTAs",
        o.ctas, layout.warps_per_cta, o.capacity, double(layout.buffer_bytes()) / double(1ull << 30),
        kTimelineMaxBufferBytes >> 30));
  return o;
}

std::optional<double> TimelineDoc::slowdown() const {
  if (!plain_ms || !instrumented_ms || !(*plain_ms > 0)) return std::nullopt;
  return *instrumented_ms / *plain_ms - 1.0;
}

TimelineDoc timeline_doc(const ir::Kernel& k, const model::MeasuredTimeline& m, std::string source) {
  TimelineDoc d;
  d.source = std::move(source);
  d.layout = m.layout;
  d.warnings = m.warnings;
  d.lost = m.lost;
  std::vector<double> ghz;
  for (const model::MeasuredWarp& w : m.warps) {
    // start_ns counts from where the events' ns do (a warp may start a few ns before its CTA's
    // first one by %globaltimer, which is coarse: signed).
    d.warps.push_back({w.cta, w.warp, w.smid, w.finished, w.attempted, w.kept, w.clock_end - w.clock_start,
                       double(w.globaltimer_end - w.globaltimer_start),
                       w.finished ? double(w.globaltimer_start) - double(m.first_ns) : 0.0});
    if (w.finished && w.clock_ghz() > 0) ghz.push_back(w.clock_ghz());
  }
  if (!ghz.empty()) {
    std::nth_element(ghz.begin(), ghz.begin() + long(ghz.size() / 2), ghz.end());
    d.clock_ghz = ghz[ghz.size() / 2];
    d.clock = "measured: the median over the recorded warps of each one's %clock64 over its %globaltimer";
  }
  // An event's role is the one its warp last entered (code outside every region keeps it).
  std::map<std::pair<uint32_t, uint32_t>, ir::WarpRole> current;
  for (const model::MeasuredEvent& e : m.events) {
    ir::WarpRole& role = current[{e.cta, e.warp}];
    if (e.record == ir::RecordKind::role_enter) role = k.role_at(e.inst);
    d.events.push_back({e.record, role, e.inst, e.cta, e.warp, e.cycle, e.ns, e.src.line,
                        std::string(k.source_file(e.src))});
  }
  return d;
}

json timeline_json(const TimelineDoc& d) {
  std::vector<std::string> files;
  std::map<std::string, size_t> file_index;
  json rows = json::array();
  for (const TimelineEvent& e : d.events) {
    auto [it, added] = file_index.emplace(e.file, files.size());
    if (added) files.push_back(e.file);
    rows.push_back({std::string(ir::record_kind_name(e.kind)), e.inst, e.cta, e.warp, e.cycle, e.ns, e.line, it->second,
                    std::string(ir::warp_role_name(e.role))});
  }
  json warps = json::array();
  for (const TimelineWarp& w : d.warps)
    warps.push_back({{"cta", w.cta}, {"warp", w.warp}, {"smid", w.smid}, {"finished", w.finished},
                     {"records", w.records}, {"kept", w.kept}, {"cycles", w.cycles}, {"ns", w.ns},
                     {"start_ns", w.start_ns}});
  const auto opt = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json skips = json::array();
  for (const TimelineSkip& k : d.skips) skips.push_back(skip_json(k));
  json doc = {{"format", "gemmscope-timeline-1"},
             {"kernel", d.kernel_id},
             {"shape", {{"m", d.shape.m}, {"n", d.shape.n}, {"k", d.shape.k}}},
             {"source", d.source},
             {"device", d.device},
             {"clock_ghz", d.clock_ghz},
             {"clock", d.clock},
             {"date", d.date},
             {"layout", {{"first_cta", d.layout.first_cta}, {"ctas", d.layout.ctas}, {"capacity", d.layout.capacity},
                         {"warps_per_cta", d.layout.warps_per_cta}}},
             {"overhead", {{"plain_ms", opt(d.plain_ms)}, {"instrumented_ms", opt(d.instrumented_ms)},
                           {"slowdown", opt(d.slowdown())}, {"c_identical", opt(d.c_identical)}}},
             {"warnings", d.warnings},
             {"lost_records", d.lost},
             {"warps", warps},
             {"files", files},
             {"columns", std::vector<std::string>(std::begin(kColumns), std::end(kColumns))},
             {"events", rows},
             {"fast_forwards", skips}};
  if (d.build_known) {
    doc["params"] = d.params;
    doc["mistakes"] = d.mistakes;
  }
  return doc;
}

TimelineDoc timeline_from_json(const json& j) {
  if (!j.is_object()) malformed("the document is not a JSON object");
  if (j.value("format", std::string()) != "gemmscope-timeline-1")
    malformed(fmt::format("'format' is {}, expected \"gemmscope-timeline-1\" (written by gemmscope bench --timeline)",
                          j.contains("format") ? j["format"].dump() : "missing"));
  TimelineDoc d;
  d.kernel_id = field<std::string>(j, "kernel", "the document");
  const json shape = field<json>(j, "shape", "the document");
  d.shape = {field<uint32_t>(shape, "m", "'shape'"), field<uint32_t>(shape, "n", "'shape'"),
             field<uint32_t>(shape, "k", "'shape'")};
  d.source = field<std::string>(j, "source", "the document");
  d.device = j.value("device", std::string());
  d.clock_ghz = j.value("clock_ghz", 0.0);
  d.clock = j.value("clock", std::string());
  d.date = j.value("date", std::string());
  read_build(j, d);
  const json layout = field<json>(j, "layout", "the document");
  d.layout = {field<uint32_t>(layout, "first_cta", "'layout'"), field<uint32_t>(layout, "ctas", "'layout'"),
              field<uint32_t>(layout, "capacity", "'layout'"), field<uint32_t>(layout, "warps_per_cta", "'layout'")};
  if (j.contains("overhead") && j["overhead"].is_object()) {
    const json& o = j["overhead"];
    if (o.value("plain_ms", json()).is_number()) d.plain_ms = o["plain_ms"].get<double>();
    if (o.value("instrumented_ms", json()).is_number()) d.instrumented_ms = o["instrumented_ms"].get<double>();
    if (o.value("c_identical", json()).is_boolean()) d.c_identical = o["c_identical"].get<bool>();
  }
  d.warnings = j.value("warnings", std::vector<std::string>{});
  d.lost = j.value("lost_records", uint64_t{0});
  for (const json& w : field<json>(j, "warps", "the document"))
    d.warps.push_back({field<uint32_t>(w, "cta", "a warp"), field<uint32_t>(w, "warp", "a warp"),
                       w.value("smid", 0u), w.value("finished", false), w.value("records", 0u), w.value("kept", 0u),
                       w.value("cycles", uint64_t{0}), w.value("ns", 0.0), w.value("start_ns", 0.0)});
  const std::vector<std::string> files = field<std::vector<std::string>>(j, "files", "the document");
  const json rows = field<json>(j, "events", "the document");
  if (!rows.is_array()) malformed("'events' is not an array");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    if (!r.is_array() || r.size() != kColumnCount)
      malformed(fmt::format("'events' row {} has {} values, expected {}", i, r.is_array() ? r.size() : 0, kColumnCount));
    try {
      TimelineEvent e;
      const std::optional<ir::RecordKind> kind = find_record_kind(r[0].get<std::string>());
      const std::optional<ir::WarpRole> role = find_role(r[8].get<std::string>());
      if (!kind) malformed(fmt::format("'events' row {} has the unknown kind {}", i, r[0].dump()));
      if (!role) malformed(fmt::format("'events' row {} has the unknown role {}", i, r[8].dump()));
      const size_t file = r[7].get<size_t>();
      if (file >= files.size()) malformed(fmt::format("'events' row {} names file {} of {}", i, file, files.size()));
      e.kind = *kind;
      e.role = *role;
      e.inst = r[1].get<uint32_t>();
      e.cta = r[2].get<uint32_t>();
      e.warp = r[3].get<uint32_t>();
      e.cycle = r[4].get<uint64_t>();
      e.ns = r[5].get<double>();
      e.line = r[6].get<uint32_t>();
      e.file = files[file];
      d.events.push_back(std::move(e));
    } catch (const json::exception&) {
      malformed(fmt::format("'events' row {} is {}: expected {}", i, r.dump(), json(std::vector<std::string>(std::begin(kColumns), std::end(kColumns))).dump()));
    }
  }
  if (j.contains("fast_forwards")) {
    const json& skips = j["fast_forwards"];
    if (!skips.is_array()) malformed("'fast_forwards' is not an array");
    for (size_t i = 0; i < skips.size(); ++i) d.skips.push_back(skip_from_json(skips[i], i));
  }
  return d;
}

json chrome_trace_json(const TimelineDoc& d) {
  json events = json::array();
  std::map<uint32_t, uint32_t> sm_of;
  for (const TimelineWarp& w : d.warps) {
    sm_of[w.cta] = w.smid;
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", w.cta}, {"tid", w.warp},
                      {"args", {{"name", fmt::format("warp {}", w.warp)}}}});
  }
  for (const auto& [cta, sm] : sm_of)
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", cta},
                      {"args", {{"name", fmt::format("CTA {} (SM {})", cta, sm)}}}});
  const auto where = [](const TimelineEvent& e) { return fmt::format("{}:{}", e.file, e.line); };
  // Open spans per warp: role and waits; a wait's begin is closed by the next end of its kind.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const TimelineEvent*>> open;
  const auto close = [&](const TimelineEvent& begin, double end_ns, const std::string& name) {
    events.push_back({{"ph", "X"}, {"name", name}, {"pid", begin.cta}, {"tid", begin.warp}, {"ts", begin.ns / 1000.0},
                      {"dur", std::max(0.0, end_ns - begin.ns) / 1000.0},
                      {"args", {{"line", where(begin)}, {"cycles_from_cta_start", begin.cycle}}}});
  };
  std::map<std::pair<uint32_t, uint32_t>, const TimelineEvent*> role_open;
  std::map<std::pair<uint32_t, uint32_t>, double> last_ns;
  for (const TimelineEvent& e : d.events) {
    const std::pair<uint32_t, uint32_t> key{e.cta, e.warp};
    last_ns[key] = e.ns;
    const std::string_view kind = ir::record_kind_name(e.kind);
    switch (e.kind) {
      case ir::RecordKind::role_enter:
        if (const TimelineEvent* r = role_open[key]) close(*r, e.ns, std::string(ir::warp_role_name(r->role)));
        role_open[key] = &e;
        break;
      case ir::RecordKind::mbar_wait_begin:
      case ir::RecordKind::mma_wait_begin:
      case ir::RecordKind::bar_begin:
      case ir::RecordKind::cp_async_wait_begin: open[key].push_back(&e); break;
      case ir::RecordKind::mbar_wait_end:
      case ir::RecordKind::mma_wait_end:
      case ir::RecordKind::bar_end:
      case ir::RecordKind::cp_async_wait_end: {
        auto& stack = open[key];
        if (!stack.empty()) {
          const std::string name(kind.substr(0, kind.size() - 4));  // "mbar_wait_end" -> "mbar_wait"
          close(*stack.back(), e.ns, name);
          stack.pop_back();
        }
        break;
      }
      default:
        events.push_back({{"ph", "i"}, {"s", "t"}, {"name", std::string(kind)}, {"pid", e.cta}, {"tid", e.warp},
                          {"ts", e.ns / 1000.0}, {"args", {{"line", where(e)}, {"cycles_from_cta_start", e.cycle}}}});
    }
  }
  for (const auto& [key, r] : role_open)
    if (r) close(*r, last_ns[key], std::string(ir::warp_role_name(r->role)));
  return {{"traceEvents", events},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"kernel", d.kernel_id}, {"source", d.source}, {"device", d.device}}}};
}

}  // namespace gs::run
