// A bare HTTP/1.1 client over a socket for the viewer's tests: sends the request bytes as given
// (so paths reach the server unnormalised: "..", "%2e%2e", "//", "\") and returns the status and body.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

struct HttpReply {
  int status = 0;
  std::string body;
};

inline HttpReply http_raw(int port, const std::string& request) {
  HttpReply reply;
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(std::uint16_t(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(s);
    return reply;
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(s, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and close before reading all of an oversized body
    sent += std::size_t(n);
  }
  ::shutdown(s, SHUT_WR);  // all sent: a server waiting for more body sees the end at once
  std::string all;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(s, buffer, sizeof buffer, 0)) > 0;) all.append(buffer, std::size_t(n));
  ::close(s);
  if (all.rfind("HTTP/1.1 ", 0) == 0) reply.status = std::stoi(all.substr(9, 3));
  const auto end = all.find("\r\n\r\n");
  if (end != std::string::npos) reply.body = all.substr(end + 4);
  return reply;
}

inline HttpReply http_get(int port, const std::string& path) {
  return http_raw(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

inline HttpReply http_post(int port, const std::string& path, const std::string& body) {
  return http_raw(port, "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body);
}
