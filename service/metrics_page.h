// The Prometheus text page over HTTP (GET /metrics), for scrapers that do not speak gRPC, served
// by civetweb (Debian's libcivetweb-dev): a pool of workers with request timeouts, so one slow
// or silent client cannot hold up scrapes and probes.
#pragma once

#include <functional>
#include <string>

struct mg_context;
struct mg_connection;

namespace capsweep::service {

class MetricsPage {
 public:
  // Listens on host:port (port 0 picks one); throws std::runtime_error when it cannot.
  MetricsPage(const std::string& listen, std::function<std::string()> page);
  ~MetricsPage();  // stops the server, waiting for requests in progress
  MetricsPage(const MetricsPage&) = delete;
  MetricsPage& operator=(const MetricsPage&) = delete;
  int port() const { return port_; }

 private:
  static int handle(mg_connection* connection, void* self);
  std::function<std::string()> page_;
  mg_context* server_ = nullptr;
  int port_ = 0;
};

}  // namespace capsweep::service
