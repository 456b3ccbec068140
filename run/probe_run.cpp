// The probes: their inputs, the checks of their outputs, and running them (GPU 0 in a child per
// case, the model in this process). The expected values are read from the tables the model
// uses (the op traits' fragment maps, layout::swizzle_address), so a probe that passes on the
// GPU proves the very table the model, the views and the tests read.
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "engine/layout/op_traits.hpp"
#include "run/gpu_launch.hpp"
#include "run/probe_desc.hpp"
#include "run/probe_matrix.hpp"
#include "run/probe_run.hpp"

namespace gs::run {

namespace {

constexpr uint32_t kTmaRows = 64;
constexpr uint32_t kWgmmaThreads = 128;

uint16_t u16_at(const std::vector<uint8_t>& bytes, size_t offset) {
  uint16_t v = 0xFFFF;
  if (offset + 2 <= bytes.size()) std::memcpy(&v, bytes.data() + offset, 2);
  return v;
}
uint32_t u32_at(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t v = 0xFFFFFFFFu;
  if (offset + 4 <= bytes.size()) std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}
float f32_at(const std::vector<uint8_t>& bytes, size_t offset) {
  float v = std::nanf("");
  if (offset + 4 <= bytes.size()) std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}

uint16_t bf16_of_small_integer(float f) {  // exact for |f| <= 256
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t(bits >> 16);
}

// facts §3, as the model places a TMA box: layout::swizzle_address on a 1024-aligned tile.
uint32_t tma_formula_address(layout::Swizzle sw, uint32_t logical) { return layout::swizzle_address(sw, logical); }

// An op traits map (op_traits.def) at its parameter: what the probes expect.
const layout::FragmentMap& traits_map(std::string_view id, int param) {
  static std::vector<std::pair<std::pair<std::string, int>, layout::FragmentMap>> built;
  for (const auto& [key, map] : built)
    if (key.first == id && key.second == param) return map;
  const layout::OperandMap* m = layout::find_fragment_map(id);
  if (!m) throw std::logic_error(fmt::format("the op traits have no fragment map '{}'", id));
  built.push_back({{std::string(id), param}, m->build(param)});
  return built.back().second;
}

// What a u16 of the TMA tile names: "element (3,0)", or the poison.
std::string tma_value_text(uint16_t v, uint32_t cols) {
  if (v >= kTmaRows * cols) return fmt::format("0x{:04x} (no element of the box: never written?)", v);
  return fmt::format("element ({},{})", v / cols, v % cols);
}

std::string wgmma_value_text(float v) {
  if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v >= 256.0f * 64.0f)
    return fmt::format("{} (no (row, col) of D: never written?)", v);
  const uint32_t u = uint32_t(v);
  return fmt::format("(row {}, col {})", u / 256, u % 256);
}

const char* const kParityLabels[4] = {"test_wait.parity 0 on a fresh barrier", "test_wait.parity 1 on a fresh barrier",
                                      "test_wait.parity 0 after one arrival", "test_wait.parity 1 after one arrival"};
constexpr uint32_t kParityFacts[4] = {0, 1, 1, 0};  // facts §6

void note(ProbeCheck& check, std::string message) {
  if (check.mismatches++ == 0) check.first_mismatch = std::move(message);
}

}  // namespace

void wgmma_accumulator_position(uint32_t t, uint32_t v, uint32_t& row, uint32_t& col) {
  // The widest N: the element of (t, v) does not depend on N while v < N/2.
  const layout::Coord c = traits_map("wgmma_acc", 256).at(int(t), int(v));
  row = uint32_t(c.row);
  col = uint32_t(c.col);
}

ProbeCase make_tma_probe_case(uint32_t box_cols, layout::Swizzle swizzle, ir::Kernel kernel) {
  ProbeCase p;
  p.group = "tma";
  p.name = fmt::format("tma {}x{} {}", box_cols, kTmaRows, layout::swizzle_name(swizzle));
  p.kind = ProbeKind::tma_placement;
  p.box_cols = box_cols;
  p.swizzle = swizzle;
  p.kernel = std::move(kernel);
  p.buffers.a.resize(size_t(kTmaRows) * box_cols * 2);
  for (uint32_t i = 0; i < kTmaRows * box_cols; ++i) {
    const uint16_t v = uint16_t(i);
    std::memcpy(p.buffers.a.data() + 2 * size_t(i), &v, 2);
  }
  p.buffers.c.assign(p.buffers.a.size(), 0xEE);
  return p;
}

