#include <capsweep/files.h>

#include <bit>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <initializer_list>
#include <iterator>

#include "io/atomic_file.h"
#include "io/result_record.h"
#include "io/query_format.h"

namespace capsweep {

static_assert(std::endian::native == std::endian::little, "the file formats are little-endian; add byte swaps");

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path + ": cannot open");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes, std::span<const std::string> inputs) {
  try {
    write_file_atomically(path, bytes, inputs);
  } catch (const OutputError& e) {
    throw FormatError(e.what());
  }
}

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(std::string& out, T v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.append(b, sizeof v);
}

// A version a reader takes, and the size of its records.
struct Accepted {
  std::uint32_t version;
  std::size_t record_bytes;
};

// What a CWSQ file of another version holds, for the message of a reader that does not take it.
std::string holds(std::uint32_t version) {
  if (holds_ellipsoids(version)) return ": it holds ellipsoid sweeps (read_ellipsoid_queries, capsweep sweep)";
  if (version >= kFormatVersion && version <= kMaskedClaimedMoveVersion) return ": it holds capsule sweeps";
  if (holds_shapes(version)) return ": it holds claimed moves of capsule and ellipsoid agents";
  return "";
}

// A record's layer mask (versions 4 to 6): any mask but 0, which would see nothing.
std::uint32_t read_mask(const char* p, const std::function<FormatError(const std::string&)>& fail) {
  const std::uint32_t mask = load<std::uint32_t>(p);
  if (mask == 0) throw fail("its layer mask is 0, which sees nothing (0xFFFFFFFF sees every layer)");
  return mask;
}

// Checks magic, that the version is one of `accepted` and that the body is exactly count
// records; returns count, and the version through `version_out`.
std::uint64_t check_header(const std::string& path, const std::string& bytes, std::uint32_t magic, const char* kind,
                           std::initializer_list<Accepted> accepted, std::uint32_t* version_out = nullptr) {
  if (bytes.size() < kHeaderBytes) throw FormatError(path + ": too short for a " + kind + " header");
  if (load<std::uint32_t>(bytes.data()) != magic) throw FormatError(path + ": not a " + kind + " file (bad magic)");
  const std::uint32_t version = load<std::uint32_t>(bytes.data() + 4);
  std::size_t record_bytes = 0;
  std::string expected;  // "1, 2, 4 or 5"
  std::size_t k = 0;
  for (const Accepted& a : accepted) {
    if (a.version == version) record_bytes = a.record_bytes;
    expected += (k == 0 ? "" : k + 1 == accepted.size() ? " or " : ", ") + std::to_string(a.version);
    ++k;
  }
  if (record_bytes == 0) {
    throw FormatError(path + ": " + kind + " version " + std::to_string(version) + " is not supported (expected " +
                      expected + ")" + (magic == kQueryMagic ? holds(version) : ""));
  }
  if (version_out) *version_out = version;
  const std::uint64_t count = load<std::uint64_t>(bytes.data() + 8);
  const std::uint64_t body = bytes.size() - kHeaderBytes;
  if (body % record_bytes != 0 || body / record_bytes != count) {
    const std::uint64_t whole = body / record_bytes;
    if (whole < count) {
      throw FormatError(path + ": header says " + std::to_string(count) + " records but the file ends in record " +
                        std::to_string(whole) + " (truncated)");
    }
    throw FormatError(path + ": header says " + std::to_string(count) + " records but the file holds " +
                      std::to_string(body) + " bytes after the header");
  }
  return count;
}

std::string header(std::uint32_t magic, std::size_t count, std::size_t record_bytes,
                   std::uint32_t version = kFormatVersion) {
  std::string out;
  out.reserve(kHeaderBytes + count * record_bytes);
  store(out, magic);
  store(out, version);
  store(out, std::uint64_t(count));
  return out;
}

