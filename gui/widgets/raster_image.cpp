#include "gui/widgets/raster_image.hpp"

#include <algorithm>
#include <cstdint>

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GLFW/glfw3.h>

namespace gs::gui {

RasterImage::~RasterImage() {
  // Normally released already (Shell::release_gl); never call OpenGL without a context.
  if (texture_ && glfwGetCurrentContext()) release();
}

void RasterImage::release() {
  if (texture_) glDeleteTextures(1, &texture_);
  texture_ = 0;
  texture_width_ = texture_height_ = 0;
  uploaded_ = false;
}

bool RasterImage::begin(int width, int height, uint64_t key) {
  width = std::max(width, 0);
  height = std::max(height, 0);
  if (valid_ && width == width_ && height == height_ && key == key_) return false;
  width_ = width;
  height_ = height;
  key_ = key;
  valid_ = true;
  uploaded_ = false;
  pixels_.assign(size_t(width) * size_t(height), 0u);
  return true;
}

void RasterImage::fill_rect(int x0, int y0, int x1, int y1, ImU32 color) {
  x0 = std::clamp(x0, 0, width_);
  x1 = std::clamp(x1, 0, width_);
  y0 = std::clamp(y0, 0, height_);
  y1 = std::clamp(y1, 0, height_);
  for (int y = y0; y < y1; ++y) std::fill_n(pixels_.begin() + ptrdiff_t(y) * width_ + x0, std::max(0, x1 - x0), color);
}

unsigned new_pixel_texture() {
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return texture;
}

ImTextureID RasterImage::texture() {
  if (!texture_) texture_ = new_pixel_texture();
  if (!uploaded_ && width_ > 0 && height_ > 0) {
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    if (width_ != texture_width_ || height_ != texture_height_) {
      glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_, height_, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels_.data());
      texture_width_ = width_;
      texture_height_ = height_;
    } else {
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, pixels_.data());
    }
    uploaded_ = true;
    ++uploads_;
  }
  return reinterpret_cast<ImTextureID>(intptr_t(texture_));
}

}  // namespace gs::gui
