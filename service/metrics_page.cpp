#include "service/metrics_page.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace capsweep::service {
namespace {

void send_all(int fd, const std::string& data) {
  for (std::size_t sent = 0; sent < data.size();) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += std::size_t(n);
  }
}

}  // namespace

MetricsPage::MetricsPage(const std::string& listen, std::function<std::string()> page) : page_(std::move(page)) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--metrics wants HOST:PORT, got '" + listen + "'");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  const std::string host = listen.substr(0, colon);
  if (inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(), &address.sin_addr) != 1) {
    throw std::runtime_error("--metrics: '" + host + "' is not an IPv4 address");
  }
  char* end = nullptr;
  const long port = std::strtol(listen.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535) throw std::runtime_error("--metrics: bad port in '" + listen + "'");
  address.sin_port = htons(std::uint16_t(port));
  socket_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int yes = 1;
  setsockopt(socket_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (socket_ < 0 || ::bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(socket_, 16) != 0) {
    const std::string why = std::strerror(errno);
    if (socket_ >= 0) ::close(socket_);
    throw std::runtime_error("--metrics: cannot listen on " + listen + ": " + why);
  }
  socklen_t length = sizeof address;
  getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

MetricsPage::~MetricsPage() {
  stop_ = true;
  thread_.join();
  ::close(socket_);
}

void MetricsPage::serve() {
  while (!stop_) {
    pollfd p{socket_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;  // wakes up to notice stop_
    const int client = ::accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    // Read the request head (bounded; a slow or silent client gets one second).
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 8192) {
      pollfd c{client, POLLIN, 0};
      if (::poll(&c, 1, 1000) <= 0) break;
      const ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      request.append(buffer, std::size_t(n));
    }
    std::string status = "200 OK", body;
    if (request.rfind("GET /metrics ", 0) == 0 || request.rfind("GET / ", 0) == 0) {
      body = page_();
    } else {
      status = "404 Not Found";
      body = "capsweep serves GET /metrics\n";
    }
    send_all(client, "HTTP/1.0 " + status + "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    ::close(client);
  }
}

}  // namespace capsweep::service
