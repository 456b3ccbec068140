// The schedule view: C's output tiles, each filled with the colour of the CTA that wrote it and
// numbered by its place in that CTA's walk (1 = its first tile), waves and tile quantization on
// top. A tile nobody wrote is left empty with an error outline, one written twice gets an error
// cross; hovering a tile names its rows, columns, CTA and wave and draws that CTA's walk.
#include <algorithm>

#include <fmt/format.h>

#include "gui/core/colors.hpp"
#include "gui/core/schedule_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

ImU32 cta_color(uint32_t cta, float alpha = 1.0f) {
  const Rgb c = cta_rgb(cta);
  return IM_COL32(c[0], c[1], c[2], int(alpha * 255.0f));
}

std::string ctaid_text(const LoadedKernel& k, uint32_t linear) {
  const auto& g = k.kernel().launch.grid;
  const uint32_t x = linear % g[0], y = linear / g[0] % g[1], z = linear / (g[0] * g[1]);
  return z ? fmt::format("({},{},{})", x, y, z) : fmt::format("({},{})", x, y);
}

// How many CTAs share an SM and which resource decides it, every limit in the tooltip.
void draw_occupancy(const Occupancy& o, const ViewEnv& env) {
  // Wrapped: the binding resource is the point of the line, and the schedule's column is narrow.
  ImGui::PushStyleColor(ImGuiCol_Text, o.occupancy < 0.25 ? warn_color(env) : muted_color(env));
  ImGui::TextWrapped("occupancy: %u CTA%s per SM (%u warps, %.0f%%), bound by %s%s", o.ctas_per_sm,
                     o.ctas_per_sm == 1 ? "" : "s", o.warps_per_sm, 100.0 * o.occupancy, o.binding.c_str(),
                     o.registers_pending ? " (registers pending: ptxas -v is running)" : "");
  ImGui::PopStyleColor();
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  for (const OccupancyLimit& l : o.limits)
    ImGui::Text("%s%-13s %2u CTAs: %s", l.resource == o.binding ? "> " : "  ", l.resource.c_str(), l.ctas,
                l.basis.c_str());
  ImGui::TextDisabled("registers per thread: %s", o.registers ? fmt::format("{}, from {}", o.registers,
                                                                             o.registers_source).c_str()
                                                              : o.registers_source.c_str());
  ImGui::EndTooltip();
}

void draw_figures(const ScheduleData& d, const ViewEnv& env) {
  ImGui::TextUnformatted(d.headline.c_str());
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(d.wave_efficiency < 0.9 ? warn_color(env) : muted_color(env)), "%s",
                     d.waves_text.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%u CTA%s; %u run at once (%u per SM from threads and shared memory), starting in linear order",
                      d.ctas, d.ctas == 1 ? "" : "s", d.sms * d.ctas_per_sm, d.ctas_per_sm);
  draw_occupancy(d.occupancy, env);
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(d.tile_efficiency < 0.99 ? warn_color(env) : muted_color(env)),
                     "tiles: %.1f%% of their area is C (%llu outputs outside C)", 100.0 * d.tile_efficiency,
                     static_cast<unsigned long long>(d.wasted_elements));
  if (ImGui::IsItemHovered() && d.wasted_elements)
    ImGui::SetTooltip("%ux%u is not a multiple of the %ux%u tile: the edge tiles' threads compute (or skip)\n"
                      "%llu elements that are not in C",
                      d.m, d.n, d.tile_rows, d.tile_cols, static_cast<unsigned long long>(d.wasted_elements));
}

std::string bytes_text(double b) {
  return b >= double(1 << 30) ? fmt::format("{:.2f} GiB", b / double(1 << 30)) : fmt::format("{:.0f} MiB", b / double(1 << 20));
}