ProbeCase make_mbarrier_probe_case(ir::Kernel kernel) {
  ProbeCase p;
  p.group = "mbarrier";
  p.name = "mbarrier parity";
  p.kind = ProbeKind::mbarrier_parity;
  p.kernel = std::move(kernel);
  p.buffers.c.assign(16, 0xEE);
  return p;
}

ProbeCase make_wgmma_probe_case(uint32_t n, ir::Kernel kernel) {
  ProbeCase p;
  p.group = "wgmma";
  p.name = fmt::format("wgmma m64n{}k16", n);
  p.kind = ProbeKind::wgmma_accumulators;
  p.n = n;
  p.kernel = std::move(kernel);
  p.buffers.a.assign(64 * 16 * 2, 0);
  p.buffers.b.assign(size_t(n) * 16 * 2, 0);
  for (uint32_t r = 0; r < 64; ++r) {
    const uint16_t a0 = bf16_of_small_integer(float(r)), a1 = bf16_of_small_integer(1.0f);
    std::memcpy(p.buffers.a.data() + (r * 16 + 0) * 2, &a0, 2);
    std::memcpy(p.buffers.a.data() + (r * 16 + 1) * 2, &a1, 2);
  }
  for (uint32_t c = 0; c < n; ++c) {
    const uint16_t b0 = bf16_of_small_integer(256.0f), b1 = bf16_of_small_integer(float(c));
    std::memcpy(p.buffers.b.data() + (c * 16 + 0) * 2, &b0, 2);
    std::memcpy(p.buffers.b.data() + (c * 16 + 1) * 2, &b1, 2);
  }
  p.buffers.c.assign(size_t(kWgmmaThreads) * n / 2 * 4, 0xFF);
  return p;
}

namespace {

// mma.sync m16n8k16 fragment maps, read from the op traits (facts §2), the tables this probe
// checks on the GPU.
struct MmaProbeValues {
  int a[16][16], b[16][8], c[16][8];  // A row-major M×K, B as K×N, C M×N
};
MmaProbeValues mma_probe_values() {
  MmaProbeValues v{};
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) v.a[r][k] = (r * 7 + k * 3) % 9 - 4;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 8; ++n) v.b[k][n] = (k * 5 + n * 11 + 2) % 9 - 4;
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 8; ++n) v.c[r][n] = (r * 13 + n * 5) % 17 - 8;
  return v;
}
void map_position(std::string_view map, uint32_t l, uint32_t e, int& row, int& col) {
  const layout::Coord c = traits_map(map, 0).at(int(l), int(e));
  row = c.row;
  col = c.col;
}
void mma_a_position(uint32_t l, uint32_t e, int& row, int& col) { map_position("mma_a", l, e, row, col); }
void mma_b_position(uint32_t l, uint32_t e, int& k, int& n) { map_position("mma_b", l, e, k, n); }
void mma_c_position(uint32_t l, uint32_t v, int& row, int& col) { map_position("mma_c", l, v, row, col); }
constexpr size_t kMmaDOffset = 32 * 16;  // bytes: D follows the 32 lanes' C fragments

}  // namespace

ProbeCase make_mma_probe_case(ir::Kernel kernel) {
  ProbeCase p;
  p.group = "mma";
  p.name = "mma.sync m16n8k16";
  p.kind = ProbeKind::mma_sync_fragments;
  p.kernel = std::move(kernel);
  const MmaProbeValues v = mma_probe_values();
  p.buffers.a.assign(32 * 16, 0);
  p.buffers.b.assign(32 * 8, 0);
  p.buffers.c.assign(32 * 16 * 2, 0xFF);
  for (uint32_t l = 0; l < 32; ++l) {
    for (uint32_t e = 0; e < 8; ++e) {  // register e/2, low half when e is even
      int row, col;
      mma_a_position(l, e, row, col);
      const uint16_t h = bf16_of_small_integer(float(v.a[row][col]));
      std::memcpy(p.buffers.a.data() + l * 16 + e * 2, &h, 2);
    }
    for (uint32_t e = 0; e < 4; ++e) {
      int k, n;
      mma_b_position(l, e, k, n);
      const uint16_t h = bf16_of_small_integer(float(v.b[k][n]));
      std::memcpy(p.buffers.b.data() + l * 8 + e * 2, &h, 2);
    }
    for (uint32_t r = 0; r < 4; ++r) {
      int row, col;
      mma_c_position(l, r, row, col);
      const float f = float(v.c[row][col]);
      std::memcpy(p.buffers.c.data() + l * 16 + r * 4, &f, 4);
    }
  }
  return p;
}

