#include "gui/app/damage.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace gs::gui {

namespace {

PixelRect bounding(const PixelRect& a, const PixelRect& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

// Above this many pieces, each tile row's changed tiles are first taken as one span (a frame
// that changes that much is nearly a full redraw anyway, and the pairwise merge below grows
// with the cube of the count).
constexpr size_t kRowSpansAbove = 32;

}  // namespace

void DamageTracker::begin(int width, int height, uint64_t seed) {
  if (width != width_ || height != height_) {
    width_ = std::max(0, width);
    height_ = std::max(0, height);
    cols_ = (width_ + kTile - 1) / kTile;
    rows_ = (height_ + kTile - 1) / kTile;
    last_.assign(size_t(cols_) * size_t(rows_), 0);
    all_ = true;
  }
  now_.assign(size_t(cols_) * size_t(rows_), seed);
}

void DamageTracker::add(float x0, float y0, float x1, float y1, uint64_t h) {
  // Pixel (i, j) covers [i, i + 1) x [j, j + 1); the box touches pixels floor(x0)..floor(x1).
  if (!(x0 <= x1 && y0 <= y1)) return;  // empty (or NaN)
  if (x1 < 0.0f || y1 < 0.0f || x0 >= float(width_) || y0 >= float(height_)) return;
  const auto tile = [](float v, int last) {
    const int t = int(std::floor(std::max(v, 0.0f))) / kTile;
    return std::min(t, last);
  };
  const int c0 = tile(x0, cols_ - 1), c1 = tile(x1, cols_ - 1);
  const int r0 = tile(y0, rows_ - 1), r1 = tile(y1, rows_ - 1);
  for (int r = r0; r <= r1; ++r) {
    uint64_t* row = now_.data() + size_t(r) * size_t(cols_);
    for (int c = c0; c <= c1; ++c) row[c] = damage_mix(row[c], h);
  }
}

const std::vector<PixelRect>& DamageTracker::finish() {
  std::vector<uint8_t> dirty(now_.size(), 0);
  dirty_tiles_ = 0;
  for (size_t t = 0; t < now_.size(); ++t) {
    dirty[t] = all_ || now_[t] != last_[t];
    dirty_tiles_ += dirty[t];
  }
  last_.swap(now_);
  all_ = false;
  build_rects(dirty);
  limit_rects();
  // Tile units to pixels, the last row and column clipped to the framebuffer.
  for (PixelRect& r : rects_) {
    r = {r.x0 * kTile, r.y0 * kTile, std::min(r.x1 * kTile, width_), std::min(r.y1 * kTile, height_)};
  }
  return rects_;
}

long long DamageTracker::drawn_pixels() const {
  long long n = 0;
  for (const PixelRect& r : rects_) n += r.area();
  return n;
}

// Runs of changed tiles in each row, stacked into one rectangle while rows below repeat the
// same run (in tile units).
void DamageTracker::build_rects(const std::vector<uint8_t>& dirty) {
  rects_.clear();
  std::vector<size_t> open;  // rects_ that end at the previous row
  for (int r = 0; r < rows_; ++r) {
    std::vector<size_t> now_open;
    const uint8_t* row = dirty.data() + size_t(r) * size_t(cols_);
    for (int c = 0; c < cols_;) {
      if (!row[c]) {
        ++c;
        continue;
      }
      int e = c;
      while (e < cols_ && row[e]) ++e;
      auto same = std::find_if(open.begin(), open.end(), [&](size_t i) { return rects_[i].x0 == c && rects_[i].x1 == e; });
      if (same != open.end()) {
        rects_[*same].y1 = r + 1;
        now_open.push_back(*same);
      } else {
        rects_.push_back({c, r, e, r + 1});
        now_open.push_back(rects_.size() - 1);
      }
      c = e;
    }
    open.swap(now_open);
  }
}

// Merges rectangles until at most kMaxRects remain, each time the pair whose bounding box
// (with every rectangle that box then overlaps, so that they stay disjoint: a pixel drawn
// twice would be blended twice) adds the fewest tiles that did not change.
void DamageTracker::limit_rects() {
  if (rects_.size() > kRowSpansAbove) {
    std::vector<PixelRect> spans;
    for (const PixelRect& r : rects_) {
      for (int y = r.y0; y < r.y1; ++y) {
        auto it = std::find_if(spans.begin(), spans.end(), [&](const PixelRect& s) { return s.y0 == y; });
        if (it == spans.end()) spans.push_back({r.x0, y, r.x1, y + 1});
        else *it = bounding(*it, {r.x0, y, r.x1, y + 1});
      }
    }
    std::sort(spans.begin(), spans.end(), [](const PixelRect& a, const PixelRect& b) { return a.y0 < b.y0; });
    rects_.clear();
    for (const PixelRect& s : spans) {
      if (!rects_.empty() && rects_.back().y1 == s.y0 && rects_.back().x0 == s.x0 && rects_.back().x1 == s.x1)
        rects_.back().y1 = s.y1;
      else rects_.push_back(s);
    }
  }
  // The pair (i, j) merged: its box grown over everything it overlaps; returns the box and the
  // indices it swallows.
  auto merged = [&](size_t i, size_t j, std::vector<size_t>& taken) {
    PixelRect box = bounding(rects_[i], rects_[j]);
    taken.assign({i, j});
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < rects_.size(); ++k) {
        if (std::find(taken.begin(), taken.end(), k) != taken.end() || !box.intersects(rects_[k])) continue;
        box = bounding(box, rects_[k]);
        taken.push_back(k);
        grew = true;
      }
    }
    return box;
  };
  std::vector<size_t> taken, best_taken;
  while (rects_.size() > kMaxRects) {
    long long best_waste = std::numeric_limits<long long>::max();
    PixelRect best_box;
    for (size_t i = 0; i < rects_.size(); ++i) {
      for (size_t j = i + 1; j < rects_.size(); ++j) {
        const PixelRect box = merged(i, j, taken);
        long long waste = box.area();
        for (size_t k : taken) waste -= rects_[k].area();
        if (waste < best_waste) {
          best_waste = waste;
          best_box = box;
          best_taken = taken;
        }
      }
    }
    std::sort(best_taken.begin(), best_taken.end());
    for (size_t n = best_taken.size(); n-- > 0;) rects_.erase(rects_.begin() + std::ptrdiff_t(best_taken[n]));
    rects_.push_back(best_box);
  }
}

}  // namespace gs::gui
