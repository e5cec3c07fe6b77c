// A `capsweep serve` child process on loopback, for bench-service and the service tests: started,
// its port read from what it prints, stopped with SIGTERM (drain) or SIGKILL (a crash).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace capsweep {

class ServerProcess {
 public:
  // Runs `binary serve --listen 127.0.0.1:0 <args>` and waits (up to a minute) for the line
  // "listening on 127.0.0.1:PORT". Throws std::runtime_error with its output if it exits first.
  ServerProcess(const std::string& binary, const std::vector<std::string>& args);
  ~ServerProcess();  // SIGKILL if still running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  void signal(int sig);  // e.g. SIGTERM to drain, SIGKILL to crash it
  int wait();            // its exit status (exit code, or 128 + signal)
  const std::string& output() const { return output_; }  // what it printed until ready

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  int out_ = -1;
  std::string output_;
};

}  // namespace capsweep
