// The viewer's HTTP side, in-process on a free port: what it serves, and every refusal (paths
// outside its set in any spelling, bad methods, malformed and oversized requests).
#include "viewer/viewer_server.h"

#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.h"
#include "tests/viewer/http_client.h"
#include "tools/arena.h"
#include "viewer/mesh_buffer.h"
#include "viewer/sweep_request.h"

namespace capsweep::viewer {
namespace {

using nlohmann::json;

// One server for the suite: stopping one waits for civetweb's workers to notice (about 2 s).
std::string base64_decoded(const std::string& b64) {
  const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (char c : b64) {
    const char* at = std::strchr(digits, c);
    if (c == '=' || !at) break;
    v = v << 6 | unsigned(at - digits);
    if ((bits += 6) >= 8) out.push_back(char((v >> (bits -= 8)) & 0xFF));
  }
  return out;
}

class ViewerServerTest : public ScratchDir {
 protected:
  static void SetUpTestSuite() { server_ = new ViewerServer(ViewerInputs(World(make_arena()), "@arena"), "127.0.0.1:0"); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ScratchDir::SetUp();
    port_ = server_->port();
    // A file in the test's own folder that no request may reach.
    write("secret.txt", "not for the page");
  }
  static ViewerServer* server_;
  int port_ = 0;
};
ViewerServer* ViewerServerTest::server_ = nullptr;

TEST_F(ViewerServerTest, ServesThePageThreeJsTheMeshAndInfo) {
  const HttpReply index = http_get(port_, "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("/three/three.min.js"), std::string::npos);
  EXPECT_EQ(http_get(port_, "/index.html").body, index.body);
  for (const char* path : {"/viewer.js", "/scene.js", "/sweep_lab.js", "/answers.js", "/replay.js", "/viewer.css",
                           "/three/OrbitControls.js", "/three/TransformControls.js"}) {
    EXPECT_EQ(http_get(port_, path).status, 200) << path;
  }
  const HttpReply three = http_get(port_, "/three/three.min.js");
  EXPECT_EQ(three.status, 200);
  EXPECT_NE(three.body.find("REVISION=\"111\""), std::string::npos);
  const json info = json::parse(http_get(port_, "/api/info").body);
  EXPECT_EQ(info["triangles"], World(make_arena()).triangle_count());
  EXPECT_EQ(info["max_batch"], kMaxSweepBatch);
  EXPECT_EQ(http_get(port_, "/api/mesh").body, mesh_buffer(World(make_arena())));
}

TEST_F(ViewerServerTest, AnyPathOutsideItsSetIs404) {
  for (const char* path :
       {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/%2e%2e/etc/passwd", "/three/../../../../etc/passwd",
        "/three/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/three//three.min.js", "/..%2fsecret.txt",
        "/%2fetc%2fpasswd", "/etc/passwd", "/three\\..\\..\\etc\\passwd", "/three%5c..%5c..%5cetc%5cpasswd",
        "/index.html/", "/./index.html", "/index.html/.", "/INDEX.HTML", "/three/", "/three", "/api/", "/api/queries",
        "/api/answers", "/api/compare", "/api/trace", "/api/trace/agent?tick=0&agent=0", "/usr/share/javascript/three/three.min.js",
        "/proc/self/environ", "/three/../../../../proc/self/cwd/secret.txt", "/secret.txt"}) {
    const HttpReply r = http_get(port_, path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.body.find("not for the page"), std::string::npos) << path;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << path;
  }
  // An absolute URI in the request line names no file either.
  EXPECT_NE(http_raw(port_, "GET http://127.0.0.1/../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n").status, 200);
  EXPECT_NE(http_raw(port_, "GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n").status, 200);
}

// DNS rebinding: a page of another site whose name now resolves to 127.0.0.1 sends its own name
// as Host; what it would read or run is refused. The loopback names, with any port, are served.
TEST_F(ViewerServerTest, RequestsForAnotherHostAre403) {
  const std::string ray = R"({"queries":[{"shape":"ray","from":[0,1,0],"motion":[0,-2,0]}]})";
  for (const char* host : {"evil.example", "evil.example:8040", "127.0.0.1.evil.example", "localhost.evil.example",
                           "192.168.1.5"}) {
    const std::string h = std::string("\r\nHost: ") + host + "\r\nConnection: close";
    for (const std::string& request :
         {"GET /api/mesh HTTP/1.1" + h + "\r\n\r\n", "GET / HTTP/1.1" + h + "\r\n\r\n",
          "POST /api/sweep HTTP/1.1" + h + "\r\nContent-Length: " + std::to_string(ray.size()) + "\r\n\r\n" + ray}) {
      const HttpReply r = http_raw(port_, request);
      EXPECT_EQ(r.status, 403) << request;
      EXPECT_EQ(r.body.find("CWVM"), std::string::npos) << request;
    }
  }
  for (const std::string& host : std::vector<std::string>{"127.0.0.1", "127.0.0.1:" + std::to_string(port_), "localhost:" + std::to_string(port_),
                                 "LOCALHOST", "[::1]:8040", "127.1.2.3"}) {
    EXPECT_EQ(http_raw(port_, "GET /api/info HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").status, 200) << host;
  }
  EXPECT_EQ(http_raw(port_, "GET /api/info HTTP/1.0\r\n\r\n").status, 200);  // no Host at all: not a browser's
}

TEST_F(ViewerServerTest, WrongMethodsAreRefused) {
  EXPECT_EQ(http_get(port_, "/api/sweep").status, 405);
  EXPECT_EQ(http_post(port_, "/index.html", "x").status, 405);
  EXPECT_EQ(http_raw(port_, "DELETE /api/mesh HTTP/1.1\r\nHost: x\r\n\r\n").status, 405);
}

TEST_F(ViewerServerTest, MalformedAndOversizedSweepsAre400WithAMessage) {
  const HttpReply bad = http_post(port_, "/api/sweep", "{\"queries\":[{\"shape\":\"ray\"}]}");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body, "capsweep view: queries[0].from is missing\n");
  EXPECT_EQ(http_post(port_, "/api/sweep", "").status, 400);
  EXPECT_EQ(http_post(port_, "/api/sweep", std::string(1000, '{')).status, 400);
  const HttpReply big = http_post(port_, "/api/sweep", std::string(kMaxRequestBytes + 1, ' '));
  EXPECT_EQ(big.status, 400);
  EXPECT_NE(big.body.find("more than " + std::to_string(kMaxRequestBytes)), std::string::npos);
  // A body longer than its Content-Length says is cut there, and a lie about a huge one is refused unread.
  EXPECT_EQ(http_raw(port_, "POST /api/sweep HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{}").status, 400);
  std::string many = "{\"queries\":[";
  for (std::size_t i = 0; i <= kMaxSweepBatch; ++i) many += std::string(i ? "," : "") + R"({"shape":"ray","from":[0,1,0],"motion":[0,-2,0]})";
  EXPECT_EQ(http_post(port_, "/api/sweep", many + "]}").status, 400);
  // ...and the server still answers afterwards.
  EXPECT_EQ(http_post(port_, "/api/sweep", R"({"queries":[{"shape":"ray","from":[0,1,0],"motion":[0,-2,0]}]})").status, 200);
}

TEST_F(ViewerServerTest, SweepsAnswerWithTheBytesOfTheCommandsFiles) {
  const std::string body = R"({"path":"scalar","queries":[
      {"shape":"capsule","a":[0.5,1.2,0.25],"b":[0.5,2.4,0.25],"radius":0.4,"motion":[0.5,-3,7]},
      {"shape":"ray","from":[3,5,-2],"motion":[0,-20,0]},
      {"shape":"capsule","a":[0,500,0],"b":[0,501,0],"radius":0.3,"motion":[1,0,0]}]})";
  const HttpReply r = http_post(port_, "/api/sweep", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = json::parse(r.body);
  // What `capsweep sweep --path scalar` reads and writes for these queries, through the library's writers.
  SweepRequest request;
  std::string why;
  ASSERT_TRUE(parse_sweep_request(body, request, why));
  write_queries(path("q.cwsq"), request.capsules);
  const World world(make_arena());
  std::vector<SweepHit> hits(request.capsules.size());
  world.sweep(request.capsules, hits, on_path(SweepPath::scalar));
  write_results(path("r.cwsr"), hits, world);
  auto decode = [](const std::string& b64) {
    std::string out;
    unsigned v = 0;
    int bits = 0;
    for (char c : b64) {
      const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      const char* at = std::strchr(digits, c);
      if (c == '=' || !at) break;
      v = v << 6 | unsigned(at - digits);
      if ((bits += 6) >= 8) out.push_back(char((v >> (bits -= 8)) & 0xFF));
    }
    return out;
  };
  EXPECT_EQ(decode(answer["cwsq"]), read(path("q.cwsq")));
  EXPECT_EQ(decode(answer["cwsr"]), read(path("r.cwsr")));
  ASSERT_EQ(answer["hits"].size(), 3u);
  EXPECT_EQ(answer["hits"][0]["hit"], hits[0].hit);
  EXPECT_EQ(answer["hits"][0]["t"].get<float>(), hits[0].t);
  EXPECT_EQ(answer["hits"][2]["hit"], false);
  EXPECT_EQ(answer["path"], "scalar");
}

