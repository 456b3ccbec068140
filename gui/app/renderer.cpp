#include "gui/app/renderer.hpp"

#include "gui/widgets/raster_image.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

// Core 3.3 entry points straight from libGL (Mesa and GLVND export them all); the app links
// OpenGL::GL and creates a 3.3 core context before init().
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

namespace gs::gui {

namespace {

// A run covering fewer pixels than this is drawn with a neighbour's more general program
// rather than a call of its own: below it the call costs llvmpipe more than the cheaper
// program saves (about 1-3 ns a pixel against tens of microseconds a call).
constexpr float kFoldArea = 8192.0f;

// The text-run cache below the font atlas: 4 MiB of R8, room for a few thousand runs (a frame
// shows a few hundred); when it fills up it is emptied and filled again.
constexpr int kTextCacheWidth = 2048;
constexpr int kTextCacheHeight = 2048;

const char* const kVertexTextured = R"(#version 330 core
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv;
layout(location = 2) in vec4 color;
uniform mat4 projection;
uniform vec2 uv_scale;
out vec2 frag_uv;
out vec4 frag_color;
void main() {
  frag_uv = uv * uv_scale;
  frag_color = color;
  gl_Position = projection * vec4(position, 0.0, 1.0);
}
)";

const char* const kFragmentTextured = R"(#version 330 core
in vec2 frag_uv;
in vec4 frag_color;
uniform sampler2D atlas;
layout(location = 0) out vec4 out_color;
void main() { out_color = frag_color * texture(atlas, frag_uv); }
)";

// Fills: the uv would only ever point at the atlas's white pixel, so neither it nor the
// texture is read. Opaque fills use this program too, with blending off; their colour is
// interpolated although it is constant, because llvmpipe draws a rectangle with a flat
// ("flat in") input as two triangles, never as a rectangle (renderer.hpp).
const char* const kVertexPlain = R"(#version 330 core
layout(location = 0) in vec2 position;
layout(location = 2) in vec4 color;
uniform mat4 projection;
out vec4 frag_color;
void main() {
  frag_color = color;
  gl_Position = projection * vec4(position, 0.0, 1.0);
}
)";

const char* const kFragmentPlain = R"(#version 330 core
in vec4 frag_color;
layout(location = 0) out vec4 out_color;
void main() { out_color = frag_color; }
)";

// The kept frame to the window: a texture fetch and nothing else, drawn without blending
// through nearest sampling at one texel per pixel, which llvmpipe (lp_linear_fastpath.c,
// LP_FS_KIND_BLIT_RGBA) recognises and copies row by row instead of shading; glBlitFramebuffer
// went through a shaded quad, 25 million instructions for 1600x1000.
const char* const kVertexCopy = R"(#version 330 core
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv;
uniform mat4 projection;
out vec2 frag_uv;
void main() {
  frag_uv = uv;
  gl_Position = projection * vec4(position, 0.0, 1.0);
}
)";

const char* const kFragmentCopy = R"(#version 330 core
in vec2 frag_uv;
uniform sampler2D frame;
layout(location = 0) out vec4 out_color;
void main() { out_color = texture(frame, frag_uv); }
)";

std::string info_log(GLuint object, bool program) {
  GLint length = 0;
  if (program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(size_t(length > 1 ? length : 1), '\0');
  if (program) glGetProgramInfoLog(object, length, nullptr, log.data());
  else glGetShaderInfoLog(object, length, nullptr, log.data());
  return log;
}

GLuint compile(GLenum type, const char* source, std::string& error) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    error = "a shader does not compile: " + info_log(shader, false);
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

GLuint link(const char* vertex, const char* fragment, std::string& error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex, error);
  const GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, fragment, error) : 0;
  if (!fs) {
    if (vs) glDeleteShader(vs);
    return 0;
  }
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    error = "a shader program does not link: " + info_log(program, true);
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

