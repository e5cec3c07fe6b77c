#include "tools/picture.h"

#include "broadphase/adjacency.h"
#include "io/atomic_file.h"
#include "tools/pixel_font.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include <png.h>

namespace capsweep {

namespace {

std::uint32_t rgb(float r, float g, float b) {
  auto c = [](float v) { return std::uint32_t(std::clamp(v, 0.f, 1.f) * 255.f + 0.5f); };
  return c(r) << 16 | c(g) << 8 | c(b);
}

// The moving parts' colours: none of the trails' (blue-green-red) or the contacts' (yellow, magenta).
struct PartColour {
  const char* name;
  float r, g, b;
};
constexpr PartColour kPartColours[] = {
    {"orange", 1, 0.5f, 0}, {"cyan", 0, 0.85f, 1}, {"lime", 0.6f, 1, 0.2f}, {"pink", 1, 0.55f, 0.75f}};
constexpr std::size_t kPartColourCount = sizeof kPartColours / sizeof kPartColours[0];

}  // namespace

template <class F>
void TopDownPicture::fill(const Triangle& t, F&& f) {
  const float ax = px(t.v[0].x), az = py(t.v[0].z), bx = px(t.v[1].x), bz = py(t.v[1].z);
  const float cx = px(t.v[2].x), cz = py(t.v[2].z);
  const float area = (bx - ax) * (cz - az) - (bz - az) * (cx - ax);
  if (std::fabs(area) < 1e-12f) return;  // edge-on from above
  const int x_lo = std::max(0, int(std::floor(std::min({ax, bx, cx}))));
  const int x_hi = std::min(width_ - 1, int(std::ceil(std::max({ax, bx, cx}))));
  const int z_lo = std::max(0, int(std::floor(std::min({az, bz, cz}))));
  const int z_hi = std::min(height_ - 1, int(std::ceil(std::max({az, bz, cz}))));
  for (int z = z_lo; z <= z_hi; ++z) {
    for (int x = x_lo; x <= x_hi; ++x) {
      const float qx = float(x) + 0.5f, qz = float(z) + 0.5f;
      const float w0 = ((bx - qx) * (cz - qz) - (bz - qz) * (cx - qx)) / area;
      const float w1 = ((cx - qx) * (az - qz) - (cz - qz) * (ax - qx)) / area;
      const float w2 = 1.f - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      f(std::size_t(z) * std::size_t(width_) + std::size_t(x), w0, w1, w2);
    }
  }
}

TopDownPicture::TopDownPicture(const World& world, int size) {
  const Aabb& b = world.bounds();
  const float margin = 0.02f * std::max(b.max.x - b.min.x, b.max.z - b.min.z) + 0.5f;
  x0_ = b.min.x - margin;
  z0_ = b.min.z - margin;
  const float w = b.max.x + margin - x0_, h = b.max.z + margin - z0_;
  scale_ = float(size) / std::max(w, h);
  width_ = std::max(1, int(std::ceil(w * scale_)));
  height_ = std::max(1, int(std::ceil(h * scale_)));
  rgb_.assign(std::size_t(width_) * height_, rgb(0.08f, 0.08f, 0.1f));
  std::vector<float> top(rgb_.size(), -INFINITY);
  const float y_lo = b.min.y, y_span = std::max(b.max.y - b.min.y, 1e-3f);
  // Fill every triangle seen from above (a scanline-free barycentric fill of its pixel box);
  // at each pixel the highest surface wins.
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    if (world.layers_of(i) == 0) continue;  // a hole in the terrain
    const Triangle t = world.triangle(i);
    const Vec3 n = face_normal(t);
    const float up = std::fabs(n.y);
    fill(t, [&](std::size_t k, float w0, float w1, float w2) {
      const float y = w0 * t.v[0].y + w1 * t.v[1].y + w2 * t.v[2].y;
      if (y <= top[k]) return;
      top[k] = y;
      const float shade = 0.35f + 0.5f * (y - y_lo) / y_span;
      rgb_[k] = up >= 0.7071f ? rgb(shade, shade, shade * 0.95f) : rgb(shade * 0.55f, shade * 0.45f, shade * 0.4f);
    });
  }
}

void TopDownPicture::put(int x, int y, std::uint32_t c) {
  if (x >= 0 && y >= 0 && x < width_ && y < height_) rgb_[std::size_t(y) * width_ + x] = c;
}

