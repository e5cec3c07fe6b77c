// A 5 x 7 pixel font for the labels of the PNG pictures (tools/picture.cpp): lowercase letters,
// digits and a little punctuation, enough for a legend and a scale bar with no font library.
#pragma once

#include <functional>
#include <string_view>

namespace capsweep {

inline constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;

// Calls set(x, y) for every lit pixel of `text` drawn from (x, y) (its top-left), each font pixel
// `scale` x `scale` pixels; characters it has no glyph for are drawn as blanks. Returns the width.
int draw_text(std::string_view text, int x, int y, int scale, const std::function<void(int, int)>& set);

}  // namespace capsweep
