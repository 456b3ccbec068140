#include "gui/app/text_runs.hpp"

#include <algorithm>
#include <cmath>

namespace gs::gui {

namespace {

// A texture coordinate that lands on a texel edge: its texel index, or -1.
int texel_edge(float uv, int size) {
  const float t = uv * float(size);
  const float r = std::nearbyint(t);
  return std::fabs(t - r) < 1.0f / 64.0f && r >= 0.0f && r <= float(size) ? int(r) : -1;
}

// A position on a whole pixel: the pixel, or false.
bool whole(float p, int& out) {
  if (!(std::fabs(p) < 1.0e6f) || p != std::floor(p)) return false;
  out = int(p);
  return true;
}

uint64_t hash_key(const std::vector<int32_t>& key) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ key.size();
  for (const int32_t k : key) {
    h ^= uint32_t(k);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

}  // namespace

void TextRunCache::reset(CoverageAtlas atlas, int width, int height) {
  atlas_ = atlas;
  width_ = std::max(width, 0);
  height_ = std::max(height, 0);
  image_.resize(size_t(width_) * size_t(height_));
  clear_cache();
  dirty_.clear();  // the caller uploads the empty cache with the atlas
  stats_ = TextRunStats{};
}

void TextRunCache::clear_cache() {
  std::fill(image_.begin(), image_.end(), uint8_t(0));
  shelves_.clear();
  entries_.clear();
  next_shelf_y_ = 0;
  full_ = false;
  dirty_.assign(1, Rect{0, 0, width_, height_});
  ++stats_.clears;
}

void TextRunCache::begin_frame() {
  if (full_) clear_cache();
  stats_ = TextRunStats{.clears = stats_.clears};  // the rest counts this frame
}

bool TextRunCache::take_dirty(std::vector<Rect>& out) {
  out.clear();
  out.swap(dirty_);
  return !out.empty();
}

// ImFont::RenderText writes each glyph as four fresh vertices (top-left, top-right,
// bottom-right, bottom-left) and the indices v, v+1, v+2, v, v+2, v+3.
bool TextRunCache::glyph_quad(const ImDrawVert* vtx, const ImDrawIdx* six, Glyph& g) const {
  const ImDrawIdx v = six[0];
  if (six[1] != ImDrawIdx(v + 1) || six[2] != ImDrawIdx(v + 2) || six[3] != v || six[4] != ImDrawIdx(v + 2) ||
      six[5] != ImDrawIdx(v + 3))
    return false;
  const ImDrawVert &a = vtx[v], &b = vtx[v + 1], &c = vtx[v + 2], &d = vtx[v + 3];
  if (a.col != b.col || a.col != c.col || a.col != d.col) return false;
  if (a.pos.y != b.pos.y || c.pos.y != d.pos.y || a.pos.x != d.pos.x || b.pos.x != c.pos.x) return false;
  if (a.uv.y != b.uv.y || c.uv.y != d.uv.y || a.uv.x != d.uv.x || b.uv.x != c.uv.x) return false;
  if (!whole(a.pos.x, g.x0) || !whole(a.pos.y, g.y0) || !whole(c.pos.x, g.x1) || !whole(c.pos.y, g.y1)) return false;
  const int tx0 = texel_edge(a.uv.x, atlas_.width), ty0 = texel_edge(a.uv.y, atlas_.height);
  const int tx1 = texel_edge(c.uv.x, atlas_.width), ty1 = texel_edge(c.uv.y, atlas_.height);
  if (tx0 < 0 || ty0 < 0 || tx1 < 0 || ty1 < 0) return false;
  // One texel per pixel, same direction, and small enough for a run.
  const int w = g.x1 - g.x0, h = g.y1 - g.y0;
  if (w <= 0 || h <= 0 || tx1 - tx0 != w || ty1 - ty0 != h || w > kMaxHeight || h > kMaxHeight) return false;
  g.first = v;
  g.tx = tx0;
  g.ty = ty0;
  return true;
}

bool TextRunCache::joins(const Glyph& g, ImU32 col) const {
  if (col != run_col_ || g.x0 < run_.back().x0 || g.x0 - run_x1_ > kMaxGap) return false;
  if (g.y0 >= run_y1_ || g.y1 <= run_y0_) return false;  // not on the run's line
  const int x1 = std::max(run_x1_, g.x1);
  const int y0 = std::min(run_y0_, g.y0), y1 = std::max(run_y1_, g.y1);
  if (x1 - run_x0_ > width_ || y1 - y0 > kMaxHeight) return false;
  // No pixel may be inked by two glyphs of the run. Glyphs are at most kMaxHeight wide and
  // come in x order, so only the last few can reach this one.
  for (auto it = run_.rbegin(); it != run_.rend() && it->x0 + kMaxHeight > g.x0; ++it) {
    const int ox0 = std::max(it->x0, g.x0), ox1 = std::min(it->x1, g.x1);
    const int oy0 = std::max(it->y0, g.y0), oy1 = std::min(it->y1, g.y1);
    for (int y = oy0; y < oy1; ++y)
      for (int x = ox0; x < ox1; ++x) {
        const uint8_t p = atlas_.pixels[size_t(it->ty + y - it->y0) * size_t(atlas_.width) + size_t(it->tx + x - it->x0)];
        const uint8_t q = atlas_.pixels[size_t(g.ty + y - g.y0) * size_t(atlas_.width) + size_t(g.tx + x - g.x0)];
        if (p && q) return false;
      }
  }
  return true;
}

const TextRunCache::Entry* TextRunCache::place() {
  key_.clear();
  for (const Glyph& g : run_) {
    key_.insert(key_.end(), {g.tx, g.ty, g.x1 - g.x0, g.y1 - g.y0, g.x0 - run_x0_, g.y0 - run_y0_});
  }
  const uint64_t hash = hash_key(key_);
  if (const auto it = entries_.find(hash); it != entries_.end())
    return it->second.key == key_ ? &it->second : nullptr;  // a collision is drawn glyph by glyph
  if (full_) return nullptr;

  const int w = run_x1_ - run_x0_, h = run_y1_ - run_y0_;
  // Shelves of rows: a run goes on the first shelf at most a few rows taller with room left.
  Shelf* shelf = nullptr;
  for (Shelf& s : shelves_)
    if (s.h >= h && s.h <= h + 4 && s.used + w <= width_) {
      shelf = &s;
      break;
    }
  if (!shelf) {
    if (next_shelf_y_ + h > height_) {
      full_ = true;  // emptied at the start of the next frame
      return nullptr;
    }
    shelves_.push_back(Shelf{next_shelf_y_, h, 0});
    next_shelf_y_ += h;
    shelf = &shelves_.back();
  }
  Entry e{shelf->used, shelf->y, w, h, key_};
  shelf->used += w;

  // The cache is zero where nothing was placed, and no two glyphs of a run share an inked
  // pixel, so the larger of the two values is the one glyph's coverage.
  for (const Glyph& g : run_) {
    for (int y = 0; y < g.y1 - g.y0; ++y) {
      const uint8_t* src = atlas_.pixels + size_t(g.ty + y) * size_t(atlas_.width) + size_t(g.tx);
      uint8_t* dst = image_.data() + size_t(e.y + g.y0 - run_y0_ + y) * size_t(width_) + size_t(e.x + g.x0 - run_x0_);
      for (int x = 0; x < g.x1 - g.x0; ++x) dst[x] = std::max(dst[x], src[x]);
    }
  }
  // Runs go onto a shelf side by side, so this frame's runs on one shelf are one rectangle.
  const auto same_shelf = [&](const Rect& r) { return r.y == e.y; };
  if (const auto it = std::find_if(dirty_.begin(), dirty_.end(), same_shelf); it != dirty_.end()) {
    const int x1 = std::max(it->x + it->w, e.x + w);
    it->x = std::min(it->x, e.x);
    it->w = x1 - it->x;
    it->h = std::max(it->h, h);
  } else if (!(dirty_.size() == 1 && dirty_[0].w == width_ && dirty_[0].h == height_)) {  // not all of it already
    dirty_.push_back(Rect{e.x, e.y, w, h});
  }
  ++stats_.composed;
  return &entries_.emplace(hash, std::move(e)).first->second;
}

void TextRunCache::flush(ImDrawVert* vtx, std::vector<ImDrawIdx>& out, size_t& appended) {
  if (run_.empty()) return;
  const Entry* e = run_.size() >= 2 ? place() : nullptr;
  if (e) {
    const ImDrawIdx v = run_.front().first;
    const float u0 = float(e->x) / float(atlas_.width), u1 = float(e->x + e->w) / float(atlas_.width);
    const float v0 = float(atlas_.height + e->y) / float(atlas_.height);
    const float v1 = float(atlas_.height + e->y + e->h) / float(atlas_.height);
    const float x0 = float(run_x0_), y0 = float(run_y0_), x1 = float(run_x1_), y1 = float(run_y1_);
    vtx[v].pos = ImVec2(x0, y0);
    vtx[v].uv = ImVec2(u0, v0);
    vtx[v + 1].pos = ImVec2(x1, y0);
    vtx[v + 1].uv = ImVec2(u1, v0);
    vtx[v + 2].pos = ImVec2(x1, y1);
    vtx[v + 2].uv = ImVec2(u1, v1);
    vtx[v + 3].pos = ImVec2(x0, y1);
    vtx[v + 3].uv = ImVec2(u0, v1);
    out.insert(out.end(), {v, ImDrawIdx(v + 1), ImDrawIdx(v + 2), v, ImDrawIdx(v + 2), ImDrawIdx(v + 3)});
    appended += 6;
    stats_.merged_glyphs += run_.size();
    ++stats_.runs;
  } else {
    for (const Glyph& g : run_) {
      const ImDrawIdx v = g.first;
      out.insert(out.end(), {v, ImDrawIdx(v + 1), ImDrawIdx(v + 2), v, ImDrawIdx(v + 2), ImDrawIdx(v + 3)});
      appended += 6;
    }
  }
  run_.clear();
}

size_t TextRunCache::rewrite(ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles, std::vector<ImDrawIdx>& out) {
  size_t appended = 0;
  run_.clear();
  unsigned t = 0;
  while (t < triangles) {
    Glyph g{};
    if (width_ > 0 && t + 1 < triangles && glyph_quad(vtx, idx + 3 * size_t(t), g)) {
      ++stats_.glyphs;
      const ImU32 col = vtx[g.first].col;
      if (!run_.empty() && !joins(g, col)) flush(vtx, out, appended);
      if (run_.empty()) {
        run_col_ = col;
        run_x0_ = g.x0;
        run_y0_ = g.y0;
        run_x1_ = g.x1;
        run_y1_ = g.y1;
      } else {
        run_x1_ = std::max(run_x1_, g.x1);
        run_y0_ = std::min(run_y0_, g.y0);
        run_y1_ = std::max(run_y1_, g.y1);
      }
      run_.push_back(g);
      t += 2;
      continue;
    }
    flush(vtx, out, appended);
    out.insert(out.end(), idx + 3 * size_t(t), idx + 3 * size_t(t) + 3);
    appended += 3;
    ++t;
  }
  flush(vtx, out, appended);
  return appended;
}

}  // namespace gs::gui
