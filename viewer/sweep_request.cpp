#include "viewer/sweep_request.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace capsweep::viewer {

namespace {

using nlohmann::json;

// A refusal, caught once at the top: the message is the 400's body.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

float number(const json& v, const std::string& what) {
  if (!v.is_number()) throw Refused(what + " is not a number");
  const double d = v.get<double>();
  // A float must hold it: past FLT_MAX it would become infinite, which no query may be.
  if (!std::isfinite(d) || std::fabs(d) > double(std::numeric_limits<float>::max())) {
    throw Refused(what + " is not a finite float");
  }
  return float(d);
}

Vec3 vec3(const json& q, const char* key, const std::string& at) {
  const std::string what = at + "." + key;
  if (!q.contains(key)) throw Refused(what + " is missing");
  const json& v = q.at(key);
  if (!v.is_array() || v.size() != 3) throw Refused(what + " is not [x, y, z]");
  return {number(v[0], what + "[0]"), number(v[1], what + "[1]"), number(v[2], what + "[2]")};
}

std::uint32_t mask(const json& v, const std::string& what) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 || v.get<std::uint64_t>() > 0xFFFFFFFFull) {
    throw Refused(what + " is not a layer mask from 1 to 4294967295");
  }
  return std::uint32_t(v.get<std::uint64_t>());
}

// Some of a string from the request, to quote in a refusal: at most 40 characters, anything but
// letters, digits and _ . - as '?', so no message carries markup or control bytes to whatever shows it.
std::string quoted(const std::string& text) {
  std::string out = text.substr(0, 40);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '?';
  }
  return out;
}

void only_keys(const json& object, std::initializer_list<const char*> keys, const std::string& at) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known = known || it.key() == k;
    if (!known) throw Refused(at + ": unknown field '" + quoted(it.key()) + "'");
  }
}

void parse_query(const json& q, std::size_t i, SweepRequest& out) {
  const std::string at = "queries[" + std::to_string(i) + "]";
  if (!q.is_object()) throw Refused(at + " is not an object");
  if (!q.contains("shape") || !q.at("shape").is_string()) throw Refused(at + ".shape is missing (capsule, ray or ellipsoid)");
  const std::string shape = q.at("shape").get<std::string>();
  const std::uint32_t layers = q.contains("layers") ? mask(q.at("layers"), at + ".layers") : kAllLayers;
  // The layers it sees are its own and the batch's: none would be a query no CWSQ file can hold.
  if ((layers & out.layers) == 0) throw Refused(at + ".layers share no layer with the batch's layers");
  const bool ellipsoid = shape == "ellipsoid";
  if (i > 0 && ellipsoid != out.of_ellipsoids) throw Refused(at + ": a batch holds ellipsoids or capsules and rays, not both");
  out.of_ellipsoids = ellipsoid;
  if (shape == "capsule") {
    only_keys(q, {"shape", "a", "b", "radius", "motion", "layers"}, at);
    if (!q.contains("radius")) throw Refused(at + ".radius is missing");
    const float radius = number(q.at("radius"), at + ".radius");
    if (radius < 0) throw Refused(at + ".radius is below 0");
    out.capsules.push_back({{vec3(q, "a", at), vec3(q, "b", at), radius}, vec3(q, "motion", at), layers});
  } else if (shape == "ray") {
    only_keys(q, {"shape", "from", "motion", "layers"}, at);
    const Vec3 from = vec3(q, "from", at);
    out.capsules.push_back({{from, from, 0.f}, vec3(q, "motion", at), layers});
  } else if (ellipsoid) {
    only_keys(q, {"shape", "centre", "radii", "motion", "layers"}, at);
    const Vec3 radii = vec3(q, "radii", at);
    if (!(radii.x > 0 && radii.y > 0 && radii.z > 0)) throw Refused(at + ".radii are not all above 0");
    out.ellipsoids.push_back({{vec3(q, "centre", at), radii}, vec3(q, "motion", at), layers});
  } else {
    throw Refused(at + ".shape '" + quoted(shape) + "' is not capsule, ray or ellipsoid");
  }
}

}  // namespace

bool parse_sweep_request(std::string_view body, SweepRequest& out, std::string& why) {
  out = SweepRequest{};
  try {
    if (body.size() > kMaxRequestBytes) {
      throw Refused("the request is " + std::to_string(body.size()) + " bytes, more than " +
                    std::to_string(kMaxRequestBytes));
    }
    // No exceptions from the parser itself: a malformed body is discarded, then refused here.
    const json doc = json::parse(body.begin(), body.end(), nullptr, false);
    if (doc.is_discarded()) throw Refused("the request is not JSON");
    if (!doc.is_object()) throw Refused("the request is not a JSON object");
    only_keys(doc, {"path", "layers", "queries"}, "the request");
    if (doc.contains("path")) {
      if (!doc.at("path").is_string() || !parse_sweep_path(doc.at("path").get<std::string>(), out.path)) {
        throw Refused("path is not simd, scalar or brute");
      }
    }
    if (doc.contains("layers")) out.layers = mask(doc.at("layers"), "layers");
    if (!doc.contains("queries") || !doc.at("queries").is_array()) throw Refused("queries is missing or not an array");
    const json& queries = doc.at("queries");
    if (queries.empty()) throw Refused("queries is empty");
    if (queries.size() > kMaxSweepBatch) {
      throw Refused(std::to_string(queries.size()) + " queries, more than the " + std::to_string(kMaxSweepBatch) +
                    " a request may hold");
    }
    for (std::size_t i = 0; i < queries.size(); ++i) parse_query(queries[i], i, out);
    return true;
  } catch (const std::exception& e) {  // Refused, and nlohmann's type errors should one slip through
    out = SweepRequest{};
    why = e.what();
    return false;
  }
}

}  // namespace capsweep::viewer