// The page sends its layer toggles as the batch's mask, which a CWSQ file cannot hold as such:
// the file it downloads carries it in each record, so `capsweep sweep` (no --mask) answers that
// file with the bytes the page showed.
TEST_F(ViewerServerTest, TheQueryFileCarriesTheBatchsLayers) {
  // Onto the arena's floor (layer 1), with a batch that sees only layer 2: a miss.
  const std::string body = R"({"path":"scalar","layers":2,"queries":[
      {"shape":"capsule","a":[1.5,3.25,-2.5],"b":[1.5,4.75,-2.5],"radius":0.375,"motion":[0.5,-6,0.25]},
      {"shape":"ray","from":[3,5,-2],"motion":[0,-20,0],"layers":3}]})";
  const HttpReply r = http_post(port_, "/api/sweep", body);
  ASSERT_EQ(r.status, 200) << r.body;
  const json answer = json::parse(r.body);
  EXPECT_EQ(answer["hits"][0]["hit"], false);
  EXPECT_EQ(answer["hits"][1]["hit"], false);
  write("q.cwsq", base64_decoded(answer["cwsq"]));
  const std::vector<SweepQuery> queries = read_queries(path("q.cwsq"));
  ASSERT_EQ(queries.size(), 2u);
  EXPECT_EQ(queries[0].layers, 2u);
  EXPECT_EQ(queries[1].layers, 2u);
  const World world(make_arena());
  std::vector<SweepHit> hits(queries.size());
  world.sweep(queries, hits, on_path(SweepPath::scalar));  // as `capsweep sweep --path scalar`, every layer
  write_results(path("r.cwsr"), hits, world);
  EXPECT_EQ(base64_decoded(answer["cwsr"]), read(path("r.cwsr")));
}