ProbeCase make_cluster_probe_case(ir::Kernel kernel) {
  ProbeCase p;
  p.group = "cluster";
  p.name = "cluster multicast + DSMEM + remote arrive";
  p.kind = ProbeKind::cluster;
  p.kernel = std::move(kernel);
  p.buffers.a.resize(kernels::kClusterProbeABytes);
  for (size_t i = 0; i < p.buffers.a.size(); ++i) p.buffers.a[i] = uint8_t(i * 7 + 3);
  p.buffers.c.assign(size_t(kernels::kClusterProbeWords) * 4, 0xEE);
  return p;
}

ProbeCase make_warpgroup_probe_case(ir::Kernel kernel) {
  ProbeCase p;
  p.group = "warpgroup";
  p.name = "setmaxnreg 24/240/240 + bar.sync 1,256 + elect.sync";
  p.kind = ProbeKind::warpgroup;
  p.kernel = std::move(kernel);
  p.buffers.c.assign(size_t(kernels::kWarpgroupProbeThreads) * 4, 0xEE);
  return p;
}

ProbeCheck check_probe_output(const ProbeCase& p, const std::vector<uint8_t>& c, std::string_view who) {
  ProbeCheck check;
  if (c.size() != p.buffers.c.size()) {
    check.mismatches = 1;
    check.first_mismatch = fmt::format("{} returned {} bytes of C, the probe writes {}", who, c.size(), p.buffers.c.size());
    return check;
  }
  switch (p.kind) {
    case ProbeKind::wgmma_descriptor: return check_wgmma_desc_output(p, c, who);
    case ProbeKind::matrix: return check_matrix_output(p, c, who);
    case ProbeKind::tma_placement:
      for (uint32_t row = 0; row < kTmaRows; ++row)
        for (uint32_t col = 0; col < p.box_cols; ++col) {
          ++check.checked;
          const uint32_t element = row * p.box_cols + col;
          const uint16_t got = u16_at(c, tma_formula_address(p.swizzle, element * 2));
          if (got != element)
            note(check, fmt::format("row {} col {}: {} holds {}, formula says ({},{})", row, col, who,
                                    tma_value_text(got, p.box_cols), row, col));
        }
      break;
    case ProbeKind::cluster:
      // kernels/probes.hpp, build_cluster_probe: CTA c of a 2-CTA cluster, peer = c ^ 1.
      for (uint32_t cta = 0; cta < 4; ++cta)
        for (uint32_t t = 0; t < 64; ++t) {
          const uint32_t peer = cta ^ 1, base = cta * 192 + t;
          const uint32_t want[3] = {peer * 1000 + t, peer * 1000 + t + 500000, u32_at(p.buffers.a, ((cta / 2) * 64 + t) * 4)};
          const char* what[3] = {"read from the peer (mapa + ld.shared::cluster)",
                                 "stored by the peer (st.shared::cluster)", "landed by the multicasts"};
          for (uint32_t part = 0; part < 3; ++part) {
            ++check.checked;
            const uint32_t got = u32_at(c, size_t(base + 64 * part) * 4);
            if (got != want[part])
              note(check, fmt::format("CTA {} thread {}: {} holds {:#x} as the word {}, expected {:#x}", cta, t, who, got,
                                      what[part], want[part]));
          }
        }
      break;
    case ProbeKind::warpgroup:
      for (uint32_t t = 0; t < kernels::kWarpgroupProbeThreads; ++t) {
        ++check.checked;
        const int lane = layout::lane_of_thread(int(t));
        const uint32_t got = u32_at(c, 4 * size_t(t)), want = lane == 0 ? 1 : 2;
        if (got != want)
          note(check, fmt::format("thread {} (warp {}, lane {}): {} wrote {:#x}, expected {} ({})", t,
                                  layout::warp_of_thread(int(t)), lane, who, got, want,
                                  want == 1 ? "lane 0 is elected" : "not elected"));
      }
      break;
    case ProbeKind::mbarrier_parity:
      for (uint32_t i = 0; i < 4; ++i) {
        ++check.checked;
        const uint32_t got = u32_at(c, 4 * i);
        if (got != kParityFacts[i])
          note(check, fmt::format("result {} ({}): {} says {}, the facts say {}", i, kParityLabels[i], who,
                                  got == 0xEEEEEEEEu ? std::string("0xeeeeeeee (never written)") : std::to_string(got),
                                  kParityFacts[i]));
      }
      break;
    case ProbeKind::mma_sync_fragments: {
      const MmaProbeValues v = mma_probe_values();
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t r = 0; r < 4; ++r) {
          ++check.checked;
          int row, col;
          mma_c_position(l, r, row, col);
          int want = v.c[row][col];
          for (int k = 0; k < 16; ++k) want += v.a[row][k] * v.b[k][col];
          const float got = f32_at(c, kMmaDOffset + (size_t(l) * 4 + r) * 4);
          if (got != float(want))
            note(check, fmt::format("lane {} d{}: {} holds {}, A·B + C at (row {}, col {}) is {}", l, r, who, got, row,
                                    col, want));
        }
      break;
    }
    case ProbeKind::wgmma_accumulators:
      for (uint32_t t = 0; t < kWgmmaThreads; ++t)
        for (uint32_t v = 0; v < p.n / 2; ++v) {
          ++check.checked;
          uint32_t row = 0, col = 0;
          wgmma_accumulator_position(t, v, row, col);
          const float got = f32_at(c, (size_t(t) * p.n / 2 + v) * 4);
          if (got != float(256 * row + col))
            note(check, fmt::format("thread {} register {}: {} holds {}, the map says (row {}, col {})", t, v, who,
                                    wgmma_value_text(got), row, col));
        }
      break;
  }
  check.pass = check.mismatches == 0;
  return check;
}

