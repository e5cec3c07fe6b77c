// The Prometheus text page over plain HTTP (GET /metrics), for scrapers that do not speak gRPC.
// One thread, one short response per connection: it serves counters, not traffic.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace capsweep::service {

class MetricsPage {
 public:
  // Listens on host:port (port 0 picks one); throws std::runtime_error when it cannot.
  MetricsPage(const std::string& listen, std::function<std::string()> page);
  ~MetricsPage();  // stops the thread
  MetricsPage(const MetricsPage&) = delete;
  MetricsPage& operator=(const MetricsPage&) = delete;
  int port() const { return port_; }

 private:
  void serve();
  std::function<std::string()> page_;
  int socket_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace capsweep::service