// Every CWSQ record of capsule sweeps or claimed moves (versions 1, 2, 4, 5, 7, 8), checked; sweeps
// get `dt_if_absent` and no state, records without a mask every layer, claims before version 8
// no ground triangle. `version_out`: the file's.
std::vector<ClaimedMove> read_records(const std::string& path, float dt_if_absent, std::uint32_t* version_out = nullptr) {
  const std::string bytes = read_file(path);
  std::uint32_t version = 0;
  const std::uint64_t count =
      check_header(path, bytes, kQueryMagic, "CWSQ",
                   {{kFormatVersion, kQueryBytes}, {kClaimedMoveVersion, kClaimedMoveBytes},
                    {kMaskedQueryVersion, kMaskedQueryBytes}, {kMaskedClaimedMoveVersion, kMaskedClaimedMoveBytes},
                    {kShapedClaimedMoveVersion, kShapedClaimedMoveBytes},
                    {kGroundedClaimedMoveVersion, kGroundedClaimedMoveBytes}},
                   &version);
  if (version_out) *version_out = version;
  const bool claims = holds_claim_state(version), masked = holds_masks(version);
  const bool shaped = holds_shapes(version), grounded_triangles = version == kGroundedClaimedMoveVersion;
  const std::size_t record_bytes = grounded_triangles ? kGroundedClaimedMoveBytes
                                   : shaped           ? kShapedClaimedMoveBytes
                                   : claims ? (masked ? kMaskedClaimedMoveBytes : kClaimedMoveBytes)
                                            : (masked ? kMaskedQueryBytes : kQueryBytes);
  std::vector<ClaimedMove> moves(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const char* p = bytes.data() + kHeaderBytes + i * record_bytes;
    const std::function<FormatError(const std::string&)> fail = [&](const std::string& why) {
      return FormatError(path + ": " + (claims ? "move " : "query ") + std::to_string(i) + ": " + why);
    };
    float f[12];
    std::memcpy(f, p, (claims ? 12 : 10) * sizeof(float));
    ClaimedMove& m = moves[i];
    m.from = {{f[0], f[1], f[2]}, {f[3], f[4], f[5]}, f[6]};
    m.motion = {f[7], f[8], f[9]};
    const std::uint8_t shape = shaped ? load<std::uint8_t>(p + 49) : 0;
    if (shape > 1) throw fail("shape must be 0 (a capsule) or 1 (an ellipsoid)");
    if (shape == 1) {
      float e[6];
      std::memcpy(e, p + 56, sizeof e);
      m.shape = AgentShape::ellipsoid;
      m.ellipsoid = {{e[0], e[1], e[2]}, {e[3], e[4], e[5]}};
      if (Status s = check_ellipsoid_sweep(m.ellipsoid, m.motion); s != Status::ok) {
        throw fail(s == Status::bad_radius ? "every radius of the ellipsoid must be positive"
                   : s == Status::non_finite_capsule ? "the ellipsoid's centre or a radius is NaN or infinite"
                                                     : describe(s));
      }
    } else {
      // A sweep may be a ray (radius 0); a claimed move is an agent's, which is solid.
      const Status s = claims ? check_agent_move(m.from, m.motion) : check_sweep(m.from, m.motion);
      if (s != Status::ok) throw fail(describe(s));
    }
    if (masked) m.layers = read_mask(p + (claims ? kClaimedMoveBytes : kQueryBytes), fail);
    if (!claims) {
      m.dt = dt_if_absent;
      continue;
    }
    m.dt = f[10];
    m.vertical_speed = f[11];
    const std::uint8_t grounded = load<std::uint8_t>(p + 48);
    if (!(std::isfinite(m.dt) && m.dt >= 0 && m.dt <= 1e6f)) throw fail("dt must be within [0, 1e6] s");
    if (!(std::fabs(m.vertical_speed) <= 1e6f)) throw fail("vertical speed must be finite, within 1e6 m/s");
    if (grounded > 1) throw fail("grounded must be 0 or 1");
    if ((!shaped && load<std::uint8_t>(p + 49) != 0) || load<std::uint16_t>(p + 50) != 0) {
      throw fail("reserved bytes must be 0");
    }
    m.grounded = grounded != 0;
    // Any index: a hint the validator checks against the world, never trusts.
    if (grounded_triangles) m.ground_triangle = load<std::uint32_t>(p + kShapedClaimedMoveBytes);
  }
  return moves;
}

void store_query(std::string& out, const SweepQuery& q) {
  for (float v : {q.capsule.a.x, q.capsule.a.y, q.capsule.a.z, q.capsule.b.x, q.capsule.b.y, q.capsule.b.z,
                  q.capsule.radius, q.motion.x, q.motion.y, q.motion.z}) {
    store(out, v);
  }
}