ProbeCheck compare_probe_outputs(const ProbeCase& p, const std::vector<uint8_t>& gpu, const std::vector<uint8_t>& model) {
  ProbeCheck check;
  if (gpu.size() != model.size()) {
    check.mismatches = 1;
    check.first_mismatch = fmt::format("the GPU returned {} bytes of C, the model {}", gpu.size(), model.size());
    return check;
  }
  switch (p.kind) {
    case ProbeKind::wgmma_descriptor: return compare_wgmma_desc_outputs(p, gpu, model);
    case ProbeKind::matrix: return compare_matrix_outputs(p, gpu, model);
    case ProbeKind::tma_placement:
      // Word by word over the whole tile, named by the shared-memory byte and what each side holds.
      for (size_t offset = 0; offset + 2 <= gpu.size(); offset += 2) {
        ++check.checked;
        const uint16_t g = u16_at(gpu, offset), m = u16_at(model, offset);
        if (g != m)
          note(check, fmt::format("tile byte {}: GPU holds {}, model holds {}", offset, tma_value_text(g, p.box_cols),
                                  tma_value_text(m, p.box_cols)));
      }
      break;
    case ProbeKind::cluster:
      for (uint32_t w = 0; w < kernels::kClusterProbeWords; ++w) {
        ++check.checked;
        if (u32_at(gpu, 4 * w) != u32_at(model, 4 * w))
          note(check, fmt::format("C word {} (CTA {}): GPU holds {:#x}, model holds {:#x}", w, w / 192, u32_at(gpu, 4 * w),
                                  u32_at(model, 4 * w)));
      }
      break;
    case ProbeKind::warpgroup:
      for (uint32_t t = 0; t < kernels::kWarpgroupProbeThreads; ++t) {
        ++check.checked;
        if (u32_at(gpu, 4 * size_t(t)) != u32_at(model, 4 * size_t(t)))
          note(check, fmt::format("thread {}: GPU wrote {:#x}, model wrote {:#x}", t, u32_at(gpu, 4 * size_t(t)),
                                  u32_at(model, 4 * size_t(t))));
      }
      break;
    case ProbeKind::mbarrier_parity:
      for (uint32_t i = 0; i < 4; ++i) {
        ++check.checked;
        if (u32_at(gpu, 4 * i) != u32_at(model, 4 * i))
          note(check, fmt::format("result {} ({}): GPU says {}, model says {}", i, kParityLabels[i], u32_at(gpu, 4 * i),
                                  u32_at(model, 4 * i)));
      }
      break;
    case ProbeKind::mma_sync_fragments:
      for (uint32_t l = 0; l < 32; ++l)
        for (uint32_t r = 0; r < 4; ++r) {
          ++check.checked;
          const size_t offset = kMmaDOffset + (size_t(l) * 4 + r) * 4;
          if (std::memcmp(gpu.data() + offset, model.data() + offset, 4) != 0)
            note(check, fmt::format("lane {} d{}: GPU holds {}, model holds {}", l, r, f32_at(gpu, offset),
                                    f32_at(model, offset)));
        }
      break;
    case ProbeKind::wgmma_accumulators:
      for (uint32_t t = 0; t < kWgmmaThreads; ++t)
        for (uint32_t v = 0; v < p.n / 2; ++v) {
          ++check.checked;
          const size_t offset = (size_t(t) * p.n / 2 + v) * 4;
          if (std::memcmp(gpu.data() + offset, model.data() + offset, 4) != 0)
            note(check, fmt::format("thread {} register {}: GPU holds {}, model holds {}", t, v,
                                    wgmma_value_text(f32_at(gpu, offset)), wgmma_value_text(f32_at(model, offset))));
        }
      break;
  }
  check.pass = check.mismatches == 0;
  return check;
}

