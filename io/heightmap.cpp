#include <capsweep/files.h>

#include <png.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

namespace capsweep {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) { throw HeightmapError(path + ": " + why); }

// More samples than this are refused before anything is allocated (a corrupt or hostile header
// must not ask for gigabytes): 2^31 cells would already overflow the triangle indices.
constexpr std::uint64_t kMaxSamples = std::uint64_t(1) << 31;

struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

// libpng reports errors by longjmp. The reader lives in the caller and the functions that may
// jump hold only trivial locals, so a jump skips no destructor; the message is kept for the
// exception thrown after it.
struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  char message[256] = {};
  std::jmp_buf jump;
  ~PngReader() {
    if (png) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
  }
};
void on_png_error(png_structp png, png_const_charp message) {
  auto* r = static_cast<PngReader*>(png_get_error_ptr(png));
  std::snprintf(r->message, sizeof r->message, "%s", message);
  std::longjmp(r->jump, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

struct PngHeader {
  png_uint_32 width = 0, height = 0;
  int type = 0, depth = 0;
  std::size_t row_bytes = 0;
};

// The header, with the transformations to 8 or 16-bit native samples set up.
bool read_png_header(PngReader& r, std::FILE* f, PngHeader& h) {
  if (setjmp(r.jump)) return false;
  png_init_io(r.png, f);
  png_set_sig_bytes(r.png, 8);
  png_set_user_limits(r.png, 1u << 20, 1u << 20);
  png_read_info(r.png, r.info);
  h.width = png_get_image_width(r.png, r.info);
  h.height = png_get_image_height(r.png, r.info);
  h.type = png_get_color_type(r.png, r.info);
  h.depth = png_get_bit_depth(r.png, r.info);
  if (h.type == PNG_COLOR_TYPE_GRAY) {
    if (h.depth < 8) png_set_expand_gray_1_2_4_to_8(r.png);
    if (h.depth == 16) png_set_swap(r.png);  // PNG stores big-endian samples
    png_set_interlace_handling(r.png);
    png_read_update_info(r.png, r.info);
    h.row_bytes = png_get_rowbytes(r.png, r.info);
  }
  return true;
}

bool read_png_rows(PngReader& r, png_bytep* rows) {
  if (setjmp(r.jump)) return false;
  png_read_image(r.png, rows);
  png_read_end(r.png, nullptr);
  return true;
}

// A grayscale PNG as 16-bit values (8-bit and lower depths widened to the same values; a 16-bit
// file's values are read as they are). `what` says what the image is for, in errors.
struct Gray {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint16_t> values;
};

// `check_size(width, height)` refuses an image of the wrong size from its header alone, before
// its pixels are read.
template <class CheckSize>
Gray read_gray_png(const std::string& path, const char* what, bool allow_low_depth, const CheckSize& check_size) {
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (!file.f) refuse(path, std::string("cannot open: ") + std::strerror(errno));
  unsigned char signature[8] = {};
  if (std::fread(signature, 1, 8, file.f) != 8 || png_sig_cmp(signature, 0, 8) != 0) refuse(path, "not a PNG file");
  PngReader r;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, on_png_error, on_png_warning);
  if (r.png) r.info = png_create_info_struct(r.png);
  if (!r.png || !r.info) refuse(path, "cannot start the PNG reader");
  PngHeader h;
  if (!read_png_header(r, file.f, h)) refuse(path, std::string("not a readable PNG: ") + r.message);
  const char* kind = h.type == PNG_COLOR_TYPE_GRAY         ? nullptr
                     : h.type == PNG_COLOR_TYPE_GRAY_ALPHA ? "grayscale with alpha"
                     : h.type == PNG_COLOR_TYPE_PALETTE    ? "a palette image"
                     : h.type == PNG_COLOR_TYPE_RGB        ? "RGB"
                                                           : "RGBA";
  if (kind) refuse(path, std::string(what) + " is a grayscale PNG, this one is " + kind);
  if (h.depth < 8 && !allow_low_depth) {
    refuse(path, std::string(what) + " has 8 or 16 bits a pixel, this one " + std::to_string(h.depth));
  }
  if (std::uint64_t(h.width) * h.height > kMaxSamples) refuse(path, "more than 2^31 pixels");
  // Deflate expands a byte to at most 1032 (zlib's FAQ, "the theoretical limit"), so the pixels
  // of a larger image cannot be in this file: refused before they are allocated, not after
  // gigabytes for a 100-byte file whose header lies.
  struct stat st {};
  if (fstat(fileno(file.f), &st) != 0) refuse(path, std::string("cannot stat: ") + std::strerror(errno));
  const std::uint64_t file_bytes = std::uint64_t(st.st_size);
  const std::uint64_t packed_bytes = std::uint64_t(h.width) * h.height * std::uint64_t(h.depth) / 8;
  if ((packed_bytes + 1031) / 1032 > file_bytes) {
    refuse(path, "its header claims " + std::to_string(h.width) + " x " + std::to_string(h.height) + " pixels of " +
                     std::to_string(h.depth) + " bits, more than its " + std::to_string(file_bytes) + " bytes can hold");
  }
  check_size(h.width, h.height);
  std::vector<unsigned char> pixels(h.row_bytes * h.height);
  std::vector<png_bytep> rows(h.height);
  for (png_uint_32 y = 0; y < h.height; ++y) rows[y] = pixels.data() + y * h.row_bytes;
  if (!read_png_rows(r, rows.data())) refuse(path, std::string("not a readable PNG: ") + r.message);
  Gray g;
  g.width = h.width;
  g.height = h.height;
  g.values.resize(std::size_t(h.width) * h.height);
  if (h.depth == 16) {
    std::memcpy(g.values.data(), pixels.data(), g.values.size() * 2);
  } else {
    for (std::size_t i = 0; i < g.values.size(); ++i) g.values[i] = pixels[i];
  }
  return g;
}

bool is_png(const std::string& path) {
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (!file.f) refuse(path, std::string("cannot open: ") + std::strerror(errno));
  unsigned char signature[8] = {};
  return std::fread(signature, 1, 8, file.f) == 8 && png_sig_cmp(signature, 0, 8) == 0;
}

std::vector<float> read_raw_floats(const std::string& path, std::uint32_t columns, std::uint32_t rows) {
  if (columns < 2 || rows < 2) {
    refuse(path, "a raw float32 heightmap needs its size (columns and rows, each >= 2)");
  }
  if (std::uint64_t(columns) * rows > kMaxSamples) refuse(path, "more than 2^31 samples");
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (!file.f) refuse(path, std::string("cannot open: ") + std::strerror(errno));
  const std::uint64_t want = std::uint64_t(columns) * rows * 4;
  std::vector<float> heights(std::size_t(columns) * rows);
  const std::size_t got = std::fread(heights.data(), 1, want, file.f);
  if (got != want) {
    refuse(path, std::to_string(got) + " bytes, " + std::to_string(columns) + " x " + std::to_string(rows) +
                     " float32 samples need " + std::to_string(want));
  }
  if (std::fgetc(file.f) != EOF) {
    refuse(path, "longer than " + std::to_string(columns) + " x " + std::to_string(rows) + " float32 samples (" +
                     std::to_string(want) + " bytes)");
  }
  return heights;
}

}  // namespace