// Orthographic projection of a display rectangle (y down, as ImGui's) onto clip space.
std::array<float, 16> ortho(float l, float r, float t, float b) {
  return {2.0f / (r - l), 0, 0, 0, 0, 2.0f / (t - b), 0, 0, 0, 0, -1.0f, 0, (r + l) / (l - r), (t + b) / (b - t), 0, 1.0f};
}

float triangle_area(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c) {
  const float cross = (b.pos.x - a.pos.x) * (c.pos.y - a.pos.y) - (c.pos.x - a.pos.x) * (b.pos.y - a.pos.y);
  return 0.5f * (cross < 0 ? -cross : cross);
}

}  // namespace

DrawKind triangle_draw_kind(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c, ImVec2 white_uv) {
  auto at_white = [white_uv](const ImDrawVert& v) { return v.uv.x == white_uv.x && v.uv.y == white_uv.y; };
  if (!at_white(a) || !at_white(b) || !at_white(c)) return DrawKind::texture;
  constexpr ImU32 kAlpha = ImU32(0xFF) << IM_COL32_A_SHIFT;
  return a.col == b.col && a.col == c.col && (a.col & kAlpha) == kAlpha ? DrawKind::opaque : DrawKind::solid;
}

void split_draw_runs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles, ImVec2 white_uv,
                     std::vector<DrawRun>& out) {
  out.clear();
  auto merge = [](DrawRun& into, const DrawRun& run) {
    into.count += run.count;
    into.area += run.area;
  };
  // Runs of one kind, each folded on arrival: a small run joins a more general run before it,
  // or a small run before it is raised to this run's kind (and may then join the one before).
  // Drawing a fill with the textured program, or an opaque fill blended, gives the same pixels,
  // so folding only ever generalises.
  auto push = [&](const DrawRun& run) {
    if (!out.empty()) {
      DrawRun& prev = out.back();
      if (prev.kind == run.kind || (run.kind < prev.kind && run.area < kFoldArea)) {
        merge(prev, run);
        return;
      }
      if (prev.kind < run.kind && prev.area < kFoldArea) {
        prev.kind = run.kind;
        merge(prev, run);
        if (out.size() >= 2 && out[out.size() - 2].kind == prev.kind) {
          merge(out[out.size() - 2], prev);
          out.pop_back();
        }
        return;
      }
    }
    out.push_back(run);
  };
  DrawRun current{DrawKind::opaque, 0, 0, 0.0f};
  for (unsigned t = 0; t < triangles; ++t) {
    const ImDrawVert& a = vtx[idx[3 * t]];
    const ImDrawVert& b = vtx[idx[3 * t + 1]];
    const ImDrawVert& c = vtx[idx[3 * t + 2]];
    const DrawKind kind = triangle_draw_kind(a, b, c, white_uv);
    const float area = triangle_area(a, b, c);
    if (current.count > 0 && current.kind != kind) {
      push(current);
      current = DrawRun{kind, t, 0, 0.0f};
    }
    current.kind = kind;
    current.count += 1;
    current.area += area;
  }
  if (current.count > 0) push(current);
}

namespace {

// Whether triangles t and t + 1 of `idx` are the two halves of one axis-aligned rectangle:
// four distinct corners between them, each at a corner of their bounding box.
bool rect_pair(const ImDrawVert* vtx, const ImDrawIdx* idx) {
  ImVec2 p[6];
  for (int k = 0; k < 6; ++k) p[k] = vtx[idx[k]].pos;
  float x0 = p[0].x, x1 = p[0].x, y0 = p[0].y, y1 = p[0].y;
  for (const ImVec2& q : p) {
    x0 = std::min(x0, q.x);
    x1 = std::max(x1, q.x);
    y0 = std::min(y0, q.y);
    y1 = std::max(y1, q.y);
  }
  if (x0 == x1 || y0 == y1) return false;
  unsigned corners = 0;  // bit (2 * at_right + at_bottom) per corner seen
  for (int k = 0; k < 6; ++k) {
    const bool left = p[k].x == x0, right = p[k].x == x1, top = p[k].y == y0, bottom = p[k].y == y1;
    if (!(left || right) || !(top || bottom)) return false;
    corners |= 1u << (2 * unsigned(right) + unsigned(bottom));
  }
  // Each triangle has three distinct corners (else it has no area), and together all four.
  auto distinct = [&](int k) { return idx[k] != idx[k + 1] && idx[k] != idx[k + 2] && idx[k + 1] != idx[k + 2]; };
  return corners == 0xF && distinct(0) && distinct(3);
}

}  // namespace

