#include "service/metrics_page.h"

#include <civetweb.h>

#include <cstring>
#include <stdexcept>

namespace capsweep::service {

namespace {

// Workers, and how long one request may take to arrive and be answered: a client that stalls
// holds one worker for at most that long, and the others go on serving.
constexpr const char* kWorkers = "8";
constexpr const char* kTimeoutMs = "2000";

void reply(mg_connection* c, const char* status, const std::string& body) {
  mg_printf(c,
            "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
            status, body.size());
  mg_write(c, body.data(), body.size());
}

}  // namespace

MetricsPage::MetricsPage(const std::string& listen, std::function<std::string()> page) : page_(std::move(page)) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--metrics wants HOST:PORT, got '" + listen + "'");
  const std::string host = listen.substr(0, colon);
  const std::string ports = (host == "localhost" ? "127.0.0.1" : host) + listen.substr(colon);
  mg_init_library(0);
  const char* options[] = {"listening_ports", ports.c_str(), "num_threads", kWorkers, "request_timeout_ms", kTimeoutMs,
                           nullptr};
  mg_callbacks callbacks;
  std::memset(&callbacks, 0, sizeof callbacks);
  server_ = mg_start(&callbacks, this, options);
  if (!server_) {
    mg_exit_library();
    throw std::runtime_error("--metrics: cannot listen on " + listen);
  }
  mg_server_port bound[4];
  if (mg_get_server_ports(server_, 4, bound) < 1) {
    mg_stop(server_);
    mg_exit_library();
    throw std::runtime_error("--metrics: cannot tell the port of " + listen);
  }
  port_ = bound[0].port;
  mg_set_request_handler(server_, "/", &MetricsPage::handle, this);
}

MetricsPage::~MetricsPage() {
  mg_stop(server_);
  mg_exit_library();
}

int MetricsPage::handle(mg_connection* c, void* self) {
  const mg_request_info* request = mg_get_request_info(c);
  const std::string method = request->request_method ? request->request_method : "";
  const std::string uri = request->local_uri ? request->local_uri : "";
  if (method == "GET" && (uri == "/metrics" || uri == "/")) {
    reply(c, "200 OK", static_cast<MetricsPage*>(self)->page_());
    return 200;
  }
  reply(c, "404 Not Found", "capsweep serves GET /metrics\n");
  return 404;
}

}  // namespace capsweep::service
