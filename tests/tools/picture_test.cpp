// The top-down picture's legend and scale bar, read back from the PNG it writes.
#include "tools/picture.h"

#include <png.h>

#include <gtest/gtest.h>

#include "tests/support/test_files.h"
#include "tools/arena.h"
#include "tools/pixel_font.h"

namespace capsweep {
namespace {

class PictureTest : public ScratchDir {};

std::vector<unsigned char> read_rgb(const std::string& path, int& width, int& height) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return {};
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) return {};
  width = int(image.width);
  height = int(image.height);
  return pixels;
}

TEST(PixelFont, DrawsKnownCharactersAndSkipsOthers) {
  int lit = 0;
  const int width = draw_text("a1", 0, 0, 2, [&](int x, int y) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, 2 * kGlyphAdvance * 2);
    EXPECT_LT(y, kGlyphHeight * 2);
    ++lit;
  });
  EXPECT_EQ(width, 2 * kGlyphAdvance * 2);
  EXPECT_GT(lit, 20 * 4);
  int none = 0;
  draw_text("~ #", 0, 0, 1, [&](int, int) { ++none; });
  EXPECT_EQ(none, 0);
}

TEST_F(PictureTest, LegendShowsTheSpeedRampTheColoursAndAScaleBar) {
  const World world(make_arena());
  TopDownPicture picture(world, 800);
  const std::vector<std::string> parts{"door"};
  picture.legend(2.f, parts);
  picture.write_png(path("p.png"));
  int w = 0, h = 0;
  const std::vector<unsigned char> rgb = read_rgb(path("p.png"), w, h);
  ASSERT_EQ(w, picture.width());
  auto at = [&](int x, int y) { return &rgb[3 * (std::size_t(y) * w + x)]; };
  // The ramp starts blue and ends red, on the first row of the panel.
  EXPECT_GT(at(10, 16)[2], 200);
  EXPECT_LT(at(10, 16)[0], 30);
  EXPECT_GT(at(10 + 65, 16)[0], 200);
  EXPECT_LT(at(10 + 65, 16)[2], 30);
  // The swatches: yellow, magenta, white, then the part's orange.
  auto swatch = [&](int row) { return at(10 + 10, 10 + row * 22 + 7); };
  EXPECT_GT(swatch(1)[0], 200);
  EXPECT_GT(swatch(1)[1], 200);
  EXPECT_LT(swatch(1)[2], 30);
  EXPECT_GT(swatch(2)[0], 200);
  EXPECT_LT(swatch(2)[1], 30);
  EXPECT_EQ(swatch(3)[0] + swatch(3)[1] + swatch(3)[2], 3 * 255);
  EXPECT_GT(swatch(4)[0], 200);
  EXPECT_GT(swatch(4)[1], 100);
  EXPECT_LT(swatch(4)[2], 30);
  // The scale bar: a white line of the longest of 1, 2, 5 x 10^k m up to a fifth of the width, at
  // the picture's own scale (the arena's 40 m plus margins across 800 px: a fifth is 8.5 m, so 5 m).
  const int bar_y = 10 + 5 * 22 + 2 + 1;
  int bar = 0;
  while (bar < w && at(10 + bar, bar_y)[0] == 255 && at(10 + bar, bar_y)[1] == 255) ++bar;
  const float metres_per_pixel = (world.bounds().max.x - world.bounds().min.x + 2 * (0.02f * 40 + 0.5f)) / float(w);
  EXPECT_NEAR(float(bar) * metres_per_pixel, 5.f, 0.1f);
}

}  // namespace
}  // namespace capsweep
