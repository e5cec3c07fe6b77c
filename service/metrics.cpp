#include "service/metrics.h"

#include <cstdio>

namespace capsweep::service {

const char* name(Rpc rpc) {
  switch (rpc) {
    case Rpc::sweep: return "Sweep";
    case Rpc::move: return "Move";
    case Rpc::validate: return "Validate";
    case Rpc::overlap: return "Overlap";
    case Rpc::info: return "Info";
    case Rpc::sweep_ellipsoid: return "SweepEllipsoid";
  }
  return "?";
}

const char* code_name(grpc::StatusCode code) {
  static const char* const names[kStatusCodes] = {
      "OK",        "CANCELLED",         "UNKNOWN",          "INVALID_ARGUMENT",    "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",      "UNAVAILABLE",         "DATA_LOSS",         "UNAUTHENTICATED"};
  const int c = int(code);
  return c >= 0 && c < kStatusCodes ? names[c] : "UNKNOWN";
}

void Metrics::begin(Rpc rpc) { rpcs_[int(rpc)].in_flight.fetch_add(1, std::memory_order_relaxed); }

void Metrics::record(Rpc rpc, grpc::StatusCode code, std::uint64_t queries, std::uint64_t refused, double seconds) {
  PerRpc& r = rpcs_[int(rpc)];
  r.in_flight.fetch_sub(1, std::memory_order_relaxed);
  r.requests.fetch_add(1, std::memory_order_relaxed);
  r.queries.fetch_add(queries, std::memory_order_relaxed);
  r.refused.fetch_add(refused, std::memory_order_relaxed);
  const int c = int(code) >= 0 && int(code) < kStatusCodes ? int(code) : int(grpc::StatusCode::UNKNOWN);
  r.codes[c].fetch_add(1, std::memory_order_relaxed);
  std::size_t b = 0;
  while (b < kLatencyBounds.size() && seconds > kLatencyBounds[b]) ++b;
  r.buckets[b].fetch_add(1, std::memory_order_relaxed);
  r.nanoseconds.fetch_add(std::uint64_t(seconds * 1e9), std::memory_order_relaxed);
}

void Metrics::fill(pb::InfoResponse& info) const {
  for (int k = 0; k < kRpcCount; ++k) {
    const PerRpc& r = rpcs_[k];
    pb::RpcCounters* c = info.add_rpcs();
    c->set_rpc(name(Rpc(k)));
    c->set_requests(r.requests.load());
    c->set_queries(r.queries.load());
    c->set_refused_queries(r.refused.load());
    for (int code = 1; code < kStatusCodes; ++code) {
      if (std::uint64_t n = r.codes[code].load()) (*c->mutable_errors())[code_name(grpc::StatusCode(code))] = n;
    }
    pb::LatencyHistogram* h = c->mutable_latency();
    for (double bound : kLatencyBounds) h->add_upper_seconds(bound);
    for (const auto& n : r.buckets) h->add_count(n.load());
    h->set_sum_seconds(double(r.nanoseconds.load()) * 1e-9);
  }
}

std::string Metrics::prometheus(const std::string& extra) const {
  std::string out;
  char line[256];
  auto counter = [&](const char* metric, const char* help, auto value) {
    out += std::string("# HELP ") + metric + " " + help + "\n# TYPE " + metric + " counter\n";
    for (int k = 0; k < kRpcCount; ++k) {
      std::snprintf(line, sizeof line, "%s{rpc=\"%s\"} %llu\n", metric, name(Rpc(k)),
                    (unsigned long long)value(rpcs_[k]));
      out += line;
    }
  };
  counter("capsweep_requests_total", "RPCs finished.", [](const PerRpc& r) { return r.requests.load(); });
  out += "# HELP capsweep_requests_in_flight RPCs started and not yet finished.\n"
         "# TYPE capsweep_requests_in_flight gauge\n";
  for (int k = 0; k < kRpcCount; ++k) {
    std::snprintf(line, sizeof line, "capsweep_requests_in_flight{rpc=\"%s\"} %lld\n", name(Rpc(k)),
                  (long long)rpcs_[k].in_flight.load(std::memory_order_relaxed));
    out += line;
  }
  counter("capsweep_queries_total", "Batch elements answered.", [](const PerRpc& r) { return r.queries.load(); });
  counter("capsweep_refused_queries_total", "Batch elements refused (NaN/Inf, radius, range).",
          [](const PerRpc& r) { return r.refused.load(); });
  out += "# HELP capsweep_errors_total RPCs that ended with a gRPC status other than OK.\n"
         "# TYPE capsweep_errors_total counter\n";
  for (int k = 0; k < kRpcCount; ++k) {
    for (int code = 1; code < kStatusCodes; ++code) {
      if (std::uint64_t n = rpcs_[k].codes[code].load()) {
        std::snprintf(line, sizeof line, "capsweep_errors_total{rpc=\"%s\",code=\"%s\"} %llu\n", name(Rpc(k)),
                      code_name(grpc::StatusCode(code)), (unsigned long long)n);
        out += line;
      }
    }
  }
  out += "# HELP capsweep_request_seconds Server-side time from request to response.\n"
         "# TYPE capsweep_request_seconds histogram\n";
  for (int k = 0; k < kRpcCount; ++k) {
    const PerRpc& r = rpcs_[k];
    std::uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= kLatencyBounds.size(); ++b) {
      cumulative += r.buckets[b].load();
      if (b < kLatencyBounds.size()) {
        std::snprintf(line, sizeof line, "capsweep_request_seconds_bucket{rpc=\"%s\",le=\"%g\"} %llu\n", name(Rpc(k)),
                      kLatencyBounds[b], (unsigned long long)cumulative);
      } else {
        std::snprintf(line, sizeof line, "capsweep_request_seconds_bucket{rpc=\"%s\",le=\"+Inf\"} %llu\n",
                      name(Rpc(k)), (unsigned long long)cumulative);
      }
      out += line;
    }
    std::snprintf(line, sizeof line, "capsweep_request_seconds_sum{rpc=\"%s\"} %.9f\ncapsweep_request_seconds_count{rpc=\"%s\"} %llu\n",
                  name(Rpc(k)), double(r.nanoseconds.load()) * 1e-9, name(Rpc(k)), (unsigned long long)cumulative);
    out += line;
  }
  return out + extra;
}

}  // namespace capsweep::service