unsigned align_rect_pairs(const ImDrawVert* vtx, const ImDrawIdx* idx, unsigned triangles,
                          std::vector<ImDrawIdx>& out) {
  const size_t start = out.size();
  auto pad = [&] { out.insert(out.end(), 3, idx[0]); };  // zero area: culled, never drawn
  for (unsigned t = 0; t < triangles;) {
    if (t + 1 < triangles && rect_pair(vtx, idx + 3 * t)) {
      if ((out.size() - start) / 3 % 2 == 1) pad();
      out.insert(out.end(), idx + 3 * t, idx + 3 * t + 6);
      t += 2;
    } else {
      out.insert(out.end(), idx + 3 * t, idx + 3 * t + 3);
      t += 1;
    }
  }
  if ((out.size() - start) / 3 % 2 == 1) pad();
  return unsigned((out.size() - start) / 3);
}

bool Renderer::upload_font_atlas() {
  // The atlas as RGBA (1, 1, 1, coverage), as ImGui's own back end uploads it: llvmpipe's
  // 8-bit rectangle path samples only RGBA/BGRA textures without a swizzle (renderer.hpp), so
  // a one-channel texture read through a swizzle, a quarter of the memory, costs more. Nearest:
  // glyphs sit on whole pixels at one texel per pixel (theme.cpp: OversampleH 1, PixelSnapH),
  // where linear filtering would read the same texel at a higher price. Below the atlas, in
  // the same texture so that text and fills keep sharing draw calls, lies the cache of
  // composed text runs (text_runs.hpp), kept on the CPU as coverage and widened on upload.
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &width, &height);
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  const int texture_width = std::max(width, std::min(kTextCacheWidth, int(max_size)));
  const int cache_height = std::max(0, std::min(kTextCacheHeight, int(max_size) - height));
  const int texture_height = height + cache_height;
  text_runs_.reset(CoverageAtlas{pixels, width, height}, texture_width, cache_height);
  font_uv_scale_ = ImVec2(float(width) / float(texture_width), float(height) / float(texture_height));
  std::vector<unsigned char> coverage(size_t(texture_width) * size_t(texture_height), 0);
  for (int y = 0; y < height; ++y)
    std::copy_n(pixels + size_t(y) * size_t(width), size_t(width), coverage.data() + size_t(y) * size_t(texture_width));
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  font_texture_ = new_pixel_texture();
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, texture_width, texture_height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               white_with_alpha(coverage.data(), texture_width, texture_height, size_t(texture_width)));
  rgba_ = {};  // ~20 MB for the whole texture; frames widen only the cache rows they change
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(intptr_t(font_texture_)));
  ++atlas_generation_;  // every tile drawn with the old atlas is stale (render's damage seed)
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error_ = "OpenGL error " + std::to_string(e) + " while uploading the font atlas";
    return false;
  }
  return true;
}

bool Renderer::reload_fonts() {
  error_.clear();
  return upload_font_atlas();
}