void TopDownPicture::line(const Vec3& from, const Vec3& to, std::uint32_t c) {
  const float x0 = px(from.x), y0 = py(from.z), x1 = px(to.x), y1 = py(to.z);
  const int steps = std::min(4096, int(std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0)))) + 1);
  for (int i = 0; i <= steps; ++i) {
    const float u = float(i) / float(steps);
    put(int(x0 + (x1 - x0) * u), int(y0 + (y1 - y0) * u), c);
  }
}

void TopDownPicture::trail(const Vec3& from, const Vec3& to, float speed, float max_speed) {
  const float s = std::clamp(max_speed > 0 ? speed / max_speed : 0.f, 0.f, 1.f);
  line(from, to, s < 0.5f ? rgb(0, 2 * s, 1 - 2 * s) : rgb(2 * s - 1, 2 - 2 * s, 0));
}

void TopDownPicture::navmesh(const Triangle& t) {
  fill(t, [&](std::size_t k, float, float, float) {
    std::uint32_t& c = rgb_[k];
    const float r = float((c >> 16) & 255) / 255.f, g = float((c >> 8) & 255) / 255.f, b = float(c & 255) / 255.f;
    c = rgb(0.6f * r, 0.6f * g + 0.25f, 0.6f * b + 0.22f);
  });
}

void TopDownPicture::path(const Vec3& from, const Vec3& to) { line(from, to, rgb(1, 1, 1)); }

void TopDownPicture::contact(const Vec3& p, bool with_agent) {
  put(int(px(p.x)), int(py(p.z)), with_agent ? rgb(1, 0, 1) : rgb(1, 0.9f, 0));
}

void TopDownPicture::agent(const Vec3& p, float radius) {
  // Drawn at 40 % of the radius so that the trails underneath stay visible in dense crowds.
  const float cx = px(p.x), cy = py(p.z), r = std::max(0.4f * radius * scale_, 1.f);
  for (int y = int(cy - r); y <= int(cy + r); ++y) {
    for (int x = int(cx - r); x <= int(cx + r); ++x) {
      if ((float(x) + 0.5f - cx) * (float(x) + 0.5f - cx) + (float(y) + 0.5f - cy) * (float(y) + 0.5f - cy) <= r * r) {
        put(x, y, rgb(1, 1, 1));
      }
    }
  }
}

const char* TopDownPicture::part_colour_name(std::size_t k) { return kPartColours[k % kPartColourCount].name; }

void TopDownPicture::moving_part(const Aabb& box, std::size_t k) {
  const PartColour& c = kPartColours[k % kPartColourCount];
  const int x_lo = std::max(0, int(std::floor(px(box.min.x)))), x_hi = std::min(width_ - 1, int(std::ceil(px(box.max.x))));
  const int y_lo = std::max(0, int(std::floor(py(box.min.z)))), y_hi = std::min(height_ - 1, int(std::ceil(py(box.max.z))));
  constexpr int kLine = 2;  // pixels of outline
  for (int y = y_lo; y <= y_hi; ++y) {
    for (int x = x_lo; x <= x_hi; ++x) {
      std::uint32_t& pixel = rgb_[std::size_t(y) * width_ + x];
      const bool edge = x < x_lo + kLine || x > x_hi - kLine || y < y_lo + kLine || y > y_hi - kLine;
      const float keep = edge ? 0.f : 0.6f;  // inside, 40 % of the part's colour over the picture
      const float r = float(pixel >> 16 & 255) / 255.f, g = float(pixel >> 8 & 255) / 255.f, b = float(pixel & 255) / 255.f;
      pixel = rgb(keep * r + (1 - keep) * c.r, keep * g + (1 - keep) * c.g, keep * b + (1 - keep) * c.b);
    }
  }
}

void TopDownPicture::text(const std::string& s, int x, int y, std::uint32_t c) {
  draw_text(s, x, y, 2, [&](int px, int py) { put(px, py, c); });  // 2 x 2 pixels a font pixel: readable at 1200 px
}

void TopDownPicture::legend(float max_speed, std::span<const std::string> part_names) {
  constexpr Mark kCrowd[] = {Mark::contact_with_level, Mark::contact_with_agent, Mark::agent};
  legend(max_speed, kCrowd, part_names);
}