// A claimed move's first 52 bytes (version 2); `shaped`: byte 49 is its shape (versions 7, 8).
void store_move(std::string& out, const ClaimedMove& m, bool shaped = false) {
  const bool ellipsoid = shaped && m.shape == AgentShape::ellipsoid;
  store_query(out, {ellipsoid ? Capsule{} : m.from, m.motion});
  store(out, m.dt);
  store(out, m.vertical_speed);
  // grounded, the shape (version 7) or a reserved zero byte, then two reserved zero bytes
  store(out, std::uint32_t(m.grounded ? 1 : 0) | std::uint32_t(ellipsoid ? 1 : 0) << 8);
}

// Whether a batch needs a masked version: some record sees fewer than every layer. A mask of 0
// is refused rather than written (no reader would take it back).
template <class Records>
bool needs_masks(const Records& records, const std::string& path) {
  bool masked = false;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].layers == 0) {
      throw FormatError(path + ": record " + std::to_string(i) + " has a layer mask of 0, which sees nothing");
    }
    masked = masked || records[i].layers != kAllLayers;
  }
  return masked;
}

}  // namespace

std::vector<SweepQuery> read_queries(const std::string& path) {
  const std::vector<ClaimedMove> moves = read_records(path, 0.f);
  std::vector<SweepQuery> queries(moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (moves[i].shape == AgentShape::ellipsoid) {
      throw FormatError(path + ": move " + std::to_string(i) +
                        " is an ellipsoid agent's, not a capsule sweep (read_ellipsoid_queries reads a file of "
                        "ellipsoid agents' moves, capsweep validate any)");
    }
    queries[i] = {moves[i].from, moves[i].motion, moves[i].layers};
  }
  return queries;
}

std::vector<SweepEllipsoidQuery> read_ellipsoid_queries(const std::string& path) {
  if (holds_shapes(query_file_version(path))) {  // claimed moves: their paths
    const std::vector<ClaimedMove> moves = read_records(path, 0.f);
    std::vector<SweepEllipsoidQuery> queries(moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i) {
      if (moves[i].shape != AgentShape::ellipsoid) {
        throw FormatError(path + ": move " + std::to_string(i) +
                          " is a capsule agent's, not an ellipsoid sweep (read_queries reads a file of capsule "
                          "agents' moves, capsweep validate any)");
      }
      queries[i] = {moves[i].ellipsoid, moves[i].motion, moves[i].layers};
    }
    return queries;
  }
  const std::string bytes = read_file(path);
  std::uint32_t version = 0;
  const std::uint64_t count =
      check_header(path, bytes, kQueryMagic, "CWSQ",
                   {{kEllipsoidVersion, kEllipsoidQueryBytes}, {kMaskedEllipsoidVersion, kMaskedEllipsoidQueryBytes}},
                   &version);
  const bool masked = holds_masks(version);
  const std::size_t record_bytes = masked ? kMaskedEllipsoidQueryBytes : kEllipsoidQueryBytes;
  std::vector<SweepEllipsoidQuery> queries(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const char* p = bytes.data() + kHeaderBytes + i * record_bytes;
    const std::function<FormatError(const std::string&)> fail = [&](const std::string& why) {
      return FormatError(path + ": ellipsoid " + std::to_string(i) + ": " + why);
    };
    float f[9];
    std::memcpy(f, p, sizeof f);
    SweepEllipsoidQuery& q = queries[i];
    q = {{{f[0], f[1], f[2]}, {f[3], f[4], f[5]}}, {f[6], f[7], f[8]}};
    if (Status s = check_ellipsoid_sweep(q.ellipsoid, q.motion); s != Status::ok) {
      throw fail(s == Status::bad_radius ? "every radius must be positive"
                 : s == Status::non_finite_capsule ? "the centre or a radius is NaN or infinite"
                                                   : describe(s));
    }
    if (masked) q.layers = read_mask(p + kEllipsoidQueryBytes, fail);
  }
  return queries;
}

std::string ellipsoid_query_file_bytes(std::span<const SweepEllipsoidQuery> queries, const std::string& path) {
  const bool masked = needs_masks(queries, path);
  std::string out = header(kQueryMagic, queries.size(), masked ? kMaskedEllipsoidQueryBytes : kEllipsoidQueryBytes,
                           masked ? kMaskedEllipsoidVersion : kEllipsoidVersion);
  for (const SweepEllipsoidQuery& q : queries) {
    const Ellipsoid& e = q.ellipsoid;
    for (float v : {e.centre.x, e.centre.y, e.centre.z, e.radii.x, e.radii.y, e.radii.z, q.motion.x, q.motion.y, q.motion.z}) {
      store(out, v);
    }
    if (masked) store(out, q.layers);
  }
  return out;
}

