#include "viewer/viewer_server.h"

#include <civetweb.h>
#include <pthread.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "viewer/mesh_buffer.h"
#include "viewer/page_assets.h"
#include "viewer/record_bytes.h"
#include "viewer/sweep_request.h"

namespace capsweep::viewer {

namespace {

using nlohmann::json;

// As /metrics: a pool of workers and a bound on how long one request may take to arrive, so one
// silent client holds one worker for at most that long.
constexpr const char* kWorkers = "4";
constexpr const char* kTimeoutMs = "10000";

// The three.js files the page loads (libjs-three, r111), served at /three/NAME.
constexpr const char* kThreeFiles[][2] = {{"three.min.js", "build/three.min.js"},
                                          {"OrbitControls.js", "examples/js/controls/OrbitControls.js"},
                                          {"TransformControls.js", "examples/js/controls/TransformControls.js"}};

std::string content_type(const std::string& name) {
  auto ends = [&](const char* s) { return name.size() >= std::strlen(s) && name.compare(name.size() - std::strlen(s), std::string::npos, s) == 0; };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("view: cannot read " + path + " (three.js r111: install Debian's libjs-three)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = unsigned((unsigned char)bytes[i]) << 16 | unsigned((unsigned char)bytes[i + 1]) << 8 | (unsigned char)bytes[i + 2];
    for (int k = 18; k >= 0; k -= 6) out += digits[(v >> k) & 63];
  }
  if (i < bytes.size()) {
    const unsigned v = unsigned((unsigned char)bytes[i]) << 16 | (i + 1 < bytes.size() ? unsigned((unsigned char)bytes[i + 1]) << 8 : 0);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

const char* feature_name(Feature f) {
  switch (f) {
    case Feature::face: return "face";
    case Feature::edge: return "edge";
    case Feature::vertex: return "vertex";
    default: return "none";
  }
}

json vec(const Vec3& v) { return {v.x, v.y, v.z}; }

json hit_json(const SweepHit& h) {
  return {{"hit", h.hit}, {"t", h.t}, {"normal", vec(h.normal)}, {"point", vec(h.point)}, {"depth", h.depth},
          {"feature", feature_name(h.feature)}, {"triangle", h.triangle == kNoTriangle ? json(nullptr) : json(h.triangle)},
          {"started_in_contact", h.started_in_contact()}};
}

json results_json(const ResultFile& file) {
  json hits = json::array();
  for (const SweepHit& h : file.hits) hits.push_back(hit_json(h));
  return {{"version", file.version}, {"hits", hits}};
}

// A whole number in [0, limit) from the query string's `name`, or nullopt.
std::optional<std::uint32_t> query_index(const std::string& query, const char* name, std::uint32_t limit) {
  char value[16];
  if (mg_get_var(query.c_str(), query.size(), name, value, sizeof value) <= 0) return std::nullopt;
  char* end = nullptr;
  const unsigned long v = std::strtoul(value, &end, 10);
  if (*end != '\0' || value[0] < '0' || value[0] > '9' || v >= limit) return std::nullopt;
  return std::uint32_t(v);
}

// Whether a request's Host header names this loopback server (127.x, localhost, [::1], any port),
// or it sent none. A page of another site whose name it rebinds to 127.0.0.1 sends its own name:
// without this, it could read the mesh and the files named on the command line (DNS rebinding).
bool loopback_host_header(const char* header) {
  if (!header) return true;
  std::string host = header;
  if (!host.empty() && host[0] == '[') {
    const auto close = host.find(']');
    host = close == std::string::npos ? host : host.substr(0, close + 1);
  } else if (const auto colon = host.find(':'); colon != std::string::npos) {
    host = host.substr(0, colon);
  }
  for (char& c : host) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (host == "localhost" || host == "[::1]") return true;
  // 127.a.b.c: digits and dots only, so that "127.0.0.1.evil.example" is not one.
  if (host.rfind("127.", 0) != 0) return false;
  for (char c : host) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return false;
  }
  return true;
}

}  // namespace

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

void check_inputs(const ViewerInputs& in) {
  const std::size_t queries = in.of_ellipsoids ? in.ellipsoids.size() : in.capsules.size();
  for (const auto& [path, file] : {std::pair{in.answers_path, &in.answers}, std::pair{in.compare_path, &in.compare}}) {
    if (*file && (*file)->hits.size() != queries) {
      throw std::runtime_error(path + ": " + std::to_string((*file)->hits.size()) + " answers for the " +
                               std::to_string(queries) + " queries of " + in.queries_path);
    }
  }
}

ViewerServer::ViewerServer(ViewerInputs inputs, const std::string& listen) : inputs_(std::move(inputs)) {
  check_inputs(inputs_);
  for (const PageAsset& a : page_assets()) {
    files_["/" + std::string(a.name)] = {200, content_type(a.name), std::string(reinterpret_cast<const char*>(a.data), a.size)};
  }
  files_["/"] = files_.at("/index.html");
  for (const auto& [name, path] : kThreeFiles) {
    files_["/three/" + std::string(name)] = {200, content_type(name), read_whole(std::string(CAPSWEEP_THREE_DIR) + "/" + path)};
  }
  files_["/api/mesh"] = {200, "application/octet-stream", mesh_buffer(inputs_.world)};
  files_["/api/info"] = {200, "application/json", info_json()};
  if (!inputs_.queries_path.empty()) {
    json queries = json::array();
    for (const SweepQuery& q : inputs_.capsules) {
      queries.push_back({{"shape", q.capsule.radius == 0 && q.capsule.a.x == q.capsule.b.x && q.capsule.a.y == q.capsule.b.y &&
                                           q.capsule.a.z == q.capsule.b.z ? "ray" : "capsule"},
                         {"a", vec(q.capsule.a)}, {"b", vec(q.capsule.b)}, {"radius", q.capsule.radius},
                         {"motion", vec(q.motion)}, {"layers", q.layers}});
    }
    for (const SweepEllipsoidQuery& q : inputs_.ellipsoids) {
      queries.push_back({{"shape", "ellipsoid"}, {"centre", vec(q.ellipsoid.centre)}, {"radii", vec(q.ellipsoid.radii)},
                         {"motion", vec(q.motion)}, {"layers", q.layers}});
    }
    files_["/api/queries"] = {200, "application/json", json{{"queries", queries}}.dump()};
  }
  if (inputs_.answers) files_["/api/answers"] = {200, "application/json", results_json(*inputs_.answers).dump()};
  if (inputs_.compare) files_["/api/compare"] = {200, "application/json", results_json(*inputs_.compare).dump()};
  if (inputs_.replay) files_["/api/trace"] = {200, "application/octet-stream", replay_buffer(*inputs_.replay)};

  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--listen wants HOST:PORT, got '" + listen + "'");
  host_ = listen.substr(0, colon);
  if (host_ == "localhost") host_ = "127.0.0.1";
  const std::string ports = host_ + listen.substr(colon);
  mg_init_library(0);
  const char* options[] = {"listening_ports", ports.c_str(), "num_threads", kWorkers, "request_timeout_ms", kTimeoutMs, nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof callbacks);
  server_ = mg_start(&callbacks, this, options);
  if (!server_) {
    mg_exit_library();
    throw std::runtime_error("view: cannot listen on " + listen);
  }
  mg_server_port bound[4];
  if (mg_get_server_ports(server_, 4, bound) < 1) {
    mg_stop(server_);
    mg_exit_library();
    throw std::runtime_error("view: cannot tell the port of " + listen);
  }
  port_ = bound[0].port;
  mg_set_request_handler(server_, "/", &ViewerServer::handle, this);
}

ViewerServer::~ViewerServer() {
  mg_stop(server_);
  mg_exit_library();
}

std::string ViewerServer::info_json() const {
  const World& w = inputs_.world;
  const WorldStats s = w.stats();
  const Aabb& b = w.bounds();
  // The heightfield's layers (the mesh buffer gives its cells only a hole flag): those of its first
  // cell that is not a hole (a hole is on none), for the page's layer toggles.
  std::uint32_t terrain_layers = 0;
  for (std::size_t k = 0; k < s.heightfield_triangles && terrain_layers == 0; ++k) {
    terrain_layers = w.layers_of(std::uint32_t(s.mesh_triangles + k));
  }
  return json{{"scene", inputs_.scene_name},
              {"triangles", s.triangles},
              {"heightfield", {{"columns", s.heightfield_columns}, {"rows", s.heightfield_rows}, {"layers", terrain_layers}}},
              {"instances", s.instances},
              {"tiles", s.tiles},
              {"bounds", {vec(b.min), vec(b.max)}},
              {"queries", inputs_.queries_path},
              {"answers", inputs_.answers_path},
              {"compare", inputs_.compare_path},
              {"trace", inputs_.trace_path},
              {"trace_agents", inputs_.replay ? inputs_.replay->agents : 0},
              {"trace_ticks", inputs_.replay ? inputs_.replay->ticks : 0},
              {"trace_unchained", inputs_.replay ? inputs_.replay->unchained : 0},
              {"max_batch", kMaxSweepBatch},
              {"max_request_bytes", kMaxRequestBytes}}
      .dump();
}

namespace {

// Runs `work` on a thread of its own with a stack of `bytes`, and waits for it; false when no
// such thread can be started. civetweb's worker threads get the stack libcivetweb was built with,
// which a sweep batch does not fit under AddressSanitizer (its lane pools and SIMD frames, grown
// by the redzones: a stack overflow in tests/sanitize.sh), so the batch runs on a stack sized for
// it rather than on whatever the library chose.
template <class Work>
bool run_with_stack(std::size_t bytes, Work& work) {
  struct Call {
    Work* work;
    std::exception_ptr error;
  } call{&work, nullptr};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setstacksize(&attr, bytes);
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attr,
      +[](void* p) -> void* {
        Call& c = *static_cast<Call*>(p);
        try {
          (*c.work)();
        } catch (...) {
          c.error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (started != 0) return false;
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
  return true;
}

}  // namespace

ViewerServer::Reply ViewerServer::sweep(const std::string& body) const {
  SweepRequest request;
  std::string why;
  if (!parse_sweep_request(body, request, why)) return {400, "text/plain", "capsweep view: " + why + "\n"};
  SweepOptions options;
  options.path = request.path;
  options.layers = request.layers;
  options.threads = 1;  // a handful of queries: the worker thread answers them itself
  std::vector<SweepHit> hits(request.size());
  std::vector<Status> status(request.size());
  auto answer_batch = [&] {
    if (request.of_ellipsoids) {
      inputs_.world.sweep_ellipsoid(request.ellipsoids, hits, options, status);
    } else {
      inputs_.world.sweep(request.capsules, hits, options, status);
    }
  };
  if (!run_with_stack(std::size_t(64) << 20, answer_batch)) {
    return {503, "text/plain", "capsweep view: no thread could be started to answer the sweep; try again\n"};
  }
  json answers = json::array();
  for (std::size_t i = 0; i < hits.size(); ++i) {
    json h = hit_json(hits[i]);
    h["status"] = describe(status[i]);
    answers.push_back(std::move(h));
  }
  return {200, "application/json",
          json{{"path", name(request.path)}, {"hits", answers}, {"cwsq", base64(query_file_bytes(request))},
               {"cwsr", base64(result_file_bytes(hits, inputs_.world))}}
              .dump()};
}

const ViewerServer::Reply& ViewerServer::answer(const std::string& method, const std::string& path,
                                                const std::string& query, const std::string& body, Reply& made) const {
  if (path == "/api/sweep") {
    if (method != "POST") return made = Reply{405, "text/plain", "capsweep view: /api/sweep takes POST\n"};
    return made = sweep(body);
  }
  if (path == "/api/trace/agent" && inputs_.replay) {
    if (method != "GET") return made = Reply{405, "text/plain", "capsweep view: GET only\n"};
    const auto tick = query_index(query, "tick", inputs_.replay->ticks);
    const auto agent = query_index(query, "agent", inputs_.replay->agents);
    if (!tick || !agent) {
      return made = Reply{400, "text/plain", "capsweep view: /api/trace/agent wants tick=0.." + std::to_string(inputs_.replay->ticks - 1) +
                                     "&agent=0.." + std::to_string(inputs_.replay->agents - 1) + "\n"};
    }
    return made = Reply{200, "application/json", agent_tick_json(*inputs_.replay, *tick, *agent)};
  }
  const auto file = files_.find(path);
  if (file == files_.end()) return made = Reply{404, "text/plain", "capsweep view: no such page\n"};
  if (method != "GET" && method != "HEAD") return made = Reply{405, "text/plain", "capsweep view: GET only\n"};
  return file->second;
}

int ViewerServer::handle(mg_connection* c, void* self) {
  const mg_request_info* request = mg_get_request_info(c);
  const std::string method = request->request_method ? request->request_method : "";
  // The path as sent (decoded, not cleaned): matched exactly against the served set, so that no
  // spelling of a path outside it (dots, doubled or back slashes) can name one inside it.
  const std::string path = request->local_uri_raw ? request->local_uri_raw : "";
  const std::string query = request->query_string ? request->query_string : "";
  std::string body;
  const auto* server = static_cast<const ViewerServer*>(self);
  Reply made;
  const Reply* reply = &made;
  if (request->content_length > static_cast<long long>(kMaxRequestBytes)) {
    made = {400, "text/plain", "capsweep view: the request is " + std::to_string(request->content_length) +
                                    " bytes, more than " + std::to_string(kMaxRequestBytes) + "\n"};
  } else {
    char buffer[8192];
    int n;
    while (body.size() <= kMaxRequestBytes && (n = mg_read(c, buffer, sizeof buffer)) > 0) body.append(buffer, std::size_t(n));
    if (body.size() > kMaxRequestBytes) {
      made = {400, "text/plain", "capsweep view: the request is more than " + std::to_string(kMaxRequestBytes) + " bytes\n"};
    } else {
      reply = &server->answer(method, path, query, body, made);
    }
  }
  if (reply->status == 200 && is_loopback(server->host_) && !loopback_host_header(mg_get_header(c, "Host"))) {
    made = {403, "text/plain", "capsweep view: this server answers only requests to its loopback address (Host: 127.0.0.1 or localhost)\n"};
    reply = &made;
  }
  const char* reason = reply->status == 200   ? "OK"
                       : reply->status == 400 ? "Bad Request"
                       : reply->status == 403 ? "Forbidden"
                       : reply->status == 404 ? "Not Found"
                                              : "Method Not Allowed";
  mg_printf(c,
            "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
            "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
            reply->status, reason, reply->type.c_str(), reply->body.size());
  if (method != "HEAD") mg_write(c, reply->body.data(), reply->body.size());
  return reply->status;
}

}  // namespace capsweep::viewer