bool Renderer::init() {
  error_.clear();
  const char* vertex[3] = {kVertexPlain, kVertexTextured, kVertexCopy};
  const char* fragment[3] = {kFragmentPlain, kFragmentTextured, kFragmentCopy};
  for (int k = 0; k < 3; ++k) {
    program_[k] = link(vertex[k], fragment[k], error_);
    if (!program_[k]) {
      shutdown();
      return false;
    }
    projection_loc_[k] = glGetUniformLocation(program_[k], "projection");
  }
  const GLuint textured = program_[1];
  glUseProgram(textured);
  glUniform1i(glGetUniformLocation(textured, "atlas"), 0);
  glUseProgram(program_[2]);
  glUniform1i(glGetUniformLocation(program_[2], "frame"), 0);

  uv_scale_loc_ = glGetUniformLocation(textured, "uv_scale");

  if (!upload_font_atlas()) {
    shutdown();
    return false;
  }

  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glGenBuffers(1, &ebo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glEnableVertexAttribArray(0);
  glEnableVertexAttribArray(1);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), reinterpret_cast<void*>(offsetof(ImDrawVert, pos)));
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), reinterpret_cast<void*>(offsetof(ImDrawVert, uv)));
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ImDrawVert), reinterpret_cast<void*>(offsetof(ImDrawVert, col)));
  glBindVertexArray(0);

  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "gemmscope_opengl33";
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // glDrawElementsBaseVertex
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error_ = "OpenGL error " + std::to_string(e) + " while setting up buffers, the font atlas or the vertex layout";
    shutdown();
    return false;
  }
  return true;
}

const unsigned char* Renderer::white_with_alpha(const unsigned char* coverage, int width, int height, size_t stride) {
  rgba_.resize(4 * size_t(width) * size_t(height));
  unsigned char* out = rgba_.data();
  for (int y = 0; y < height; ++y) {
    const unsigned char* row = coverage + size_t(y) * stride;
    for (int x = 0; x < width; ++x, out += 4) {
      out[0] = out[1] = out[2] = 255;
      out[3] = row[x];
    }
  }
  return rgba_.data();
}

void Renderer::shutdown() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (ebo_) glDeleteBuffers(1, &ebo_);
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  if (frame_fbo_) glDeleteFramebuffers(1, &frame_fbo_);
  if (frame_texture_) glDeleteTextures(1, &frame_texture_);
  frame_fbo_ = frame_texture_ = 0;
  frame_width_ = frame_height_ = 0;
  for (unsigned& program : program_)
    if (program) glDeleteProgram(program);
  vao_ = vbo_ = ebo_ = font_texture_ = 0;
  program_[0] = program_[1] = program_[2] = 0;
  if (ImGui::GetCurrentContext()) ImGui::GetIO().Fonts->SetTexID(nullptr);
}

void Renderer::set_image_version(ImTextureID texture, uint64_t version) {
  for (auto& [id, v] : image_versions_) {
    if (id == texture) {
      v = version;
      return;
    }
  }
  image_versions_.push_back({texture, version});
}

bool Renderer::keep_framebuffer(int w, int h) {
  if (frame_fbo_ && frame_width_ == w && frame_height_ == h) return true;
  if (!frame_fbo_) glGenFramebuffers(1, &frame_fbo_);
  if (!frame_texture_) frame_texture_ = new_pixel_texture();
  glBindTexture(GL_TEXTURE_2D, frame_texture_);
  // BGRA data makes Mesa store it as B8G8R8A8, the one format llvmpipe copies to the window
  // with a memcpy (copy_frame).
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
  glBindFramebuffer(GL_FRAMEBUFFER, frame_fbo_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, frame_texture_, 0);
  const bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  frame_width_ = ok ? w : 0;
  frame_height_ = ok ? h : 0;
  damage_.invalidate();  // the new texture holds nothing yet
  return ok;
}