void write_ellipsoid_queries(const std::string& path, const std::vector<SweepEllipsoidQuery>& queries,
                             std::span<const std::string> inputs) {
  write_file(path, ellipsoid_query_file_bytes(queries, path), inputs);
}

std::uint32_t query_file_version(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8];
  if (!in.read(head, sizeof head) || load<std::uint32_t>(head) != kQueryMagic) return 0;
  return load<std::uint32_t>(head + 4);
}

std::vector<ClaimedMove> read_claimed_moves(const std::string& path, float dt_if_absent) {
  return read_records(path, dt_if_absent);
}

std::string query_file_bytes(std::span<const SweepQuery> queries, const std::string& path) {
  const bool masked = needs_masks(queries, path);
  std::string out = header(kQueryMagic, queries.size(), masked ? kMaskedQueryBytes : kQueryBytes,
                           masked ? kMaskedQueryVersion : kFormatVersion);
  for (const SweepQuery& q : queries) {
    store_query(out, q);
    if (masked) store(out, q.layers);
  }
  return out;
}

void write_queries(const std::string& path, const std::vector<SweepQuery>& queries,
                   std::span<const std::string> inputs) {
  write_file(path, query_file_bytes(queries, path), inputs);
}

struct QueryWriter::State {
  std::string path;
  QueryRecords records;
  std::unique_ptr<AtomicFile> file;
  std::string buffer;
  std::uint64_t count = 0;
  bool finished = false;

  void flush();
  bool take_mask(std::uint32_t layers, bool masked) const;
};

QueryWriter::QueryWriter(const std::string& path, std::span<const std::string> inputs, QueryRecords records)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.path = path;
  s.records = records;
  try {
    s.file = std::make_unique<AtomicFile>(path, inputs);
  } catch (const OutputError& e) {
    throw FormatError(e.what());
  }
  switch (records) {
    case QueryRecords::sweeps: s.buffer = header(kQueryMagic, 0, kQueryBytes); break;
    case QueryRecords::claimed_moves: s.buffer = header(kQueryMagic, 0, kClaimedMoveBytes, kClaimedMoveVersion); break;
    case QueryRecords::masked_sweeps: s.buffer = header(kQueryMagic, 0, kMaskedQueryBytes, kMaskedQueryVersion); break;
    case QueryRecords::masked_claimed_moves:
      s.buffer = header(kQueryMagic, 0, kMaskedClaimedMoveBytes, kMaskedClaimedMoveVersion);
      break;
    case QueryRecords::shaped_claimed_moves:
      s.buffer = header(kQueryMagic, 0, kShapedClaimedMoveBytes, kShapedClaimedMoveVersion);
      break;
    case QueryRecords::grounded_claimed_moves:
      s.buffer = header(kQueryMagic, 0, kGroundedClaimedMoveBytes, kGroundedClaimedMoveVersion);
      break;
  }
}

QueryWriter::~QueryWriter() = default;  // unfinished: the temporary file goes with State::file

std::uint64_t QueryWriter::count() const { return state_->count; }

void QueryWriter::State::flush() {
  try {
    file->write(buffer);
  } catch (const OutputError& e) {
    throw FormatError(e.what());
  }
  buffer.clear();
}

// The mask a record of this writer carries, after checking it fits: an unmasked file holds
// masks of every layer only, and no file holds 0.
bool QueryWriter::State::take_mask(std::uint32_t layers, bool masked) const {
  if (layers == 0) throw std::invalid_argument(path + ": record " + std::to_string(count) + " has a layer mask of 0");
  if (!masked && layers != kAllLayers) {
    throw std::invalid_argument(path + ": record " + std::to_string(count) +
                                " sees fewer than every layer: write it to a masked version (4 or 5)");
  }
  return masked;
}

void QueryWriter::add(const SweepQuery& q) {
  State& s = *state_;
  if (s.records != QueryRecords::sweeps && s.records != QueryRecords::masked_sweeps) {
    throw std::logic_error("QueryWriter: a claimed-move file takes ClaimedMove");
  }
  store_query(s.buffer, q);
  if (s.take_mask(q.layers, s.records == QueryRecords::masked_sweeps)) store(s.buffer, q.layers);
  ++s.count;
  if (s.buffer.size() >= (1u << 20)) s.flush();
}

