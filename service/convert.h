// Between capsweep's types and the service's column messages (capsweep.proto), both ways: the
// server reads requests and writes responses, the client the reverse. Floats travel as floats,
// so an answer through the service is the in-process answer bit for bit.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <grpcpp/support/status.h>

#include <capsweep/world.h>
#include "service/capsweep.pb.h"
#include "service/columns.h"

namespace capsweep::service {

// A gRPC status code's name (NOT_FOUND): the client's error messages and the server's counters.
const char* code_name(grpc::StatusCode code);

pb::Path to_pb(SweepPath p);
// False for a value this build does not know (a newer client): INVALID_ARGUMENT.
bool from_pb(pb::Path p, SweepPath& out);

// Settings: unset fields keep the defaults. An empty string, or what is out of range.
MoveSettings from_pb(const pb::MoveSettings& m);
pb::MoveSettings to_pb(const MoveSettings& m);
ValidateSettings from_pb(const pb::ValidateSettings& v);
pb::ValidateSettings to_pb(const ValidateSettings& v);

// --- requests (client writes, server reads) ---
void write_request(std::span<const SweepQuery> queries, pb::SweepRequest& r);
std::vector<SweepQuery> read_request(const pb::SweepRequest& r, std::size_t n);
void write_request(std::span<const SweepEllipsoidQuery> queries, pb::SweepEllipsoidRequest& r);
std::vector<SweepEllipsoidQuery> read_request(const pb::SweepEllipsoidRequest& r, std::size_t n);
void write_request(std::span<const Agent> agents, pb::MoveRequest& r);
std::vector<Agent> read_request(const pb::MoveRequest& r, std::size_t n);
void write_request(std::span<const ClaimedMove> moves, pb::ValidateRequest& r);
std::vector<ClaimedMove> read_request(const pb::ValidateRequest& r, std::size_t n);
void write_request(std::span<const Capsule> capsules, pb::OverlapRequest& r);
std::vector<Capsule> read_request(const pb::OverlapRequest& r, std::size_t n);

// Shape checks of requests: the batch size, or an error naming the column.
BatchShape shape_of(const pb::SweepRequest& r);
BatchShape shape_of(const pb::SweepEllipsoidRequest& r);
BatchShape shape_of(const pb::MoveRequest& r);
BatchShape shape_of(const pb::ValidateRequest& r);
BatchShape shape_of(const pb::OverlapRequest& r);

// --- responses (server writes, client reads) ---
// Readers return false when the response does not hold `n` answers in every column.
void write_response(std::span<const SweepHit> hits, std::span<const Status> status, pb::SweepResponse& r);
bool read_response(const pb::SweepResponse& r, std::span<SweepHit> hits, std::span<Status> status);
void write_response(std::span<const MoveResult> results, std::span<const Status> status, pb::MoveResponse& r);
bool read_response(const pb::MoveResponse& r, std::span<MoveResult> results, std::span<Status> status);
void write_response(std::span<const Verdict> verdicts, pb::ValidateResponse& r);
bool read_response(const pb::ValidateResponse& r, std::span<Verdict> verdicts);
void write_response(std::span<const OverlapResult> results, std::span<const Status> status, pb::OverlapResponse& r);
bool read_response(const pb::OverlapResponse& r, std::span<OverlapResult> results, std::span<Status> status);

}  // namespace capsweep::service