// The page draws the heightfield as its grid and toggles it with the heightfield's own layers:
// /api/info says which (the mesh buffer gives its cells only a hole flag).
TEST(ViewerServer, InfoNamesTheHeightfieldsLayers) {
  Heightfield field;
  field.columns = 3;
  field.rows = 3;
  field.cell_x = field.cell_z = 1.f;
  field.heights.assign(9, 0.f);
  field.holes = {1, 0, 0, 0};
  field.layers = 4;
  ViewerServer server(ViewerInputs(World(std::move(field)), "terrain"), "127.0.0.1:0");
  const json info = json::parse(http_get(server.port(), "/api/info").body);
  EXPECT_EQ(info["heightfield"]["columns"], 3);
  EXPECT_EQ(info["heightfield"]["layers"], 4);
}

TEST_F(ViewerServerTest, InfoSaysAWorldWithoutAHeightfieldHasNoLayersForOne) {
  EXPECT_EQ(json::parse(http_get(port_, "/api/info").body)["heightfield"]["layers"], 0);
}

TEST(ViewerInputs, AnswersMustMatchTheirQueries) {
  ViewerInputs in(World(make_arena()), "@arena");
  in.queries_path = "q.cwsq";
  in.capsules.resize(3);
  in.answers_path = "r.cwsr";
  in.answers = ResultFile{};
  in.answers->hits.resize(2);
  try {
    check_inputs(in);
    ADD_FAILURE() << "two answers for three queries were accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "r.cwsr: 2 answers for the 3 queries of q.cwsq");
  }
  in.answers->hits.resize(3);
  EXPECT_NO_THROW(check_inputs(in));
}

TEST(Loopback, TellsLoopbackFromOthers) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("localhost"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("192.168.1.5"));
}

}  // namespace
}  // namespace capsweep::viewer
