// capsweep view: the browser viewer (viewer/): loads the world and the files named, serves the
// page from this process and prints its URL; runs until SIGINT or SIGTERM.
#include <signal.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "viewer/viewer_server.h"

namespace capsweep {

Command add_view(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string trace, queries, answers, compare, listen = "127.0.0.1:8040";
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("view",
                                   "Serves an interactive viewer of a scene in the browser: sweeps tried by hand, a query "
                                   "file's answers, a crowd's trace replayed (docs/VIEWER.md)");
  add_scene_options(*c, a->scene);
  add_poses(*c, a->scene);
  c->add_option("--trace", a->trace, "A crowd's trace (capsweep crowd --trace) to replay");
  c->add_option("--queries", a->queries, "A CWSQ file whose answers --answers holds, to inspect");
  c->add_option("--answers", a->answers, "The CWSR answers to --queries")->needs("--queries");
  c->add_option("--compare", a->compare, "Other CWSR answers to the same queries, drawn against --answers")->needs("--answers");
  c->add_option("--listen", a->listen, "HOST:PORT to serve on (port 0: any free port); not loopback: reachable by others")
      ->capture_default_str();
  return [a] {
    if (!a->queries.empty() && a->answers.empty()) throw UsageError("--queries needs --answers");
    viewer::ViewerInputs in(load_world(a->scene), a->scene.path);
    if (!a->queries.empty()) {
      const SweepFile q = read_sweep_file(a->queries);
      in.queries_path = a->queries;
      in.of_ellipsoids = q.of_ellipsoids;
      in.capsules = q.capsules;
      in.ellipsoids = q.ellipsoids;
      in.answers_path = a->answers;
      in.answers = read_result_file(a->answers);
      if (!a->compare.empty()) {
        in.compare_path = a->compare;
        in.compare = read_result_file(a->compare);
      }
    }
    if (!a->trace.empty()) {
      in.trace_path = a->trace;
      in.replay = viewer::cut_trace(read_claimed_moves(a->trace), a->trace);
    }
    // Block the stop signals before the server's threads start, so only the sigwait sees them.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    const std::size_t triangles = in.world.triangle_count();
    const std::string replay = in.replay ? ", a trace of " + std::to_string(in.replay->agents) + " agents over " +
                                               std::to_string(in.replay->ticks) + " ticks"
                                         : "";
    viewer::ViewerServer server(std::move(in), a->listen);
    if (!viewer::is_loopback(server.host())) {
      std::fprintf(stderr, "capsweep view: warning: listening on %s, not loopback: anyone who can reach it can use it\n",
                   server.host().c_str());
    }
    std::printf("capsweep view: %s (%zu triangles%s) at http://%s:%d/ (Ctrl-C stops)\n", a->scene.path.c_str(), triangles,
                replay.c_str(), server.host().c_str(), server.port());
    std::fflush(stdout);
    int signal = 0;
    sigwait(&stop, &signal);
    return 0;
  };
}

}  // namespace capsweep