void QueryWriter::add(const ClaimedMove& m) {
  State& s = *state_;
  if (s.records != QueryRecords::claimed_moves && s.records != QueryRecords::masked_claimed_moves &&
      s.records != QueryRecords::shaped_claimed_moves && s.records != QueryRecords::grounded_claimed_moves) {
    throw std::logic_error("QueryWriter: a sweep file takes SweepQuery");
  }
  const bool with_triangle = s.records == QueryRecords::grounded_claimed_moves;
  const bool shaped = with_triangle || s.records == QueryRecords::shaped_claimed_moves;
  if (!shaped && m.shape != AgentShape::capsule) {
    throw std::invalid_argument(s.path + ": record " + std::to_string(s.count) +
                                " is an ellipsoid agent's move: write it to version 7 or 8");
  }
  if (!with_triangle && m.ground_triangle != kNoTriangle) {
    throw std::invalid_argument(s.path + ": record " + std::to_string(s.count) +
                                " carries a ground triangle: write it to version 8");
  }
  store_move(s.buffer, m, shaped);
  if (s.take_mask(m.layers, s.records != QueryRecords::claimed_moves)) store(s.buffer, m.layers);
  if (shaped) {
    const Ellipsoid e = m.shape == AgentShape::ellipsoid ? m.ellipsoid : Ellipsoid{};
    for (float v : {e.centre.x, e.centre.y, e.centre.z, e.radii.x, e.radii.y, e.radii.z}) store(s.buffer, v);
  }
  if (with_triangle) store(s.buffer, m.ground_triangle);
  ++s.count;
  if (s.buffer.size() >= (1u << 20)) s.flush();
}

void QueryWriter::finish() {
  State& s = *state_;
  s.flush();
  std::string count;
  store(count, s.count);
  try {
    s.file->write_at(8, count);
    s.file->commit();
  } catch (const OutputError& e) {
    throw FormatError(e.what());
  }
  s.finished = true;
}

namespace {

// Every hit as a version 1 record or, given `world`, a version 2 record with the part it is on.
std::string result_records(std::span<const SweepHit> hits, const World* world, const std::string& path) {
  const std::size_t record_bytes = world ? kPartResultBytes : kResultBytes;
  std::string out = header(kResultMagic, hits.size(), record_bytes, world ? kPartResultVersion : kFormatVersion);
  unsigned char record[kPartResultBytes];
  for (std::size_t i = 0; i < hits.size(); ++i) {
    encode_result(hits[i], record);
    if (world) {
      const SweepHit& h = hits[i];
      if (h.hit && h.triangle >= world->triangle_count()) {
        throw FormatError(path + ": result " + std::to_string(i) + ": triangle " + std::to_string(h.triangle) +
                          " is not one of the world's " + std::to_string(world->triangle_count()));
      }
      encode_part(part_of(*world, h), record + kResultBytes);
    }
    out.append(reinterpret_cast<const char*>(record), record_bytes);
  }
  return out;
}

}  // namespace

std::string result_file_bytes(std::span<const SweepHit> hits, const World& world, const std::string& path) {
  const bool parts = !world.instances().empty() || !world.tiles().empty();
  return result_records(hits, parts ? &world : nullptr, path);
}

void write_results(const std::string& path, const std::vector<SweepHit>& hits, std::span<const std::string> inputs) {
  write_file(path, result_records(hits, nullptr, path), inputs);
}

void write_results(const std::string& path, const std::vector<SweepHit>& hits, const World& world,
                   std::span<const std::string> inputs) {
  write_file(path, result_file_bytes(hits, world, path), inputs);
}

ResultFile read_result_file(const std::string& path) {
  const std::string bytes = read_file(path);
  ResultFile file;
  const std::uint64_t count =
      check_header(path, bytes, kResultMagic, "CWSR",
                   {{kFormatVersion, kResultBytes}, {kPartResultVersion, kPartResultBytes}}, &file.version);
  const bool parts = file.version == kPartResultVersion;
  const std::size_t record_bytes = parts ? kPartResultBytes : kResultBytes;
  file.hits.resize(count);
  if (parts) file.parts.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + kHeaderBytes + i * record_bytes);
    const char* why = decode_result(p, file.hits[i]);
    if (!why && parts) why = decode_part(p + kResultBytes, file.hits[i], file.parts[i]);
    if (why) throw FormatError(path + ": result " + std::to_string(i) + ": " + why);
  }
  return file;
}

std::vector<SweepHit> read_results(const std::string& path) { return read_result_file(path).hits; }

}  // namespace capsweep
