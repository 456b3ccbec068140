#include "gui/core/sass_data.hpp"

#include <typeindex>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/resource_advice.hpp"

namespace gs::gui {

namespace {

// The kernel's slot, made on first use (UI thread only, like every LoadedKernel::derived slot).
SassSlot& slot_of(const LoadedKernel& k, bool* created = nullptr) {
  std::shared_ptr<const void>& slot = k.derived[std::type_index(typeid(SassSlot))];
  if (created) *created = !slot;
  if (!slot) slot = std::make_shared<SassSlot>();
  // Only this file makes the slot, always as a mutable SassSlot.
  return *static_cast<SassSlot*>(const_cast<void*>(slot.get()));
}

std::string status_name(ptx::SassStatus s) {
  switch (s) {
    case ptx::SassStatus::ok: return "ok";
    case ptx::SassStatus::no_ptxas: return "no ptxas";
    case ptx::SassStatus::ptxas_failed: return "ptxas failed";
    case ptx::SassStatus::no_disassembler: return "no disassembler";
    case ptx::SassStatus::disassembler_failed: return "disassembler failed";
  }
  return "?";
}

}  // namespace

std::shared_ptr<const ptx::SassListing> sass_listing_of(const LoadedKernel& k) {
  auto it = k.derived.find(std::type_index(typeid(SassSlot)));
  if (it == k.derived.end()) return nullptr;
  return static_cast<const SassSlot*>(it->second.get())->listing;
}

std::shared_ptr<const ptx::SassListing> sass_listing(const AppState& app) {
  return app.kernel ? sass_listing_of(*app.kernel) : nullptr;
}

void request_sass(AppState& app) {
  if (!app.kernel) return;
  bool created = false;
  slot_of(*app.kernel, &created);
  if (!created) return;  // there, or its job is running
  // The job holds the kernel only weakly: a kernel closed meanwhile is not kept alive for it.
  std::weak_ptr<const LoadedKernel> weak = app.kernel;
  const std::string text = app.kernel->ptx.text;
  const ir::Arch target = app.kernel->kernel().target;
  app.jobs.push_back(std::make_unique<Job>(
      JobKind::sass, fmt::format("SASS of {}", app.kernel->request.kernel_id),
      [weak, text, target](JobContext& ctx) {
        auto listing = std::make_shared<const ptx::SassListing>(ptx::compile_sass(text, target));
        ctx.complete([weak, listing](AppState& app) {
          auto k = weak.lock();
          if (!k) return;
          slot_of(*k).listing = listing;
          // A spill's advice points at its first LDL/STL once the listing says where that is.
          if (app.kernel == k) update_resource_advice(app);
        });
      },
      [weak](AppState& app, const std::string& msg) {
        if (auto k = weak.lock()) k->derived.erase(std::type_index(typeid(SassSlot)));  // a later frame retries
        app.add_problem({Severity::error, "app", "sass", "cannot compile the SASS listing", msg});
      }));
}

void compile_sass_now(AppState& app) {
  if (!app.kernel) return;
  SassSlot& slot = slot_of(*app.kernel);
  if (slot.listing) return;
  slot.listing = std::make_shared<const ptx::SassListing>(ptx::compile_sass(app.kernel->ptx.text, app.kernel->kernel().target));
  update_resource_advice(app);
}

SassFocus sass_focus(AppState& app) {
  SassFocus f;
  const PtxFocus p = ptx_focus(app);
  f.current_line = p.current_line;
  f.selected_line = p.selected_line;
  if (const auto listing = sass_listing(app)) {
    f.current = listing->instructions_of_line(f.current_line);
    f.selected = listing->instructions_of_line(f.selected_line);
  }
  return f;
}

SassSpan sass_reveal_span(const ptx::SassListing& listing, const std::vector<size_t>& rows, size_t visible_rows) {
  if (rows.empty()) return {};
  if (rows.back() - rows.front() + 1 <= visible_rows) return {rows.front(), rows.back()};
  for (size_t r : rows)
    for (const ptx::SignatureOp& op : ptx::kSignatureOps)
      if (r < listing.instructions.size() && listing.instructions[r].opcode.rfind(op.sass_prefix, 0) == 0) return {r, r};
  return {rows.front(), rows.front()};
}

bool select_sass_instruction(AppState& app, size_t index) {
  const auto listing = sass_listing(app);
  if (!listing || index >= listing->instructions.size()) return false;
  const uint32_t line = listing->instructions[index].ptx_line;
  if (line == 0 || !app.kernel || app.kernel->inst_of_line(line) == kNone) return false;
  app.select_ptx_line(line);
  return true;
}

nlohmann::json describe_sass(AppState& app) {
  const auto listing = sass_listing(app);
  if (!listing) return {{"status", app.kernel ? "compiling" : "no kernel"}, {"instruction_count", 0}};
  const SassFocus f = sass_focus(app);
  auto addresses = [&](const std::vector<size_t>& indices) {
    nlohmann::json a = nlohmann::json::array();
    for (size_t i : indices) a.push_back(listing->instructions[i].address);
    return a;
  };
  auto opcodes = [&](const std::vector<size_t>& indices) {
    nlohmann::json a = nlohmann::json::array();
    for (size_t i : indices) a.push_back(listing->instructions[i].opcode);
    return a;
  };
  const ptx::PtxasReport& r = listing->report;
  return {{"status", status_name(listing->status)},
          {"message", listing->message},
          {"arch", listing->arch},
          {"instruction_count", listing->instructions.size()},
          {"line_rows", listing->lines.rows.size()},
          {"registers", r.registers},
          {"smem_bytes", r.smem_bytes},
          {"stack_bytes", r.stack_bytes},
          {"spill_store_bytes", r.spill_store_bytes},
          {"spill_load_bytes", r.spill_load_bytes},
          {"local_memory_instructions", listing->local_memory_count()},
          {"current_line", f.current_line},
          {"current_addresses", addresses(f.current)},
          {"current_opcodes", opcodes(f.current)},
          {"selected_line", f.selected_line},
          {"selected_addresses", addresses(f.selected)},
          {"selected_opcodes", opcodes(f.selected)}};
}

}  // namespace gs::gui