// The tile orders the kernel takes: the model's bytes from HBM and through L2 for each, the open
// build's marked, the fewest HBM bytes in the ok colour.
void draw_tile_orders(AppState& app, const ScheduleData& d, const ViewEnv& env) {
  if (d.orders.empty()) {
    if (!d.orders_note.empty()) ImGui::TextDisabled("%s", d.orders_note.c_str());
    return;
  }
  double fewest = d.orders.front().traffic.hbm_bytes;
  for (const OrderTraffic& o : d.orders) fewest = std::min(fewest, o.traffic.hbm_bytes);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  if (ImGui::BeginTable("##tile_orders", 4, ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("tile order");
    ImGui::TableSetupColumn("from HBM");
    ImGui::TableSetupColumn("read via L2");
    ImGui::TableSetupColumn("L2 reuse");
    ImGui::TableHeadersRow();
    for (const OrderTraffic& o : d.orders) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      if (o.open) ImGui::TextUnformatted(fmt::format("{} {} (this build)", o.value, o.name).c_str());
      else ImGui::TextDisabled("%u %s", o.value, o.name.c_str());
      ImGui::TableNextColumn();
      const bool best = o.traffic.hbm_bytes <= fewest;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(best ? ok_color(env) : ImGui::GetColorU32(ImGuiCol_Text)), "%s",
                         bytes_text(o.traffic.hbm_bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bytes_text(o.traffic.l2_bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fmt::format("{:.1f}x", o.traffic.l2_reuse()).c_str());
    }
    ImGui::EndTable();
  }
  // The model's note on what the figures count, on hover (the table is a few short rows).
  const ImVec2 end(at.x + width, ImGui::GetCursorScreenPos().y);
  app.drawn["schedule.orders"] = {at.x, at.y, end.x - at.x, end.y - at.y};
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  ImGui::TextWrapped("%s", d.orders_line.c_str());
  ImGui::PopStyleColor();
  if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(at, end)) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36.0f);
    ImGui::TextUnformatted(d.orders_note.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

std::string tile_text(const ScheduleData& d, uint32_t tile) {
  return fmt::format("({},{})", tile / d.tiles_n, tile % d.tiles_n);
}

// How a launch-controlled tile came to its CTA: its own, or taken by an answer of the queue.
std::string taken_text(const LoadedKernel& k, const ScheduleData& d, const ScheduleCell& c) {
  if (c.answer >= d.answers.size()) return c.order == 0 ? "\nthe CTA's own tile (launch order)" : "";
  const ClcAnswer& a = d.answers[c.answer];
  return fmt::format("\ntaken from CTA {}, which never ran: try_cancel at cycle {}, answer landed at {}",
                     ctaid_text(k, a.cancelled), a.issued, a.landed);
}

// One CTA's launch-queue events in time order, for its lane's tooltip.
std::string lane_events(const LoadedKernel& k, const ScheduleData& d, uint32_t cta) {
  std::vector<std::pair<uint64_t, std::string>> events;
  for (const ClcAnswer& a : d.answers) {
    if (a.asker != cta) continue;
    events.emplace_back(a.issued, "try_cancel issued");
    events.emplace_back(a.landed, a.cancelled == kNone
                                      ? std::string("answer landed: queue empty (no CTA left to cancel): its loops end")
                                      : fmt::format("answer landed: cancelled CTA {}{}", ctaid_text(k, a.cancelled),
                                                    a.tile == kNone ? "" : ", whose tile " + tile_text(d, a.tile) +
                                                                               " this CTA computes instead"));
  }
  for (uint32_t t = 0; t < d.cells.size(); ++t)
    if (d.cells[t].cta == cta) events.emplace_back(d.cells[t].cycle, fmt::format("first store into tile {} (its tile #{})",
                                                                                 tile_text(d, t), d.cells[t].order + 1));
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = fmt::format("CTA {}", ctaid_text(k, cta));
  for (const auto& [cycle, what] : events) out += fmt::format("\ncycle {:>9}  {}", cycle, what);
  return out;
}

// The grid's launch queue (clusterlaunchcontrol) over modeled time: a lane per CTA that asked,
// with each try_cancel (a tick), the answer in flight (a line), where it landed (a filled dot:
// a CTA was cancelled; a ring: "queue empty") and the CTA's first store into each tile (a square
// in its colour, numbered as in the grid); right of the lane, the CTAs it cancelled. All from the
// model's record. `height`: the room it has, its header included.
void draw_launch_queue(AppState& app, const LoadedKernel& k, const ScheduleData& d, const ViewEnv& env, float height) {
  const float s = env.scale, line = ImGui::GetTextLineHeight(), top = ImGui::GetCursorPosY();
  ImGui::TextUnformatted(fmt::format("Launch queue: {} answer{} to {} CTA{}, {} cancelled a CTA, {} said 'queue empty'",
                                     d.answers.size(), d.answers.size() == 1 ? "" : "s", d.queue_ctas.size(),
                                     d.queue_ctas.size() == 1 ? "" : "s", d.cancelled, d.none_left)
                             .c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, muted_color(env));
  // No-break spaces keep each mark with its words when the line wraps.
  ImGui::TextWrapped("|\u00a0try_cancel issued   —\u00a0answer in flight   ●\u00a0answer landed: a CTA cancelled "
                     "(named on the right)   ○\u00a0queue empty   ■\u00a0first store into a tile (its number in the "
                     "CTA's walk); cycles 0 to %llu",
                     static_cast<unsigned long long>(d.queue_end));
  ImGui::PopStyleColor();
  const float lane_h = std::round(line * 1.25f);
  const float used = ImGui::GetCursorPosY() - top;
  ImGui::BeginChild("##launch_queue", ImVec2(0, std::max(height - used, 4 * lane_h)), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float label_w = ImGui::CalcTextSize("CTA (000,0) ").x, took_w = ImGui::CalcTextSize(" took (000,0)").x;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float w = std::max(40.0f * s, ImGui::GetContentRegionAvail().x - label_w - took_w - line);
  const float x0 = o.x + label_w;
  const double end = double(std::max<uint64_t>(1, d.queue_end));
  const auto x_of = [&](uint64_t cycle) { return x0 + w * float(double(cycle) / end); };
  ImGui::Dummy(ImVec2(label_w + w + took_w + line, lane_h * float(d.queue_ctas.size())));
  app.drawn["schedule.queue"] = {x0, o.y, w, lane_h};  // the time axis and the first lane, for the pixel test
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = muted_color(env), ok = ok_color(env);
  const float dot = std::max(2.5f * s, 0.22f * lane_h);
  const ImVec2 clip_lo = ImGui::GetWindowPos(), clip_hi(clip_lo.x + ImGui::GetWindowWidth(), clip_lo.y + ImGui::GetWindowHeight());
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  bool first_cancel = true, first_empty = true;
  for (size_t lane = 0; lane < d.queue_ctas.size(); ++lane) {
    const uint32_t cta = d.queue_ctas[lane];
    const float y0 = o.y + lane_h * float(lane), mid = y0 + lane_h * 0.5f;
    if (y0 + lane_h < clip_lo.y || y0 > clip_hi.y) continue;  // off screen: nothing to draw
    if (lane % 2) dl->AddRectFilled(ImVec2(o.x, y0), ImVec2(x0 + w, y0 + lane_h), scale_alpha(muted, 0.10f));
    dl->AddText(ImVec2(o.x, y0 + (lane_h - line) * 0.5f), text, fmt::format("CTA {}", ctaid_text(k, cta)).c_str());
    // Its first stores, under the answers.
    for (const ScheduleCell& c : d.cells) {
      if (c.cta != cta) continue;
      const float x = x_of(c.cycle), h = lane_h * 0.42f;
      dl->AddRectFilled(ImVec2(x - h, mid - h), ImVec2(x + h, mid + h), cta_color(cta));
      dl->AddRect(ImVec2(x - h, mid - h), ImVec2(x + h, mid + h), IM_COL32(20, 20, 20, 200));
      const std::string n = std::to_string(c.order + 1);
      const ImVec2 ts = ImGui::CalcTextSize(n.c_str());
      if (ts.x <= 2 * h + 2 * s) dl->AddText(ImVec2(x - ts.x * 0.5f, mid - ts.y * 0.5f), IM_COL32(20, 20, 20, 255), n.c_str());
    }
    // The requests and their flights first, then where each answer landed on top: a request issued
    // right after the answer before it lands within that answer's dot at this scale.
    for (const ClcAnswer& a : d.answers) {
      if (a.asker != cta) continue;
      const float xi = x_of(a.issued), xl = x_of(a.landed);
      dl->AddLine(ImVec2(xi, y0 + 2 * s), ImVec2(xi, y0 + lane_h - 2 * s), text, 1.5f * s);
      dl->AddLine(ImVec2(xi, mid), ImVec2(xl, mid), muted, 1.5f * s);
    }
    std::string took;  // the CTAs this one cancelled, in order
    for (const ClcAnswer& a : d.answers) {
      if (a.asker != cta) continue;
      const float xl = x_of(a.landed);
      if (a.cancelled != kNone) {
        dl->AddCircleFilled(ImVec2(xl, mid), dot, ok);
        took += (took.empty() ? " took " : ", ") + ctaid_text(k, a.cancelled);
        if (first_cancel) app.drawn["schedule.queue.cancel"] = {xl, mid, dot, float(lane)};
        first_cancel = false;
      } else {
        dl->AddCircle(ImVec2(xl, mid), dot, muted, 0, 1.5f * s);
        if (first_empty) app.drawn["schedule.queue.empty"] = {xl, mid, dot, float(lane)};
        first_empty = false;
      }
    }
    if (!took.empty()) dl->AddText(ImVec2(x0 + w + line * 0.5f, y0 + (lane_h - line) * 0.5f), ok, took.c_str());
    if (ImGui::IsWindowHovered() && mouse.y >= y0 && mouse.y < y0 + lane_h && mouse.x >= o.x) {
      ImGui::BeginTooltip();
      ImGui::TextUnformatted(lane_events(k, d, cta).c_str());
      ImGui::EndTooltip();
    }
  }
  ImGui::EndChild();
}

}  // namespace

void draw_schedule(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel open");
    return;
  }
  const LoadedKernel& k = *app.kernel;
  request_register_count(app);  // off the UI thread; the data is built again when it is there
  const ScheduleData& d = schedule_data(app.kernel);
  if (!d.available) {
    draw_occupancy(d.occupancy, env);
    ImGui::TextWrapped("%s", d.note.c_str());
    return;
  }
  draw_figures(d, env);
  const bool bad = d.whole_grid && (d.unwritten || d.written_twice);
  ImGui::PushStyleColor(ImGuiCol_Text, bad ? error_color(env) : d.whole_grid ? ok_color(env) : muted_color(env));
  ImGui::TextWrapped("%s", d.note.c_str());
  ImGui::PopStyleColor();
  if (!d.whole_grid) {
    if (ImGui::SmallButton("Run on model")) app.request_model_run();
  }
  draw_tile_orders(app, d, env);

  // The grid, as large as the window allows with square-ish cells; with launch control, beside
  // the launch queue in a wide window (the grid at most 45% of the width), else above it.
  const float s = env.scale;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 room = avail;
  const bool queue = d.launch_control && !d.queue_ctas.empty();
  // Beside the grid only where the lanes keep room for their labels and a readable time axis.
  const float grid_w = std::min(room.x * 0.45f, room.y * float(d.tiles_n) / float(d.tiles_m));
  const float lanes_w = ImGui::CalcTextSize("CTA (000,0)  took (000,0) ").x + 240.0f * s;
  const bool side = queue && room.x >= 1.5f * room.y && room.x - grid_w >= lanes_w;
  float queue_h = 0.0f;
  if (side) {
    avail.x = grid_w;
  } else if (queue) {
    queue_h = std::max(room.y * 0.45f, 6.0f * ImGui::GetTextLineHeightWithSpacing());
    avail.y = std::max(room.y - queue_h, 4.0f * ImGui::GetTextLineHeight());
  }
  const float cell = std::max(2.0f, std::min((avail.x - 2 * s) / float(d.tiles_n), (avail.y - 2 * s) / float(d.tiles_m)));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##schedule", ImVec2(cell * float(d.tiles_n), cell * float(d.tiles_m)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  app.drawn["schedule.grid"] = {o.x, o.y, cell, cell};  // for the headless pixel test
  const bool labels = cell >= ImGui::GetTextLineHeight() * 1.3f;
  for (const ScheduleCell& c : d.cells) {
    const ImVec2 a(o.x + cell * float(c.col), o.y + cell * float(c.row));
    const ImVec2 b(a.x + cell, a.y + cell);
    if (c.writers == 0) {
      // Never written (a whole-grid run: an error), or not the traced CTA's (an outline, so
      // that the grid the headline counts is there to see).
      dl->AddRect(ImVec2(a.x + 1, a.y + 1), ImVec2(b.x - 1, b.y - 1), d.whole_grid ? error_color(env) : muted_color(env),
                  0, 0, (d.whole_grid ? 1.5f : 1.0f) * s);
      continue;
    }
    dl->AddRectFilled(a, b, cta_color(c.cta));
    if (cell >= 6) dl->AddRect(a, b, IM_COL32(0, 0, 0, 90));
    if (c.writers > 1) {
      dl->AddLine(a, b, error_color(env), 2.0f * s);
      dl->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), error_color(env), 2.0f * s);
    }
    // When (launch control: who took a tile is decided while the grid runs): a strip along the
    // tile's foot, as long as its first store's cycle is a part of the last tile's.
    if (d.launch_control && d.whole_grid && d.last_cycle > 0 && cell >= 6) {
      const float len = cell * float(double(c.cycle) / double(d.last_cycle));
      const ImVec2 sa(a.x + 1, b.y - std::max(2.0f * s, 0.14f * cell)), sb(a.x + 1 + std::max(1.0f, len - 2), b.y - 1);
      dl->AddRectFilled(sa, sb, IM_COL32(20, 20, 20, 230));
      if (c.row == 0 && c.col == 0 && !app.drawn.count("schedule.when")) app.drawn["schedule.when"] = {sa.x, sa.y, sb.x - sa.x, sb.y - sa.y};
      if (c.cycle == d.last_cycle) app.drawn["schedule.when_last"] = {sa.x, sa.y, sb.x - sa.x, sb.y - sa.y};
    }
    if (labels) {
      const std::string t = std::to_string(c.order + 1);
      const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
      dl->AddText(ImVec2(a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f), IM_COL32(20, 20, 20, 255), t.c_str());
    }
  }
  // The order's curve: every tile in the order the kernel declares, centre to centre.
  if (d.walk.size() > 1) {
    const auto centre = [&](uint32_t t) {
      return ImVec2(o.x + cell * (float(t % d.tiles_n) + 0.5f), o.y + cell * (float(t / d.tiles_n) + 0.5f));
    };
    std::vector<ImVec2> points;
    points.reserve(d.walk.size());
    for (uint32_t t : d.walk) points.push_back(centre(t));
    dl->AddPolyline(points.data(), int(points.size()), IM_COL32(255, 255, 255, 150), ImDrawFlags_None,
                    std::max(1.0f, 0.08f * cell));
    app.drawn["schedule.walk"] = {centre(d.walk[0]).x, centre(d.walk[0]).y, centre(d.walk[1]).x, centre(d.walk[1]).y};
  }
  if (side) {
    ImGui::SetCursorScreenPos(ImVec2(o.x + cell * float(d.tiles_n) + ImGui::GetStyle().ItemSpacing.x * 2, o.y));
    ImGui::BeginGroup();
    draw_launch_queue(app, k, d, env, room.y);
    ImGui::EndGroup();
  } else if (queue) {
    draw_launch_queue(app, k, d, env, queue_h);
  }
  if (!hovered) return;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const uint32_t col = uint32_t(std::clamp((mouse.x - o.x) / cell, 0.0f, float(d.tiles_n - 1)));
  const uint32_t row = uint32_t(std::clamp((mouse.y - o.y) / cell, 0.0f, float(d.tiles_m - 1)));
  const ScheduleCell& c = d.cells[size_t(row) * d.tiles_n + col];
  // The hovered tile's CTA walk, centre to centre.
  for (const auto& [cta, tiles] : d.paths) {
    if (cta != c.cta) continue;
    for (size_t i = 1; i < tiles.size(); ++i) {
      const auto centre = [&](uint32_t t) {
        return ImVec2(o.x + cell * (float(t % d.tiles_n) + 0.5f), o.y + cell * (float(t / d.tiles_n) + 0.5f));
      };
      dl->AddLine(centre(tiles[i - 1]), centre(tiles[i]), IM_COL32(20, 20, 20, 220), 2.0f * s);
    }
  }
  const uint32_t r0 = row * d.tile_rows, c0 = col * d.tile_cols;
  const uint32_t r1 = std::min(d.m, r0 + d.tile_rows), c1 = std::min(d.n, c0 + d.tile_cols);
  if (c.writers == 0)
    ImGui::SetTooltip("tile (%u,%u): rows %u..%u, columns %u..%u\n%s", row, col, r0, r1 - 1, c0, c1 - 1,
                      d.whole_grid ? "never written" : "not written by the traced CTA");
  else
    ImGui::SetTooltip("tile (%u,%u): rows %u..%u, columns %u..%u\nCTA %s, its tile #%u, wave %u%s%s", row, col, r0,
                      r1 - 1, c0, c1 - 1, ctaid_text(k, c.cta).c_str(), c.order + 1, c.wave + 1,
                      c.writers > 1 ? fmt::format("\nwritten {} times", c.writers).c_str() : "",
                      d.launch_control ? fmt::format("\nfirst stored at cycle {}{}", c.cycle, taken_text(k, d, c)).c_str() : "");
}

}  // namespace gs::gui
