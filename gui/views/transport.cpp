// The transport: play/pause, stepping by each unit in both directions, speed, a cycle
// scrubber with K-iteration ticks, the position in words, and the keyboard shortcuts with
// their help overlay. Everything it does goes through AppState (seek, step) and the actions
// of gui/core/transport_data, which the tests drive directly.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "gui/core/guided_stops.hpp"
#include "gui/core/transport_data.hpp"
#include "gui/views/views.hpp"

namespace gs::gui {

namespace {

constexpr StepUnit kUnits[] = {StepUnit::instruction, StepUnit::warp_instruction, StepUnit::k_iteration,
                               StepUnit::barrier_phase, StepUnit::stop, StepUnit::event};

// The shortcut keys of a step, "Right / Left" style, for the buttons' tooltips.
std::string keys_of(StepUnit unit) {
  std::string fwd, back;
  for (const Shortcut& s : transport_shortcuts()) {
    if (s.unit != unit) continue;
    if (s.action == TransportAction::step_forward) fwd = s.keys;
    if (s.action == TransportAction::step_backward) back = s.keys;
  }
  return fwd.empty() ? std::string() : fwd + " / " + back;
}

// A strip under the scrubber: where warp 0 starts each K iteration (amber), where mbarrier
// phases complete (blue), and the cursor (a bright line). Click or drag on it to seek.
void draw_timeline_strip(AppState& app, uint64_t now, const ViewEnv& env) {
  const LoadedKernel& k = *app.kernel;
  const model::Trace& t = k.trace();
  const float s = env.scale;
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const float w = std::max(10.0f, ImGui::GetContentRegionAvail().x);
  const float h = 12 * s;
  ImGui::InvisibleButton("##strip", ImVec2(w, h));
  const bool hovered = ImGui::IsItemHovered();
  const uint64_t end = std::max<uint64_t>(1, t.end_cycle);
  auto cycle_at = [&](float x) { return uint64_t(std::clamp((x - a.x) / w, 0.0f, 1.0f) * double(end)); };
  if (ImGui::IsItemActive()) {
    app.pause();
    seek_to_cycle(app, cycle_at(ImGui::GetIO().MousePos.x));
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, ImVec2(a.x + w, a.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  auto x_of = [&](uint64_t c) { return a.x + w * float(double(c) / double(end)); };
  const ImU32 flip = env.dark ? IM_COL32(90, 160, 255, 200) : IM_COL32(30, 90, 200, 200);
  const auto& flips = t.of_kind(model::EventKind::mbar_phase_flip);
  if (flips.size() <= 4096)
    for (uint32_t e : flips)
      dl->AddLine(ImVec2(x_of(t.events[e].cycle), a.y + h * 0.45f), ImVec2(x_of(t.events[e].cycle), a.y + h), flip, 2.0f * s);
  // K iterations as alternating bands with an amber tick at each start.
  const uint16_t k_warp = k.k_warp(app.selection.warp);
  static const std::vector<uint32_t> kNoPasses;
  const std::vector<uint32_t>& starts = k_warp == kNoWarp ? kNoPasses : k.k_pass_events[k_warp];
  const uint32_t iterations = uint32_t(starts.size());
  if (iterations <= 8192) {
    const ImU32 band = ImGui::GetColorU32(ImGuiCol_Text, 0.10f);
    for (size_t i = 0; i < starts.size(); ++i) {
      const float x0 = x_of(t.events[starts[i]].cycle);
      const float x1 = i + 1 < starts.size() ? x_of(t.events[starts[i + 1]].cycle) : x_of(end);
      if (i % 2 == 1) dl->AddRectFilled(ImVec2(x0, a.y), ImVec2(x1, a.y + h), band);
      dl->AddLine(ImVec2(x0, a.y), ImVec2(x0, a.y + h), warn_color(env), 2.0f * s);
    }
  }
  const float xc = x_of(now);
  dl->AddLine(ImVec2(xc, a.y - 1), ImVec2(xc, a.y + h + 1), ImGui::GetColorU32(ImGuiCol_Text), 2.0f * s);
  if (hovered && !ImGui::IsItemActive())
    ImGui::SetTooltip("cycle %llu\namber: the %u K iteration starts (warp %u)\nblue: %zu mbarrier phase completions\n"
                      "click or drag to seek",
                      (unsigned long long)cycle_at(ImGui::GetIO().MousePos.x), iterations, unsigned(k_warp), flips.size());
}

void step_buttons(AppState& app, StepUnit unit, float label_w) {
  ImGui::PushID(int(unit));
  const bool back = ImGui::ArrowButton("##back", ImGuiDir_Left);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("previous %s  (%s)", step_unit_name(unit), keys_of(unit).c_str());
  ImGui::SameLine(0, 2);
  const bool fwd = ImGui::ArrowButton("##fwd", ImGuiDir_Right);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("next %s  (%s)", step_unit_name(unit), keys_of(unit).c_str());
  ImGui::SameLine();
  ImGui::TextUnformatted(step_unit_name(unit));
  ImGui::PopID();
  if (back || fwd) {
    app.pause();
    app.step(unit, fwd);
  }
  (void)label_w;
}

}  // namespace

void draw_transport(AppState& app, const ViewEnv& env) {
  if (!app.kernel) {
    ImGui::TextDisabled("no kernel loaded: open one from the Ladder");
    return;
  }
  const float s = env.scale;
  const TransportInfo info = transport_info(app);

  // Main controls: start, back, play, forward, end (forward/back use the play unit).
  if (ImGui::Button("|<")) seek_start(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("first instruction  (Home)");
  ImGui::SameLine(0, 3 * s);
  if (ImGui::ArrowButton("##back", ImGuiDir_Left)) {
    app.pause();
    app.step(app.playback.unit, false);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("previous %s", step_unit_name(app.playback.unit));
  ImGui::SameLine(0, 3 * s);
  const bool playing = app.playback.playing;
  if (playing) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
  if (ImGui::Button(playing ? "Pause" : "Play", ImVec2(60 * s, 0))) toggle_play(app);
  if (playing) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("play / pause  (Space)");
  ImGui::SameLine(0, 3 * s);
  if (ImGui::ArrowButton("##fwd", ImGuiDir_Right)) {
    app.pause();
    app.step(app.playback.unit, true);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("next %s", step_unit_name(app.playback.unit));
  ImGui::SameLine(0, 3 * s);
  if (ImGui::Button(">|")) seek_end(app);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("last event  (End)");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(130 * s);
  if (ImGui::BeginCombo("##unit", fmt::format("by {}", step_unit_name(app.playback.unit)).c_str())) {
    for (StepUnit u : kUnits)
      if (ImGui::Selectable(step_unit_name(u), u == app.playback.unit)) app.set_step_unit(u);
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("what Play and the arrows beside it advance by");
  ImGui::SameLine();
  if (ImGui::Button("?", ImVec2(ImGui::GetFrameHeight(), 0))) ImGui::OpenPopup("##shortcuts_hint");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("keyboard shortcuts (F1 or ? shows them anywhere)");
  if (ImGui::BeginPopup("##shortcuts_hint")) {
    for (const Shortcut& sc : transport_shortcuts()) {
      mono_text(env, "%-17s", sc.keys);
      ImGui::SameLine();
      ImGui::TextUnformatted(sc.description);
    }
    ImGui::EndPopup();
  }

  // Cycle scrubber: dragging seeks to the first event at or after the cycle. The cycle is
  // written beside it, where the grab cannot cover it; room for the longest it can say.
  uint64_t cycle = info.cycle;
  const uint64_t lo = 0, hi = std::max<uint64_t>(1, info.end_cycle);
  const std::string fmt_cycle = fmt::format("cycle %llu of {}", info.end_cycle);
  const float cycle_text_w = ImGui::CalcTextSize(fmt::format("cycle {} of {}", hi, hi).c_str()).x;
  const float scrub_w = std::max(40.0f * s, ImGui::GetContentRegionAvail().x - cycle_text_w - ImGui::GetStyle().ItemSpacing.x);
  if (slider_value_beside(app, "transport.cycle", "##cycle", ImGuiDataType_U64, &cycle, &lo, &hi, fmt_cycle.c_str(),
                          scrub_w, "drag to seek: the first event at or after the cycle")) {
    app.pause();
    seek_to_cycle(app, cycle);
  }
  draw_timeline_strip(app, info.cycle, env);

  // Where we are.
  // Where we are; a part that does not fit goes to the next line.
  ImGui::Spacing();
  ImGui::Text("event %u of %u", info.position + 1, info.events);
  const std::string cycle_text = fmt::format("|  cycle {}", info.cycle);
  same_line_if_fits(ImGui::CalcTextSize(cycle_text.c_str()).x);
  ImGui::TextUnformatted(cycle_text.c_str());
  if (info.has_k_loop) {
    // Whose: a producer's loads run ahead of the consumers' MMAs (select a warp to see its own).
    const std::string k_text = "|  " + info.k_text;
    same_line_if_fits(ImGui::CalcTextSize(k_text.c_str()).x);
    ImGui::TextUnformatted(k_text.c_str());
  }
  // The event under the cursor, in words, in a framed box so it reads as "now": tall enough
  // for the text as it wraps at this width, up to four lines (then it scrolls).
  {
    if (env.mono) ImGui::PushFont(env.mono);
    const ImGuiStyle& st = ImGui::GetStyle();
    const float wrap_w = ImGui::GetContentRegionAvail().x - st.WindowPadding.x * 2 - st.ScrollbarSize;
    const float text_h = ImGui::CalcTextSize(info.event_text.c_str(), nullptr, false, std::max(1.0f, wrap_w)).y;
    if (env.mono) ImGui::PopFont();
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float h = std::clamp(text_h, line, line * 4.0f) + st.WindowPadding.y * 2 + 2;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
    ImGui::BeginChild("##event", ImVec2(0, h), true);
    if (env.mono) ImGui::PushFont(env.mono);
    ImGui::TextWrapped("%s", info.event_text.c_str());
    if (env.mono) ImGui::PopFont();
    ImGui::EndChild();
    ImGui::PopStyleColor();
  }
  // The step's guided stop the cursor is at or last passed, with its sentence: what stepping
  // by stop (Shift+PageDown) shows.
  const std::vector<GuidedStop>& stops = step_stops(*app.kernel);
  if (const GuidedStop* at = stop_at(stops, info.position)) {
    const bool exact = at->event == info.position;
    ImGui::PushStyleColor(ImGuiCol_Text, exact ? ok_color(env) : ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s %zu of %zu, %s: %s", exact ? "stop" : "after stop", size_t(at - stops.data()) + 1,
                       stops.size(), at->label.c_str(), at->sentence.c_str());
    ImGui::PopStyleColor();
  } else if (!stops.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%zu stops in this run: step by stop (Shift+PageDown) to the first, %s", stops.size(),
                       stops.front().label.c_str());
    ImGui::PopStyleColor();
  }

  // One row of back/forward buttons per unit, with their keys.
  ImGui::Spacing();
  ImGui::TextDisabled("step by");
  if (ImGui::BeginTable("##units", 2, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("unit", 0, ImGui::GetFrameHeight() * 2 + ImGui::CalcTextSize("warp-instruction").x + 16 * s);
    ImGui::TableSetupColumn("keys");
    for (StepUnit u : kUnits) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      step_buttons(app, u, 0);
      ImGui::TableNextColumn();
      ImGui::AlignTextToFramePadding();
      ImGui::TextDisabled("%s", keys_of(u).c_str());
    }
    ImGui::EndTable();
  }
  // Speed: steps of the play unit per second, logarithmic.
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("speed");
  ImGui::SameLine();
  const float speed_text_w = ImGui::CalcTextSize("2000 steps/s").x + ImGui::GetStyle().ItemSpacing.x;
  const float slow = 1.0f, fast = 2000.0f;
  slider_value_beside(app, "transport.speed", "##speed", ImGuiDataType_Float, &app.playback.speed, &slow, &fast,
                      "%.0f steps/s", std::clamp(ImGui::GetContentRegionAvail().x - speed_text_w, 40 * s, 320 * s),
                      "playing speed: steps of the chosen unit per second", ImGuiSliderFlags_Logarithmic);
}

void handle_shortcuts(AppState& app, const ViewEnv& env, bool& show_help) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;  // typing in a field: keys belong to it
  auto pressed = [](int key) { return key >= 0 && ImGui::IsKeyPressed(key, true); };
  const struct {
    ShortcutKey key;
    int index;
  } keys[] = {
      {ShortcutKey::space, ImGui::GetKeyIndex(ImGuiKey_Space)},
      {ShortcutKey::left, ImGui::GetKeyIndex(ImGuiKey_LeftArrow)},
      {ShortcutKey::right, ImGui::GetKeyIndex(ImGuiKey_RightArrow)},
      {ShortcutKey::page_up, ImGui::GetKeyIndex(ImGuiKey_PageUp)},
      {ShortcutKey::page_down, ImGui::GetKeyIndex(ImGuiKey_PageDown)},
      {ShortcutKey::home, ImGui::GetKeyIndex(ImGuiKey_Home)},
      {ShortcutKey::end, ImGui::GetKeyIndex(ImGuiKey_End)},
      {ShortcutKey::f1, GLFW_KEY_F1},  // the GLFW back end stores GLFW key codes in io.KeysDown
  };
  for (const auto& k : keys) {
    if (!pressed(k.index)) continue;
    if (const Shortcut* s = find_shortcut(k.key, io.KeyCtrl, io.KeyShift)) apply_shortcut(app, *s, show_help);
  }
  // '?' is a character (Shift+/ on most layouts), so it comes from the text queue.
  for (int i = 0; i < io.InputQueueCharacters.Size; ++i)
    if (io.InputQueueCharacters[i] == '?')
      if (const Shortcut* s = find_shortcut(ShortcutKey::question_mark, false, false)) apply_shortcut(app, *s, show_help);
  if (show_help && pressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) show_help = false;
  (void)env;
}

void draw_help_overlay(AppState& app, const ViewEnv& env, bool& show_help) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.96f);
  ImGui::SetNextWindowFocus();
  const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoMove;
  if (ImGui::Begin("Keyboard shortcuts###help_overlay", &show_help, flags)) {
    ImGui::TextDisabled("Work in every view, except while typing in a field.");
    ImGui::Spacing();
    if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit)) {
      ImGui::TableSetupColumn("Keys");
      ImGui::TableSetupColumn("Does");
      ImGui::TableHeadersRow();
      for (const Shortcut& s : transport_shortcuts()) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        mono_text(env, "%s", s.keys);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.description);
      }
      ImGui::EndTable();
    }
    ImGui::Spacing();
    ImGui::TextDisabled("Click a PTX line to jump to its next execution; click a warp to follow it.");
    ImGui::TextDisabled("Esc or F1 closes this.");
  }
  ImGui::End();
  (void)app;
}

}  // namespace gs::gui
