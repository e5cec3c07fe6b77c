// capsweep view as a user runs it: the URL it prints answers, SIGTERM stops it cleanly, a host
// that is not loopback is warned about, and files it cannot use are refused before it serves.
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/test_files.h"
#include "tests/viewer/http_client.h"

extern char** environ;

namespace capsweep {
namespace {

// `capsweep view ARGS` in the background, its stdout and stderr to `log`; the pid.
pid_t start_view(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all{CAPSWEEP_BINARY, "view"};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  pid_t pid = -1;
  posix_spawn(&pid, CAPSWEEP_BINARY, &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  return pid;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The port in "... at http://HOST:PORT/ ...", once the line is there (up to 30 s).
int port_in(const std::string& log) {
  for (int i = 0; i < 300; ++i) {
    const std::string text = contents(log);
    const auto at = text.find("at http://");
    if (at != std::string::npos) {
      const auto colon = text.find(':', at + 10);
      return std::atoi(text.c_str() + colon + 1);
    }
    usleep(100000);
  }
  return 0;
}

// Stops a started `view` when the test ends, however it ends: a failed ASSERT returns early and
// would otherwise leave the server running after the suite.
struct Stopped {
  pid_t pid;
  ~Stopped() {
    if (pid > 0 && kill(pid, SIGTERM) == 0) waitpid(pid, nullptr, 0);
  }
};

class ViewCommand : public ScratchDir {};

TEST_F(ViewCommand, ServesTheURLItPrintsAndStopsOnSigterm) {
  const pid_t pid = start_view({"--scene", "@arena", "--listen", "127.0.0.1:0"}, path("log"));
  ASSERT_GT(pid, 0);
  Stopped stopped{pid};
  const int port = port_in(path("log"));
  ASSERT_GT(port, 0) << read(path("log"));
  EXPECT_NE(read(path("log")).find("capsweep view: @arena (1232 triangles) at http://127.0.0.1:"), std::string::npos);
  EXPECT_EQ(read(path("log")).find("warning"), std::string::npos);
  const HttpReply info = http_get(port, "/api/info");
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(nlohmann::json::parse(info.body)["triangles"], 1232);
  stopped.pid = -1;  // stopped here, to see how it exits
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST_F(ViewCommand, WarnsWhenNotOnLoopback) {
  const pid_t pid = start_view({"--scene", "@arena", "--listen", "0.0.0.0:0"}, path("log"));
  ASSERT_GT(pid, 0);
  Stopped stopped{pid};
  ASSERT_GT(port_in(path("log")), 0) << read(path("log"));
  EXPECT_NE(read(path("log")).find("warning: listening on 0.0.0.0, not loopback"), std::string::npos) << read(path("log"));
}

TEST_F(ViewCommand, HasHelpWithItsDefaults) {
  const CommandRun help = capsweep_cmd("view --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.output.find("Usage: capsweep view"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--listen TEXT=127.0.0.1:8040"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--scene TEXT REQUIRED"), std::string::npos) << help.output;
}

TEST_F(ViewCommand, RefusesFilesItCannotServe) {
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 5 --out " + path("q.cwsq")).code, 0);
  ASSERT_EQ(capsweep_cmd("queries --scene @arena --workload tick --count 4 --out " + path("q4.cwsq")).code, 0);
  ASSERT_EQ(capsweep_cmd("sweep --scene @arena --queries " + path("q4.cwsq") + " --out " + path("r4.cwsr")).code, 0);
  const CommandRun mismatch = capsweep_cmd("view --scene @arena --listen 127.0.0.1:0 --queries " + path("q.cwsq") +
                                           " --answers " + path("r4.cwsr"));
  EXPECT_EQ(mismatch.code, 1);
  EXPECT_NE(mismatch.output.find(path("r4.cwsr") + ": 4 answers for the 5 queries of " + path("q.cwsq")), std::string::npos)
      << mismatch.output;
  const CommandRun lone = capsweep_cmd("view --scene @arena --answers " + path("r4.cwsr"));
  EXPECT_EQ(lone.code, 2) << lone.output;
  const CommandRun not_trace = capsweep_cmd("view --scene @arena --listen 127.0.0.1:0 --trace " + path("r4.cwsr"));
  EXPECT_EQ(not_trace.code, 1);
  EXPECT_NE(not_trace.output.find("not a CWSQ file"), std::string::npos) << not_trace.output;
}

}  // namespace
}  // namespace capsweep