Heightfield load_heightmap(const std::string& path, const HeightmapOptions& o) {
  Heightfield t;
  t.cell_x = o.cell_x;
  t.cell_z = o.cell_z;
  t.origin = o.origin;
  t.layers = o.layers;
  if (is_png(path)) {
    Gray g = read_gray_png(path, "a heightmap", false, [&](std::uint32_t width, std::uint32_t height) {
      if ((o.columns != 0 && o.columns != width) || (o.rows != 0 && o.rows != height)) {
        refuse(path, "the image is " + std::to_string(width) + " x " + std::to_string(height) + ", not " +
                         std::to_string(o.columns) + " x " + std::to_string(o.rows));
      }
    });
    t.columns = g.width;
    t.rows = g.height;
    t.samples = std::move(g.values);
    t.height_scale = o.height_scale;
  } else {
    t.columns = o.columns;
    t.rows = o.rows;
    t.heights = read_raw_floats(path, o.columns, o.rows);
    if (!(std::isfinite(o.height_scale) && o.height_scale > 0.f)) {
      refuse(path, "the height scale must be finite and > 0, got " + std::to_string(o.height_scale));
    }
    if (o.height_scale != 1.f) {
      for (float& h : t.heights) h = float(double(h) * double(o.height_scale));
    }
  }
  if (!o.holes.empty()) {
    // A mask of 1-bit pixels packs eight into a byte: its size is checked before they are read.
    const Gray holes = read_gray_png(o.holes, "a hole mask", true, [&](std::uint32_t width, std::uint32_t height) {
      if (t.columns < 2 || t.rows < 2 || width != t.columns - 1 || height != t.rows - 1) {
        refuse(o.holes, "a hole mask has a pixel per cell: " + std::to_string(t.columns < 2 ? 0 : t.columns - 1) +
                            " x " + std::to_string(t.rows < 2 ? 0 : t.rows - 1) + " for " + path + ", this one is " +
                            std::to_string(width) + " x " + std::to_string(height));
      }
    });
    t.holes.resize(holes.values.size());
    for (std::size_t i = 0; i < t.holes.size(); ++i) t.holes[i] = holes.values[i] != 0;
  }
  if (std::string why = check_heightfield(t); !why.empty()) refuse(path, why);
  return t;
}

std::string describe_heightmap(const std::string& path, const HeightmapOptions& o) {
  char text[512];
  std::snprintf(text, sizeof text, "%s (cell %g x %g m, height scale %g, origin (%g, %g, %g)%s%s, layers %u)", path.c_str(),
                double(o.cell_x), double(o.cell_z), double(o.height_scale), double(o.origin.x), double(o.origin.y),
                double(o.origin.z), o.holes.empty() ? "" : ", holes ", o.holes.c_str(), o.layers);
  return text;
}

}  // namespace capsweep