// --- running -----------------------------------------------------------------------------


void run_probe_on_model(const ProbeCase& probe, ProbeReport& report, std::vector<uint8_t>& model_c) {
  model::GemmBuffers buffers = probe.buffers;
  model::SimOptions options;
  options.trace = false;
  try {
    const model::SimResult result = model::simulate(probe.kernel, buffers, options);
    report.model_completed = result.completed;
    report.model_error = result.error;
    report.model_hazards = result.hazards.size();
    if (result.completed && !result.hazards.empty())
      report.model_error = fmt::format("{} hazard(s), first: {}: {}", result.hazards.size(), model::hazard_kind_name(result.hazards[0].kind),
                                       result.hazards[0].detail);
  } catch (const model::ModelError& e) {
    report.model_completed = false;
    report.model_error = std::string("the model could not run the probe: ") + e.what();
  }
  model_c = std::move(buffers.c);
  if (report.model_completed) report.model_vs_formula = check_probe_output(probe, model_c, "model");
  report.model_c = model_c;
}

bool ProbeRun::all_passed() const {
  if (!devices.job.ok()) return false;
  for (const ProbeReport& r : reports)
    if (r.skipped.empty() && !r.pass()) return false;
  return true;
}

ProbeRun run_probes(const std::vector<ProbeCase>& cases, const ProbeOptions& options,
                    const std::function<void(const ProbeReport&)>& on_report) {
  ProbeRun run;
  run.devices = list_devices_isolated(options.job);
  if (!run.devices.job.ok()) return run;
  const cuda::DeviceInfo& device = run.devices.devices.front();
  for (const ProbeCase& probe : cases) {
    ProbeReport report;
    report.group = probe.group;
    report.name = probe.name;
    std::string why;
    if (!cuda::can_run(device, ir::arch_name(probe.kernel.target), &why)) {
      report.skipped = why;
    } else {
      std::vector<uint8_t> model_c;
      run_probe_on_model(probe, report, model_c);
      const KernelRun gpu = run_kernel_once(probe.kernel, probe.buffers, {}, options.kernel_limit, options.job);
      report.gpu_status = gpu.job.status;
      report.gpu_error = gpu.job.error;
      if (gpu.job.ok()) {
        report.gpu_c = gpu.c;
        report.gpu_vs_formula = check_probe_output(probe, gpu.c, "GPU");
        if (report.model_completed) report.gpu_vs_model = compare_probe_outputs(probe, gpu.c, model_c);
      }
    }
    if (on_report) on_report(report);
    run.reports.push_back(std::move(report));
  }
  return run;
}

std::string probe_report_line(const ProbeReport& r) {
  if (!r.skipped.empty()) return fmt::format("SKIP  {:<24}  {}", r.name, r.skipped);
  if (r.pass())
    return fmt::format("PASS  {:<24}  ({} facts: the GPU, the formula and the model agree)", r.name,
                       r.gpu_vs_formula.checked);
  std::string why;
  if (r.gpu_status != GpuStatus::ok)
    why = fmt::format("the GPU run {}: {}", gpu_status_name(r.gpu_status), r.gpu_error);
  else if (!r.gpu_vs_formula.pass)
    why = fmt::format("{} (GPU vs formula: {} of {} wrong)", r.gpu_vs_formula.first_mismatch, r.gpu_vs_formula.mismatches,
                      r.gpu_vs_formula.checked);
  else if (!r.model_completed || r.model_hazards > 0)
    why = "the GPU matches the formula, but the model " +
          std::string(r.model_completed ? "reports hazards: " : "did not complete: ") + r.model_error;
  else if (!r.model_vs_formula.pass)
    why = fmt::format("the GPU matches the formula, the model does not: {} ({} of {} wrong)",
                      r.model_vs_formula.first_mismatch, r.model_vs_formula.mismatches, r.model_vs_formula.checked);
  else
    why = fmt::format("GPU vs model: {} ({} of {} differ)", r.gpu_vs_model.first_mismatch, r.gpu_vs_model.mismatches,
                      r.gpu_vs_model.checked);
  return fmt::format("FAIL  {:<24}  {}", r.name, why);
}

}  // namespace gs::run