void Renderer::prepare_draws(const ImDrawList* list, ListCopy& copy, int fb_height, bool top_down, ImVec2 clip_off,
                             ImVec2 clip_scale) {
  const ImTextureID font_id = ImGui::GetIO().Fonts->TexID;
  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
  copy.draw_idx.clear();
  copy.draws.clear();
  for (int c = 0; c < list->CmdBuffer.Size; ++c) {
    const ImDrawCmd& cmd = list->CmdBuffer[c];
    if (cmd.UserCallback) {
      copy.draws.push_back(Draw{c, DrawKind::texture, 0, 0, {}});
      continue;
    }
    // The clip rectangle as the scissor box OpenGL gets (y up, or down for the kept frame,
    // which is drawn upside down: copy_frame); commands that clip everything away draw nothing.
    const float x0 = (cmd.ClipRect.x - clip_off.x) * clip_scale.x;
    const float y0 = (cmd.ClipRect.y - clip_off.y) * clip_scale.y;
    const float x1 = (cmd.ClipRect.z - clip_off.x) * clip_scale.x;
    const float y1 = (cmd.ClipRect.w - clip_off.y) * clip_scale.y;
    if (x1 <= x0 || y1 <= y0) continue;
    ++stats_.commands;
    const int sx = int(x0), sy = top_down ? int(y0) : int(float(fb_height) - y1);
    const PixelRect scissor{sx, sy, sx + int(x1 - x0), sy + int(y1 - y0)};
    const ImDrawVert* vtx = copy.vtx.data() + cmd.VtxOffset;
    const ImDrawIdx* idx = copy.idx.data() + copy.first[size_t(c)];
    const unsigned triangles = unsigned(copy.count[size_t(c)] / 3);
    auto add = [&](DrawKind kind, unsigned first, unsigned count) {
      const size_t start = copy.draw_idx.size();
      const unsigned drawn = align_rect_pairs(vtx, idx + 3 * size_t(first), count, copy.draw_idx);
      copy.draws.push_back(Draw{c, kind, start, 3 * size_t(drawn), scissor});
    };
    if (cmd.TextureId != font_id) {  // an image: only the textured program shows it
      add(DrawKind::texture, 0, triangles);
      continue;
    }
    split_draw_runs(vtx, idx, triangles, white, runs_);
    for (const DrawRun& run : runs_) add(run.kind, run.first, run.count);
  }
}

bool Renderer::hash_draws(const ImDrawData* data) {
  const ImTextureID font_id = ImGui::GetIO().Fonts->TexID;
  const ImVec2 off = data->DisplayPos, scale = data->FramebufferScale;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    const ListCopy& copy = lists_[size_t(n)];
    for (const Draw& d : copy.draws) {
      const ImDrawCmd& cmd = list->CmdBuffer[d.cmd];
      if (cmd.UserCallback) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) continue;
        return false;
      }
      // What the draw's pixels depend on besides its vertices: program and blending, texture
      // (an image's content by its version; the font texture's atlas never changes, and a
      // run's texels in the cache below it stay as composed until the cache is emptied, when
      // the runs move and so their uvs change) and scissor.
      uint64_t version = frame_;  // unknown images: drawn every frame
      if (cmd.TextureId == font_id) version = 0;
      for (const auto& [id, v] : image_versions_)
        if (id == cmd.TextureId) version = v;
      uint64_t state = damage_mix(uint64_t(d.kind), uint64_t(reinterpret_cast<intptr_t>(cmd.TextureId)));
      state = damage_mix(state, version);
      state = damage_mix(state, uint64_t(uint32_t(d.scissor.x0)) << 32 | uint32_t(d.scissor.y0));
      state = damage_mix(state, uint64_t(uint32_t(d.scissor.x1)) << 32 | uint32_t(d.scissor.y1));
      const ImDrawVert* vtx = copy.vtx.data() + cmd.VtxOffset;
      const ImDrawIdx* idx = copy.draw_idx.data() + d.first;
      for (size_t t = 0; t < d.count; t += 3) {
        const ImDrawIdx i0 = idx[t], i1 = idx[t + 1], i2 = idx[t + 2];
        if (i0 == i1 && i1 == i2) continue;  // align_rect_pairs' padding: no pixels
        uint64_t h = state;
        float x0 = vtx[i0].pos.x, x1 = x0, y0 = vtx[i0].pos.y, y1 = y0;
        for (const ImDrawIdx i : {i0, i1, i2}) {
          const ImDrawVert& v = vtx[i];
          uint64_t pos = 0, uv = 0;
          std::memcpy(&pos, &v.pos, sizeof pos);
          std::memcpy(&uv, &v.uv, sizeof uv);
          h = damage_mix(damage_mix(damage_mix(h, pos), uv), v.col);
          x0 = std::min(x0, v.pos.x);
          x1 = std::max(x1, v.pos.x);
          y0 = std::min(y0, v.pos.y);
          y1 = std::max(y1, v.pos.y);
        }
        // To pixels of the kept frame (y down, as ImGui's), a pixel wider each way than the
        // rasterizer can reach, then clipped by the scissor.
        const float fx0 = std::max((x0 - off.x) * scale.x - 1.0f, float(d.scissor.x0));
        const float fx1 = std::min((x1 - off.x) * scale.x + 1.0f, float(d.scissor.x1 - 1));
        const float fy0 = std::max((y0 - off.y) * scale.y - 1.0f, float(d.scissor.y0));
        const float fy1 = std::min((y1 - off.y) * scale.y + 1.0f, float(d.scissor.y1 - 1));
        damage_.add(fx0, fy0, fx1, fy1, h);
      }
    }
  }
  return true;
}

