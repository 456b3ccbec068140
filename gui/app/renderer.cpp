#include "gui/app/renderer.hpp"

#include "gui/widgets/raster_image.hpp"

#include <algorithm>
#include <cstdint>
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

bool Renderer::init() {
  error_.clear();
  const char* vertex[2] = {kVertexPlain, kVertexTextured};
  const char* fragment[2] = {kFragmentPlain, kFragmentTextured};
  for (int k = 0; k < 2; ++k) {
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

  uv_scale_loc_ = glGetUniformLocation(textured, "uv_scale");

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
  font_texture_ = new_pixel_texture();
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, texture_width, texture_height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               white_with_alpha(coverage.data(), coverage.size()));
  rgba_ = {};  // ~20 MB for the whole texture; frames widen only the cache rows they change
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(intptr_t(font_texture_)));

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

  io.BackendRendererName = "gemmscope_opengl33";
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // glDrawElementsBaseVertex
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error_ = "OpenGL error " + std::to_string(e) + " while setting up buffers, the font atlas or the vertex layout";
    shutdown();
    return false;
  }
  return true;
}

const unsigned char* Renderer::white_with_alpha(const unsigned char* coverage, size_t texels) {
  rgba_.resize(4 * texels);
  for (size_t i = 0; i < texels; ++i) {
    rgba_[4 * i] = rgba_[4 * i + 1] = rgba_[4 * i + 2] = 255;
    rgba_[4 * i + 3] = coverage[i];
  }
  return rgba_.data();
}

void Renderer::shutdown() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (vbo_) glDeleteBuffers(1, &vbo_);
  if (ebo_) glDeleteBuffers(1, &ebo_);
  if (font_texture_) glDeleteTextures(1, &font_texture_);
  for (unsigned& program : program_)
    if (program) glDeleteProgram(program);
  vao_ = vbo_ = ebo_ = font_texture_ = 0;
  program_[0] = program_[1] = 0;
  if (ImGui::GetCurrentContext()) ImGui::GetIO().Fonts->SetTexID(nullptr);
}

void Renderer::render(const ImDrawData* data) {
  stats_ = RenderStats{};
  if (!data || !vao_) return;
  const int fb_width = int(data->DisplaySize.x * data->FramebufferScale.x);
  const int fb_height = int(data->DisplaySize.y * data->FramebufferScale.y);
  if (fb_width <= 0 || fb_height <= 0) return;

  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  glViewport(0, 0, fb_width, fb_height);

  // Orthographic projection of ImGui's display rectangle (y down) onto clip space.
  const float l = data->DisplayPos.x, r = l + data->DisplaySize.x;
  const float t = data->DisplayPos.y, b = t + data->DisplaySize.y;
  const float projection[16] = {2.0f / (r - l), 0, 0, 0, 0, 2.0f / (t - b), 0, 0, 0, 0, -1.0f, 0,
                                (r + l) / (l - r), (t + b) / (b - t), 0, 1.0f};
  for (int k = 0; k < 2; ++k) {
    glUseProgram(program_[k]);
    glUniformMatrix4fv(projection_loc_[k], 1, GL_FALSE, projection);
  }
  glActiveTexture(GL_TEXTURE0);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);

  const ImTextureID font_id = ImGui::GetIO().Fonts->TexID;
  const ImVec2 white = ImGui::GetIO().Fonts->TexUvWhitePixel;
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

  // First every list's geometry with text as runs, which may compose new runs into the cache;
  // then the cache's changed rows go up; then the drawing.
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
  if (int row0 = 0, row1 = 0; text_runs_.take_dirty_rows(row0, row1)) {
    const int atlas_height = ImGui::GetIO().Fonts->TexHeight;
    const size_t offset = size_t(row0) * size_t(text_runs_.width());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, atlas_height + row0, text_runs_.width(), row1 - row0, GL_RGBA,
                    GL_UNSIGNED_BYTE,
                    white_with_alpha(text_runs_.image() + offset, size_t(row1 - row0) * size_t(text_runs_.width())));
  }
  bound_texture = nullptr;

  const ImVec2 clip_off = data->DisplayPos, clip_scale = data->FramebufferScale;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    const ListCopy& copy = lists_[size_t(n)];
    // The list's draws: each command's triangles in runs of one kind (split_draw_runs), each
    // run with its rectangles moved to even places (align_rect_pairs), all in one index buffer.
    draw_idx_.clear();
    draws_.clear();
    for (int c = 0; c < list->CmdBuffer.Size; ++c) {
      const ImDrawCmd& cmd = list->CmdBuffer[c];
      if (cmd.UserCallback) {
        draws_.push_back(Draw{c, DrawKind::texture, 0, 0});
        continue;
      }
      const ImDrawVert* vtx = copy.vtx.data() + cmd.VtxOffset;
      const ImDrawIdx* idx = copy.idx.data() + copy.first[size_t(c)];
      const unsigned triangles = unsigned(copy.count[size_t(c)] / 3);
      auto add = [&](DrawKind kind, unsigned first, unsigned count) {
        const size_t start = draw_idx_.size();
        const unsigned drawn = align_rect_pairs(vtx, idx + 3 * size_t(first), count, draw_idx_);
        draws_.push_back(Draw{c, kind, start, 3 * size_t(drawn)});
      };
      if (cmd.TextureId != font_id) {  // an image: only the textured program shows it
        add(DrawKind::texture, 0, triangles);
        continue;
      }
      split_draw_runs(vtx, idx, triangles, white, runs_);
      for (const DrawRun& run : runs_) add(run.kind, run.first, run.count);
    }
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(copy.vtx.size()) * GLsizeiptr(sizeof(ImDrawVert)), copy.vtx.data(),
                 GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(draw_idx_.size()) * GLsizeiptr(sizeof(ImDrawIdx)),
                 draw_idx_.data(), GL_STREAM_DRAW);
    int scissor_for = -1;  // the command whose clip rectangle is set
    for (const Draw& d : draws_) {
      const ImDrawCmd& cmd = list->CmdBuffer[d.cmd];
      if (cmd.UserCallback) {
        // ImGui's reset marker asks a back end to set its state again; ours is set per draw
        // below, so only other callbacks run.
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
        bound = -1;
        bound_texture = nullptr;
        scissor_for = -1;
        continue;
      }
      const float x0 = (cmd.ClipRect.x - clip_off.x) * clip_scale.x;
      const float y0 = (cmd.ClipRect.y - clip_off.y) * clip_scale.y;
      const float x1 = (cmd.ClipRect.z - clip_off.x) * clip_scale.x;
      const float y1 = (cmd.ClipRect.w - clip_off.y) * clip_scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      if (scissor_for != d.cmd) {
        glScissor(GLint(x0), GLint(float(fb_height) - y1), GLsizei(x1 - x0), GLsizei(y1 - y0));
        scissor_for = d.cmd;
        ++stats_.commands;
      }
      use(d.kind, cmd.TextureId);
      glDrawElementsBaseVertex(GL_TRIANGLES, GLsizei(d.count), index_type,
                               reinterpret_cast<void*>(d.first * sizeof(ImDrawIdx)), GLint(cmd.VtxOffset));
      ++stats_.draws;
      stats_.opaque_draws += d.kind == DrawKind::opaque;
      stats_.solid_draws += d.kind == DrawKind::solid;
    }
  }
  glBindVertexArray(0);
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_BLEND);
}

}  // namespace gs::gui
