// The page's own files (viewer/page/), compiled into the binary (embed_page.cmake) so that
// `capsweep view` needs nothing beside it but three.js from Debian's libjs-three.
#pragma once

#include <cstddef>
#include <span>

namespace capsweep::viewer {

struct PageAsset {
  const char* name;  // "index.html", "viewer.js", ...: served at /NAME
  const unsigned char* data;
  std::size_t size;
};
std::span<const PageAsset> page_assets();

}  // namespace capsweep::viewer