void Renderer::render(const ImDrawData* data, ImVec4 clear) {
  stats_ = RenderStats{};
  ++frame_;
  if (!data || !vao_) return;
  const int fb_width = int(data->DisplaySize.x * data->FramebufferScale.x);
  const int fb_height = int(data->DisplaySize.y * data->FramebufferScale.y);
  if (fb_width <= 0 || fb_height <= 0) return;

  // First every list's geometry with text as runs, which may compose new runs into the cache;
  // then the cache's changed rows go up; then each list's draw calls.
  const ImTextureID font_id = ImGui::GetIO().Fonts->TexID;
  const bool runs_on = text_runs_on_ && text_runs_.width() > 0;
  text_runs_.begin_frame();
  if (lists_.size() < size_t(data->CmdListsCount)) lists_.resize(size_t(data->CmdListsCount));
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    ListCopy& copy = lists_[size_t(n)];
    copy.vtx.assign(list->VtxBuffer.Data, list->VtxBuffer.Data + list->VtxBuffer.Size);
    copy.idx.clear();
    copy.first.clear();
    copy.count.clear();
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      copy.first.push_back(copy.idx.size());
      const ImDrawIdx* idx = list->IdxBuffer.Data + cmd.IdxOffset;
      if (!cmd.UserCallback && runs_on && cmd.TextureId == font_id) {
        copy.count.push_back(text_runs_.rewrite(copy.vtx.data() + cmd.VtxOffset, idx, cmd.ElemCount / 3, copy.idx));
      } else {
        copy.idx.insert(copy.idx.end(), idx, idx + cmd.ElemCount);
        copy.count.push_back(cmd.ElemCount);
      }
    }
  }
  stats_.text = text_runs_.stats();
  glBindTexture(GL_TEXTURE_2D, font_texture_);
  if (text_runs_.take_dirty(cache_dirty_)) {
    const int atlas_height = ImGui::GetIO().Fonts->TexHeight;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    for (const TextRunCache::Rect& r : cache_dirty_) {
      const size_t stride = size_t(text_runs_.width());
      const unsigned char* first = text_runs_.image() + size_t(r.y) * stride + size_t(r.x);
      glTexSubImage2D(GL_TEXTURE_2D, 0, r.x, atlas_height + r.y, r.w, r.h, GL_RGBA, GL_UNSIGNED_BYTE,
                      white_with_alpha(first, r.w, r.h, stride));
    }
  }
  // Where to draw: into the kept frame, then copied to the window; with damage tracking only
  // its changed tiles. (Straight into the window, all of it, if OpenGL has no framebuffer for
  // it.) The kept frame is drawn upside down (copy_frame), where OpenGL's rule for pixels whose
  // centre lies on a horizontal edge picks the other side: a few pixels at window corners, where
  // two border strips meet, come out unlike in the window; the same whether damage tracking is
  // on or off.
  const bool kept = keep_framebuffer(fb_width, fb_height);
  const bool damage = kept && damage_on_;
  for (int n = 0; n < data->CmdListsCount; ++n)
    prepare_draws(data->CmdLists[n], lists_[size_t(n)], fb_height, kept, data->DisplayPos, data->FramebufferScale);
  full_.assign(1, PixelRect{0, 0, fb_width, fb_height});
  const std::vector<PixelRect>* rects = &full_;
  if (damage) {
    uint64_t seed = damage_mix(uint64_t(fb_width) << 32 | uint32_t(fb_height), 0);
    for (const float c : {clear.x, clear.y, clear.z, clear.w, data->DisplayPos.x, data->DisplayPos.y})
      seed = damage_mix(seed, std::bit_cast<uint32_t>(c));
    seed = damage_mix(seed, atlas_generation_);
    damage_.begin(fb_width, fb_height, seed);
    if (!hash_draws(data)) damage_.invalidate();
    // The emptied text-run cache is filled again from its start, so a run of other text can
    // land where a run of the last frame was, and be drawn by the same quad: its uvs alone do
    // not tell that the texels changed. (Rare: the cache holds thousands of runs.)
    if (text_runs_.stats().clears != cache_clears_) damage_.invalidate();
    cache_clears_ = text_runs_.stats().clears;
    rects = &damage_.finish();
    stats_.tiles = damage_.tiles();
    stats_.dirty_tiles = damage_.dirty_tiles();
    stats_.drawn_pixels = damage_.drawn_pixels();
  } else {
    stats_.tiles = stats_.dirty_tiles = 1;
    stats_.drawn_pixels = (long long)fb_width * fb_height;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, kept ? frame_fbo_ : 0);
  glViewport(0, 0, fb_width, fb_height);
  glEnable(GL_SCISSOR_TEST);
  // The background in whole 8-bit steps: llvmpipe clears all of a framebuffer with one
  // rounding of the colour and part of it (a scissor) by drawing, with another, and a tile kept
  // from an earlier frame must match one cleared now (measured: 26 against 25 in blue).
  const auto step = [](float c) { return std::round(std::clamp(c, 0.0f, 1.0f) * 255.0f) / 255.0f; };
  glClearColor(step(clear.x), step(clear.y), step(clear.z), step(clear.w));
  for (const PixelRect& r : *rects) {
    glScissor(r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0);
    glClear(GL_COLOR_BUFFER_BIT);
  }
  if (!rects->empty()) draw_lists(data, *rects, kept);
  if (kept) copy_frame(fb_width, fb_height);
}

