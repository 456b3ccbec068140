#include "gui/core/picture.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "gui/core/app_state.hpp"
#include "gui/core/playback.hpp"
#include "gui/core/svg_picture.hpp"
#include "run/output_file.hpp"

namespace gs::gui {

std::vector<std::string> svg_pictures_of(ViewId v) {
  if (v == ViewId::fragments) return {"fragment map"};
  if (v == ViewId::shared_memory) return {"banks", "swizzle grid"};
  if (v == ViewId::tmem) return {"tensor memory"};
  if (v == ViewId::tiling) return {"CTA tile"};
  if (v == ViewId::gpu) return {"card"};
  if (v == ViewId::memory) return {"hierarchy"};
  return {};
}

std::string view_svg(AppState& app, ViewId v, size_t index) {
  const std::vector<std::string> parts = svg_pictures_of(v);
  if (index >= parts.size())
    throw std::runtime_error(fmt::format("the {} view has no SVG picture {}", view_name(v), index));
  if (v == ViewId::fragments) {
    FragmentGrid g;
    try {
      g = fragment_grid(app.kernel.get(), app.fragment_view);
    } catch (const std::exception& e) {
      throw std::runtime_error(e.what());
    }
    return fragment_svg(g, app.fragment_view.color_by_thread);
  }
  const Snapshot* s = app.snapshot();
  if (!app.kernel || !s)
    throw std::runtime_error(fmt::format("no kernel is loaded: the {} view has nothing to draw", view_name(v)));
  if (v == ViewId::gpu) {
    const GpuData& d = gpu_data(app.kernel);
    if (!d.available) throw std::runtime_error(fmt::format("the {} view has nothing to draw ({})", view_name(v), d.note));
    const kernels::GemmShape& shape = app.kernel->report.shape;
    return to_svg(gpu_drawing(d, fmt::format("{} at {}x{}x{}, CTA {} traced", app.kernel->info->id, shape.m, shape.n,
                                             shape.k, d.traced_cta)));
  }
  if (v == ViewId::memory) {
    const MemoryData d = memory_data(app);
    if (!d.available) throw std::runtime_error(fmt::format("the {} view has nothing to draw ({})", view_name(v), d.note));
    return to_svg(memory_drawing(d));
  }
  if (v == ViewId::tiling) {
    const TilingData& d = tiling_data(app.kernel);
    if (!d.available || d.owner_warp.empty())
      throw std::runtime_error(fmt::format("{}: the {} view has no tile to draw ({}{})", app.kernel->info->id,
                                           view_name(v), d.note, d.owners_note));
    return to_svg(tiling_drawing(d, tiling_cursor(app, d), fmt::format("{} at event {}", app.kernel->info->id,
                                                                       app.playback.position)));
  }
  if (v == ViewId::tmem) {
    const TmemHistory* h = tmem_history_shown(app.kernel, app.tmem_view);
    if (!h || !h->used())
      throw std::runtime_error(fmt::format("{} does not use tensor memory: the {} view has nothing to draw",
                                           app.kernel->info->id, view_name(v)));
    const TmemState st = tmem_state(*h, *s);
    return to_svg(tmem_drawing(*h, st, fmt::format("{} at event {} (cycle {})", app.kernel->info->id, st.position, st.cycle)));
  }
  const BankAccess access = current_access(*app.kernel, *s, app.smem_view);
  if (index == 0) return bank_svg(access);
  return swizzle_svg(swizzle_grid_for(*app.kernel, *s, app.smem_view, access));
}

std::string expand_home(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (home && *home && (path == "~" || path.rfind("~/", 0) == 0)) return std::string(home) + path.substr(1);
  return path;
}

std::string default_picture_path(const std::string& folder, std::string_view what, PictureFormat f) {
  std::filesystem::path dir = folder;
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    dir = home && *home ? home : ".";
  }
  return (dir / fmt::format("gemmscope-{}.{}", what, f == PictureFormat::svg ? "svg" : "png")).string();
}

bool save_picture(AppState& app, const std::string& path, std::string_view bytes) {
  const std::string target = expand_home(path);
  try {
    run::write_output_file(target, bytes, "Save picture");
  } catch (const std::exception& e) {
    app.add_problem({Severity::error, "app", "picture", "picture not saved", e.what()});
    return false;
  }
  return true;
}

}  // namespace gs::gui
