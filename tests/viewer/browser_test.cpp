// The page in a real browser: Debian's chromium, headless (SwiftShader's WebGL), against the
// server in-process on the arena and a crowd's trace. From the page's own state (written into
// its DOM) and a screenshot: the mesh is drawn, a sweep set through the page is answered with
// the bytes `capsweep sweep` writes, and the trace plays to its last tick. About 10 s.
#include <png.h>

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.h"
#include "tools/arena.h"
#include "viewer/viewer_server.h"

namespace capsweep::viewer {
namespace {

using nlohmann::json;

constexpr const char* kChromium = "/usr/bin/chromium";

std::string url_encoded(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += char(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

std::string base64_decoded(const std::string& text) {
  const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (char c : text) {
    const char* at = std::strchr(digits, c);
    if (c == '=' || !at) break;
    v = v << 6 | unsigned(at - digits);
    if ((bits += 6) >= 8) out.push_back(char((v >> (bits -= 8)) & 0xFF));
  }
  return out;
}

class BrowserTest : public ScratchDir {
 protected:
  // chromium's output for `url` with `mode` (--dump-dom, or --screenshot=FILE).
  std::string chromium(const std::string& url, const std::string& mode) {
    // Bounded in real time: a chromium that hangs (a GPU process stuck under load) fails this
    // test within 90 s, with no state to read, rather than holding the suite to ctest's timeout.
    const std::string cmd = "timeout -k 5 90 " + std::string(kChromium) +
                            " --headless=new --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader "
                            "--no-first-run --user-data-dir=" + path("profile") +
                            " --window-size=1000,700 --virtual-time-budget=20000 " + mode + " '" + url + "' 2>/dev/null";
    FILE* pipe = popen(cmd.c_str(), "r");
    std::string out;
    if (!pipe) return out;
    char buffer[65536];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    pclose(pipe);
    return out;
  }

  json page_state(const std::string& dom) {
    const std::string open = "<pre id=\"state\" hidden=\"\">";
    const auto from = dom.find(open);
    const auto to = dom.find("</pre>", from);
    if (from == std::string::npos || to == std::string::npos) return json();
    // The DOM escapes the JSON's quotes and ampersands (and, in text, nothing else it holds).
    const std::string escaped = dom.substr(from + open.size(), to - from - open.size());
    std::string text;
    for (std::size_t i = 0; i < escaped.size();) {
      if (escaped.compare(i, 6, "&quot;") == 0) {
        text += '"';
        i += 6;
      } else if (escaped.compare(i, 5, "&amp;") == 0) {
        text += '&';
        i += 5;
      } else {
        text += escaped[i++];
      }
    }
    return json::parse(text, nullptr, false);
  }
};

TEST_F(BrowserTest, DrawsTheMeshAnswersSweepsAsTheCommandAndReplaysATrace) {
  if (!std::filesystem::exists(kChromium)) GTEST_SKIP() << kChromium << " is not installed (apt-get install chromium)";
  const CommandRun crowd = capsweep_cmd("crowd --scene @arena --agents 30 --ticks 40 --threads 1 --trace " + path("t.cwsq"));
  ASSERT_EQ(crowd.code, 0) << crowd.output;
  ViewerInputs in(World(make_arena()), "@arena");
  in.trace_path = path("t.cwsq");
  in.replay = cut_trace(read_claimed_moves(in.trace_path), in.trace_path);
  ASSERT_EQ(in.replay->agents, 30u);
  ASSERT_EQ(in.replay->ticks, 40u);
  const std::size_t triangles = in.world.triangle_count();
  ViewerServer server(std::move(in), "127.0.0.1:0");
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port()) + "/";

  // A capsule dropped onto the arena's floor, on the scalar path.
  const std::string request = R"({"path":"scalar","queries":[{"shape":"capsule","a":[1.5,3.25,-2.5],"b":[1.5,4.75,-2.5],"radius":0.375,"motion":[0.5,-6,0.25]}]})";
  const json state = page_state(chromium(base + "?mode=sweep&test=sweep,replay&request=" + url_encoded(request), "--dump-dom"));
  ASSERT_TRUE(state.is_object()) << "no state in the page's DOM";
  EXPECT_TRUE(state["errors"].empty()) << state["errors"];
  EXPECT_EQ(state["done"], true);
  EXPECT_EQ(state["meshTriangles"], triangles);
  EXPECT_GT(state["drawnPixels"].get<int>(), 20000);  // of 700,000: the mesh covers much of the view
  // The sweep, through the page and the server, is what the command answers for its query file.
  ASSERT_TRUE(state["lastSweep"].is_object());
  EXPECT_EQ(state["lastSweep"]["hit"], true);
  write("q.cwsq", base64_decoded(state["lastSweep"]["cwsq"]));
  const CommandRun sweep = capsweep_cmd("sweep --scene @arena --path scalar --queries " + path("q.cwsq") + " --out " + path("r.cwsr"));
  ASSERT_EQ(sweep.code, 0) << sweep.output;
  EXPECT_EQ(base64_decoded(state["lastSweep"]["cwsr"]), read(path("r.cwsr")));
  const std::vector<SweepQuery> queries = read_queries(path("q.cwsq"));
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0].capsule.a.y, 3.25f);
  EXPECT_EQ(queries[0].motion.y, -6.f);
  // The trace played to its last tick.
  EXPECT_EQ(state["replayTicks"], 40);
  EXPECT_EQ(state["replayTick"], 39);

  // A screenshot of the sweep lab is not blank: many pixels differ from the background.
  chromium(base + "?mode=sweep", "--screenshot=" + path("shot.png"));
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&image, path("shot.png").c_str())) << "no screenshot";
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  ASSERT_TRUE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr));
  std::size_t drawn = 0;
  for (std::size_t i = 0; i < pixels.size(); i += 3) {
    drawn += std::abs(pixels[i] - 0x1d) + std::abs(pixels[i + 1] - 0x20) + std::abs(pixels[i + 2] - 0x26) > 12;
  }
  EXPECT_GT(drawn, pixels.size() / 3 / 20) << "of " << pixels.size() / 3 << " pixels";
}

}  // namespace
}  // namespace capsweep::viewer
