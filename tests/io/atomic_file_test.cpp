// Outputs are atomic: the file appears whole or not at all, a failed write leaves the file that
// was there untouched and nothing behind, and targets that are not regular files, or are
// inputs, are refused. One test per refusal, the message asserted.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <capsweep/files.h>

#include "io/atomic_file.h"
#include "tests/support/test_files.h"
#include "tools/arena.h"
#include "tools/obj_file.h"

namespace {

using namespace capsweep;
namespace fs = std::filesystem;

class AtomicOutput : public ScratchDir {
 protected:
  // The message the write is refused with ("" when it succeeds).
  template <class Write>
  static std::string refusal(Write&& write) {
    try {
      write();
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  // Every file in the scratch folder (to see that nothing was left behind).
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(fs::path(path("x")).parent_path())) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
  static std::vector<SweepQuery> queries(std::size_t n) {
    std::vector<SweepQuery> q(n);
    for (std::size_t i = 0; i < n; ++i) q[i] = {{{float(i), 1, 0}, {float(i), 2, 0}, 0.3f}, {1, 0, 0}};
    return q;
  }
};

TEST_F(AtomicOutput, WritesTheWholeFileAndLeavesNothingElse) {
  write_queries(path("q.cwsq"), queries(10));
  EXPECT_EQ(read_queries(path("q.cwsq")).size(), 10u);
  EXPECT_EQ(files(), std::vector<std::string>{"q.cwsq"});
  struct stat st {};
  ASSERT_EQ(::stat(path("q.cwsq").c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRGRP, 0u) << "an output is readable like any file, not private like a temporary";
}

TEST_F(AtomicOutput, ADirectoryAsTheTargetIsRefusedAndNothingLeftBehind) {
  fs::create_directory(path("out.cwsr"));
  EXPECT_EQ(refusal([&] { write_results(path("out.cwsr"), {}); }),
            path("out.cwsr") + ": is a directory; refusing to replace it");
  EXPECT_EQ(files(), std::vector<std::string>{"out.cwsr"});
}

TEST_F(AtomicOutput, ASymlinkAsTheTargetIsRefusedAndItsTargetUntouched) {
  write("real.cwsq", "precious");
  fs::create_symlink(path("real.cwsq"), path("link.cwsq"));
  EXPECT_EQ(refusal([&] { write_queries(path("link.cwsq"), queries(2)); }),
            path("link.cwsq") + ": not a regular file (a symlink, FIFO, socket or device); refusing to replace it");
  EXPECT_EQ(read(path("real.cwsq")), "precious");
  EXPECT_TRUE(fs::is_symlink(path("link.cwsq")));
}

TEST_F(AtomicOutput, AFifoAsTheTargetIsRefused) {
  ASSERT_EQ(::mkfifo(path("pipe.cwsr").c_str(), 0600), 0);
  EXPECT_EQ(refusal([&] { write_results(path("pipe.cwsr"), {}); }),
            path("pipe.cwsr") + ": not a regular file (a symlink, FIFO, socket or device); refusing to replace it");
  EXPECT_TRUE(fs::is_fifo(path("pipe.cwsr")));
}

TEST_F(AtomicOutput, ADeviceAsTheTargetIsRefused) {
  EXPECT_EQ(refusal([&] { write_file_atomically("/dev/null", "x"); }),
            "/dev/null: not a regular file (a symlink, FIFO, socket or device); refusing to replace it");
}

TEST_F(AtomicOutput, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  write_queries(path("q.cwsq"), queries(3));
  const std::string before = read(path("q.cwsq"));
  const std::vector<std::string> inputs{path("q.cwsq")};
  EXPECT_EQ(refusal([&] { write_results(path("q.cwsq"), {}, inputs); }),
            path("q.cwsq") + ": is also an input (" + path("q.cwsq") + "); refusing to overwrite it");
  // The same file under another name (a hard link) is the same input.
  fs::create_hard_link(path("q.cwsq"), path("alias.cwsq"));
  const std::vector<std::string> alias{path("alias.cwsq")};
  EXPECT_NE(refusal([&] { write_queries(path("q.cwsq"), queries(1), alias); }).find("is also an input"), std::string::npos);
  EXPECT_EQ(read(path("q.cwsq")), before);
}

TEST_F(AtomicOutput, AMissingFolderIsRefusedNamingTheFile) {
  EXPECT_EQ(refusal([&] { write_queries(path("no/such/q.cwsq"), queries(1)); }),
            path("no/such/q.cwsq") + ": cannot create: No such file or directory");
}

TEST_F(AtomicOutput, AnUnfinishedStreamedFileNeverAppears) {
  write_queries(path("trace.cwsq"), queries(4));
  const std::string before = read(path("trace.cwsq"));
  {
    QueryWriter writer(path("trace.cwsq"));
    for (const SweepQuery& q : queries(100)) writer.add(q);
    // destroyed without finish(): an interrupted crowd run
  }
  EXPECT_EQ(read(path("trace.cwsq")), before);
  EXPECT_EQ(files(), std::vector<std::string>{"trace.cwsq"});
  QueryWriter writer(path("trace.cwsq"));
  for (const SweepQuery& q : queries(100'000)) writer.add(q);  // past the 1 MiB buffer
  writer.finish();
  EXPECT_EQ(read_queries(path("trace.cwsq")).size(), 100'000u);
}

// A full disk, for real: a child process whose file size limit (RLIMIT_FSIZE) is far below
// what it writes gets EFBIG from write(2), as it would ENOSPC from a full disk.
TEST_F(AtomicOutput, AFailedWriteKeepsTheOldFileAndLeavesNothingBehind) {
  for (const char* kind : {"cwsq", "snapshot", "obj"}) {
    const std::string target = path(std::string("out.") + kind);
    write(std::string("out.") + kind, "the good file that was there");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{4096, 4096};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      std::string message;
      try {
        if (std::string(kind) == "cwsq") write_queries(target, queries(1000));
        if (std::string(kind) == "snapshot") save_snapshot(World(make_arena()), "@arena", target);
        if (std::string(kind) == "obj") write_obj(target, make_arena());
      } catch (const std::exception& e) {
        message = e.what();
      }
      // 0: refused with the file and the reason named; 1: not refused; 2: a wrong message.
      ::_exit(message.empty() ? 1 : message.find(target + ": cannot write: File too large") == 0 ? 0 : 2);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << kind;
    EXPECT_EQ(read(target), "the good file that was there") << kind;
    EXPECT_EQ(files(), std::vector<std::string>{std::string("out.") + kind}) << kind;
    fs::remove(target);
  }
}

}  // namespace