void Renderer::copy_frame(int w, int h) {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, w, h);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_BLEND);
  glUseProgram(program_[2]);
  const float fw = float(w), fh = float(h);
  glUniformMatrix4fv(projection_loc_[2], 1, GL_FALSE, ortho(0.0f, fw, 0.0f, fh).data());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, frame_texture_);
  // One rectangle over the window. The kept frame is drawn upside down (its texture row 0 holds
  // the top of the window), so that it sits in memory as the window does and the copy is
  // row for row; llvmpipe copies only then.
  const ImDrawVert quad[4] = {{ImVec2(0, 0), ImVec2(0, 0), 0}, {ImVec2(fw, 0), ImVec2(1, 0), 0},
                              {ImVec2(fw, fh), ImVec2(1, 1), 0}, {ImVec2(0, fh), ImVec2(0, 1), 0}};
  const ImDrawIdx idx[6] = {0, 1, 2, 0, 2, 3};
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STREAM_DRAW);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof idx, idx, GL_STREAM_DRAW);
  glDrawElements(GL_TRIANGLES, 6, sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
  glEnable(GL_BLEND);
}

void Renderer::draw_lists(const ImDrawData* data, const std::vector<PixelRect>& rects, bool top_down) {
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);

  const float top = data->DisplayPos.y, bottom = top + data->DisplaySize.y;
  const std::array<float, 16> projection = ortho(data->DisplayPos.x, data->DisplayPos.x + data->DisplaySize.x,
                                                 top_down ? bottom : top, top_down ? top : bottom);
  for (int k = 0; k < 2; ++k) {
    glUseProgram(program_[k]);
    glUniformMatrix4fv(projection_loc_[k], 1, GL_FALSE, projection.data());
  }
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);

  const ImTextureID font_id = ImGui::GetIO().Fonts->TexID;
  const GLenum index_type = sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT;
  int bound = -1;  // the program in use: 0 fills, 1 textured; -1 unknown
  bool blending = true;
  ImTextureID bound_texture = nullptr;
  auto use = [&](DrawKind kind, ImTextureID texture) {
    const int k = kind == DrawKind::texture ? 1 : 0;
    if (k != bound) glUseProgram(program_[k]);
    bound = k;
    const bool blend = kind != DrawKind::opaque;
    if (blend != blending) {
      if (blend) glEnable(GL_BLEND);
      else glDisable(GL_BLEND);
      blending = blend;
    }
    if (kind == DrawKind::texture && texture != bound_texture) {
      glBindTexture(GL_TEXTURE_2D, GLuint(reinterpret_cast<intptr_t>(texture)));
      bound_texture = texture;
      // The font texture is taller than ImGui's atlas (the text-run cache lies below it);
      // other textures are ImGui images with their own uv.
      const ImVec2 scale = texture == font_id ? font_uv_scale_ : ImVec2(1.0f, 1.0f);
      glUniform2f(uv_scale_loc_, scale.x, scale.y);
    }
  };

  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    const ListCopy& copy = lists_[size_t(n)];
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(copy.vtx.size()) * GLsizeiptr(sizeof(ImDrawVert)), copy.vtx.data(),
                 GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(copy.draw_idx.size()) * GLsizeiptr(sizeof(ImDrawIdx)),
                 copy.draw_idx.data(), GL_STREAM_DRAW);
    // Each rectangle in turn: they are disjoint, so every pixel still gets the list's draws
    // once each, in order.
    for (const PixelRect& area : rects) {
      PixelRect scissor_set{-1, -1, -1, -1};
      for (const Draw& d : copy.draws) {
        const ImDrawCmd& cmd = list->CmdBuffer[d.cmd];
        if (cmd.UserCallback) {
          // ImGui's reset marker asks a back end to set its state again; ours is set per draw
          // below, so only other callbacks run (a frame with one is drawn in full, once).
          if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
          bound = -1;
          bound_texture = nullptr;
          scissor_set = {-1, -1, -1, -1};
          continue;
        }
        const PixelRect s{std::max(d.scissor.x0, area.x0), std::max(d.scissor.y0, area.y0),
                          std::min(d.scissor.x1, area.x1), std::min(d.scissor.y1, area.y1)};
        if (s.x1 <= s.x0 || s.y1 <= s.y0) continue;
        if (s.x0 != scissor_set.x0 || s.y0 != scissor_set.y0 || s.x1 != scissor_set.x1 || s.y1 != scissor_set.y1) {
          glScissor(s.x0, s.y0, s.x1 - s.x0, s.y1 - s.y0);
          scissor_set = s;
        }
        use(d.kind, cmd.TextureId);
        glDrawElementsBaseVertex(GL_TRIANGLES, GLsizei(d.count), index_type,
                                 reinterpret_cast<void*>(d.first * sizeof(ImDrawIdx)), GLint(cmd.VtxOffset));
        ++stats_.draws;
        stats_.opaque_draws += d.kind == DrawKind::opaque;
        stats_.solid_draws += d.kind == DrawKind::solid;
      }
    }
  }
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_BLEND);
}

}  // namespace gs::gui
