// The viewer's HTTP side (capsweep view): one world and the files named on the command line,
// served to the page over civetweb (as the service's /metrics page is). It answers only a fixed
// set of paths, matched exactly (the page's files, three.js, the API): nothing is looked up on
// disk from a request, so `..`, encoded dots, absolute paths and symlinks never reach a file.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <capsweep/files.h>
#include <capsweep/world.h>

#include "viewer/trace_replay.h"

struct mg_context;
struct mg_connection;

namespace capsweep::viewer {

// What `capsweep view` loaded; every file is read and checked before the server starts.
struct ViewerInputs {
  ViewerInputs(World w, std::string scene) : world(std::move(w)), scene_name(std::move(scene)) {}
  World world;
  std::string scene_name;
  // --queries Q --answers R [--compare R2]: the queries (one kind) and their answers.
  std::string queries_path, answers_path, compare_path;
  bool of_ellipsoids = false;
  std::vector<SweepQuery> capsules;
  std::vector<SweepEllipsoidQuery> ellipsoids;
  std::optional<ResultFile> answers, compare;
  // --trace T: a crowd's trace, cut into ticks.
  std::string trace_path;
  std::optional<Replay> replay;
};

// Throws std::runtime_error naming the file for answers that do not match the queries' count.
void check_inputs(const ViewerInputs& inputs);

class ViewerServer {
 public:
  // Listens on host:port (port 0 picks one); throws std::runtime_error when it cannot, or when
  // three.js is not where libjs-three installs it.
  ViewerServer(ViewerInputs inputs, const std::string& listen);
  ~ViewerServer();  // stops the server, waiting for requests in progress
  ViewerServer(const ViewerServer&) = delete;
  ViewerServer& operator=(const ViewerServer&) = delete;
  int port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  struct Reply {
    int status = 200;
    std::string type, body;
  };
  static int handle(mg_connection* connection, void* self);
  // A file of files_, or `made` filled in.
  const Reply& answer(const std::string& method, const std::string& path, const std::string& query,
                      const std::string& body, Reply& made) const;
  Reply sweep(const std::string& body) const;
  std::string info_json() const;

  ViewerInputs inputs_;
  std::map<std::string, Reply> files_;  // every GET answered from memory: the page, three.js, the mesh
  mg_context* server_ = nullptr;
  int port_ = 0;
  std::string host_;
};

// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost): `view` warns otherwise.
bool is_loopback(const std::string& host);

}  // namespace capsweep::viewer