void TopDownPicture::legend(float max_speed, std::span<const Mark> marks, std::span<const std::string> part_names) {
  constexpr int kPad = 10, kLine = 22, kSwatch = 22;
  const std::uint32_t white = rgb(1, 1, 1);
  // The scale bar: 1, 2 or 5 x 10^k metres, the longest of them up to a fifth of the width.
  const float most = 0.2f * float(width_) / scale_;
  float metres = std::pow(10.f, std::floor(std::log10(std::max(most, 1e-3f))));
  if (5 * metres <= most) {
    metres *= 5;
  } else if (2 * metres <= most) {
    metres *= 2;
  }
  const int bar = std::max(1, int(std::lround(metres * scale_)));
  char speed[32], length[32];
  std::snprintf(speed, sizeof speed, "0 - %.1f m/s", double(max_speed));
  std::snprintf(length, sizeof length, "%g m", double(metres));
  const int rows = 2 + int(marks.size()) + int(part_names.size());
  const int panel_w = std::max(bar + 90, 330) + 2 * kPad;
  const int panel_h = rows * kLine + 2 * kPad + 6;
  for (int y = 0; y < std::min(panel_h, height_); ++y) {  // darkened, so that the text reads over any floor
    for (int x = 0; x < std::min(panel_w, width_); ++x) {
      std::uint32_t& p = rgb_[std::size_t(y) * width_ + x];
      p = rgb(0.25f * float(p >> 16 & 255) / 255.f, 0.25f * float(p >> 8 & 255) / 255.f, 0.25f * float(p & 255) / 255.f);
    }
  }
  int y = kPad;
  for (int x = 0; x < kSwatch * 3; ++x) {  // the trails' ramp: blue, green, red
    const float s = float(x) / float(kSwatch * 3 - 1);
    const std::uint32_t c = s < 0.5f ? rgb(0, 2 * s, 1 - 2 * s) : rgb(2 * s - 1, 2 - 2 * s, 0);
    for (int k = 2; k < 13; ++k) put(kPad + x, y + k, c);
  }
  text(std::string("trail ") + speed, kPad + kSwatch * 3 + 6, y + 1, white);
  y += kLine;
  auto dot_row = [&](std::uint32_t c, const std::string& label) {
    for (int dy = 3; dy < 12; ++dy) {
      for (int dx = 6; dx < 15; ++dx) put(kPad + dx, y + dy, c);
    }
    text(label, kPad + kSwatch + 4, y + 1, white);
    y += kLine;
  };
  for (const Mark mark : marks) {
    switch (mark) {
      case Mark::contact_with_level: dot_row(rgb(1, 0.9f, 0), "contact with the level"); break;
      case Mark::contact_with_agent: dot_row(rgb(1, 0, 1), "contact with an agent"); break;
      case Mark::agent: dot_row(white, "agent at the end"); break;
      case Mark::navmesh: dot_row(rgb(0.25f, 0.6f, 0.55f), "navmesh (walkable)"); break;
      case Mark::path:  // a line, as path() draws it
        for (int dx = 2; dx < kSwatch - 2; ++dx) put(kPad + dx, y + 7, white);
        text("planned path", kPad + kSwatch + 4, y + 1, white);
        y += kLine;
        break;
    }
  }
  for (std::size_t k = 0; k < part_names.size(); ++k) {
    const PartColour& c = kPartColours[k % kPartColourCount];
    dot_row(rgb(c.r, c.g, c.b), part_names[k] + " (where it moved)");
  }
  y += 2;
  for (int x = 0; x < bar; ++x) {
    for (int k = 0; k < 3; ++k) put(kPad + x, y + k, white);
  }
  for (int k = -3; k < 6; ++k) {
    put(kPad, y + k, white);
    put(kPad + bar - 1, y + k, white);
  }
  text(length, kPad + bar + 8, y - 6, white);
}

void TopDownPicture::write_png(const std::string& path, std::span<const std::string> inputs) const {
  // Encoded in memory, then written atomically like every other output.
  std::string bytes;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  std::vector<png_byte> row(std::size_t(width_) * 3);
  volatile bool ok = png && info;  // volatile: read after a longjmp
  if (ok && setjmp(png_jmpbuf(png)) == 0) {
    png_set_write_fn(
        png, &bytes,
        [](png_structp p, png_bytep data, png_size_t n) {
          static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<const char*>(data), n);
        },
        nullptr);
    png_set_IHDR(png, info, png_uint_32(width_), png_uint_32(height_), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height_; ++y) {
      for (int x = 0; x < width_; ++x) {
        const std::uint32_t c = rgb_[std::size_t(y) * width_ + x];
        row[3 * x] = png_byte(c >> 16);
        row[3 * x + 1] = png_byte(c >> 8);
        row[3 * x + 2] = png_byte(c);
      }
      png_write_row(png, row.data());
    }
    png_write_end(png, nullptr);
  } else {
    ok = false;
  }
  png_destroy_write_struct(&png, &info);
  if (!ok) throw std::runtime_error(path + ": encoding the PNG failed");
  write_file_atomically(path, bytes, inputs);
}

}  // namespace capsweep
