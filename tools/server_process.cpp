#include "tools/server_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace capsweep {

ServerProcess::ServerProcess(const std::string& binary, const std::vector<std::string>& args) {
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw std::runtime_error("cannot create a pipe");
  std::vector<std::string> argv_text{binary, "serve", "--listen", "127.0.0.1:0"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_text) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("cannot fork");
  if (pid_ == 0) {
    dup2(pipe_fd[1], STDOUT_FILENO);
    dup2(pipe_fd[1], STDERR_FILENO);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fd[1]);
  out_ = pipe_fd[0];
  const std::string marker = "listening on 127.0.0.1:";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < give_up) {
    const auto at = output_.find(marker);
    if (at != std::string::npos && output_.find('\n', at) != std::string::npos) {
      port_ = std::stoi(output_.substr(at + marker.size()));
      return;
    }
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(out_, buffer, sizeof buffer);
    if (n <= 0) break;
    output_.append(buffer, std::size_t(n));
  }
  kill(pid_, SIGKILL);
  wait();
  throw std::runtime_error("capsweep serve did not start:\n" + output_);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    wait();
  }
  if (out_ >= 0) close(out_);
}

void ServerProcess::signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

int ServerProcess::wait() {
  if (pid_ <= 0) return -1;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace capsweep
