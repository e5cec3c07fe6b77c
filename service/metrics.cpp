#include "service/metrics.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <vector>

#include "service/convert.h"

namespace capsweep::service {

const char* name(Rpc rpc) {
  switch (rpc) {
    case Rpc::sweep: return "Sweep";
    case Rpc::move: return "Move";
    case Rpc::validate: return "Validate";
    case Rpc::overlap: return "Overlap";
    case Rpc::info: return "Info";
    case Rpc::sweep_ellipsoid: return "SweepEllipsoid";
    case Rpc::upload_poses: return "UploadPoses";
    case Rpc::navigate: return "Navigate";
  }
  return "?";
}

// Registered in the order the page has always listed them; prometheus-cpp lists counters first,
// then gauges, then histograms.
Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {
  using namespace prometheus;
  auto& requests = BuildCounter().Name("capsweep_requests_total").Help("RPCs finished.").Register(*registry_);
  auto& in_flight = BuildGauge()
                        .Name("capsweep_requests_in_flight")
                        .Help("RPCs started and not yet finished.")
                        .Register(*registry_);
  auto& queries = BuildCounter().Name("capsweep_queries_total").Help("Batch elements answered.").Register(*registry_);
  auto& refused = BuildCounter()
                      .Name("capsweep_refused_queries_total")
                      .Help("Batch elements refused (NaN/Inf, radius, range).")
                      .Register(*registry_);
  errors_ = &BuildCounter()
                 .Name("capsweep_errors_total")
                 .Help("RPCs that ended with a gRPC status other than OK.")
                 .Register(*registry_);
  auto& latency = BuildHistogram()
                      .Name("capsweep_request_seconds")
                      .Help("Server-side time from request to response.")
                      .Register(*registry_);
  worlds_ = &BuildGauge().Name("capsweep_world_triangles").Help("Triangles of each world served.").Register(*registry_);
  uptime_ = &BuildGauge()
                 .Name("capsweep_uptime_seconds")
                 .Help("Seconds since the server started.")
                 .Register(*registry_)
                 .Add({});
  auto& posed = BuildCounter()
                    .Name("capsweep_posed_requests_total")
                    .Help("Requests answered at poses of their own (carried, or a pose set named).")
                    .Register(*registry_);
  pose_sets_kept_ = &BuildCounter()
                         .Name("capsweep_pose_sets_kept_total")
                         .Help("Pose sets kept (UploadPoses, or a request carrying poses and their id).")
                         .Register(*registry_)
                         .Add({});
  pose_sets_evicted_ = &BuildCounter()
                            .Name("capsweep_pose_sets_evicted_total")
                            .Help("Pose sets dropped, least recently used first, to keep at most --pose-sets.")
                            .Register(*registry_)
                            .Add({});
  pose_sets_held_ = &BuildGauge().Name("capsweep_pose_sets").Help("Pose sets held now.").Register(*registry_).Add({});
  const Histogram::BucketBoundaries bounds(kLatencyBounds.begin(), kLatencyBounds.end());
  for (int k = 0; k < kRpcCount; ++k) {
    const Labels rpc{{"rpc", name(Rpc(k))}};
    PerRpc& r = rpcs_[k];
    r.requests = &requests.Add(rpc);
    r.in_flight = &in_flight.Add(rpc);
    r.queries = &queries.Add(rpc);
    r.refused = &refused.Add(rpc);
    r.latency = &latency.Add(rpc, bounds);
    r.posed = &posed.Add(rpc);
  }
}

void Metrics::begin(Rpc rpc) { rpcs_[int(rpc)].in_flight->Increment(); }

void Metrics::record(Rpc rpc, grpc::StatusCode code, std::uint64_t queries, std::uint64_t refused, double seconds) {
  PerRpc& r = rpcs_[int(rpc)];
  r.in_flight->Decrement();
  r.requests->Increment();
  r.queries->Increment(double(queries));
  r.refused->Increment(double(refused));
  if (code != grpc::StatusCode::OK) {
    const int c = int(code) > 0 && int(code) < kStatusCodes ? int(code) : int(grpc::StatusCode::UNKNOWN);
    prometheus::Counter* errors = r.errors[c].load(std::memory_order_acquire);
    if (!errors) {
      // Family::Add returns the series already there, so two first errors at once share one.
      errors = &errors_->Add({{"rpc", name(rpc)}, {"code", code_name(grpc::StatusCode(c))}});
      r.errors[c].store(errors, std::memory_order_release);
    }
    errors->Increment();
  }
  r.latency->Observe(seconds);
}

void Metrics::posed(Rpc rpc) { rpcs_[int(rpc)].posed->Increment(); }

void Metrics::pose_set_kept(std::size_t evicted, std::size_t held) {
  pose_sets_kept_->Increment();
  pose_sets_evicted_->Increment(double(evicted));
  pose_sets_held_->Set(double(held));
}

void Metrics::set_world(const std::string& world, std::uint64_t triangles) {
  worlds_->Add({{"world", world}}).Set(double(triangles));
}

void Metrics::fill(pb::InfoResponse& info) const {
  for (int k = 0; k < kRpcCount; ++k) {
    const PerRpc& r = rpcs_[k];
    pb::RpcCounters* c = info.add_rpcs();
    c->set_rpc(name(Rpc(k)));
    c->set_requests(std::uint64_t(r.requests->Value()));
    c->set_queries(std::uint64_t(r.queries->Value()));
    c->set_refused_queries(std::uint64_t(r.refused->Value()));
    for (int code = 1; code < kStatusCodes; ++code) {
      if (const prometheus::Counter* n = r.errors[code].load(std::memory_order_acquire)) {
        (*c->mutable_errors())[code_name(grpc::StatusCode(code))] = std::uint64_t(n->Value());
      }
    }
    // prometheus-cpp's buckets are cumulative (+Inf last); Info carries each bucket's own count.
    const prometheus::ClientMetric::Histogram latency = r.latency->Collect().histogram;
    pb::LatencyHistogram* h = c->mutable_latency();
    for (double bound : kLatencyBounds) h->add_upper_seconds(bound);
    std::uint64_t below = 0;
    for (const auto& bucket : latency.bucket) {
      h->add_count(bucket.cumulative_count - below);
      below = bucket.cumulative_count;
    }
    h->set_sum_seconds(latency.sample_sum);
  }
}

std::string Metrics::text(double uptime_seconds) const {
  uptime_->Set(uptime_seconds);
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  // prometheus-cpp sorts a series' labels by name; the page keeps rpc first, as it always has
  // (capsweep_errors_total{rpc="Sweep",code="NOT_FOUND"}), for scripts that match lines as text.
  for (prometheus::MetricFamily& family : families) {
    for (prometheus::ClientMetric& metric : family.metric) {
      std::stable_partition(metric.label.begin(), metric.label.end(), [](const auto& l) { return l.name == "rpc"; });
    }
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace capsweep::service
