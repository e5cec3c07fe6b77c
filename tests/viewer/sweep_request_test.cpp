// The viewer's request parser: what it accepts is exactly the batch asked for; everything else is
// refused with a reason naming the query and field.
#include "viewer/sweep_request.h"

#include <gtest/gtest.h>

namespace capsweep::viewer {
namespace {

SweepRequest parsed(const std::string& body) {
  SweepRequest r;
  std::string why;
  EXPECT_TRUE(parse_sweep_request(body, r, why)) << body << ": " << why;
  return r;
}

std::string refused(const std::string& body) {
  SweepRequest r;
  std::string why;
  EXPECT_FALSE(parse_sweep_request(body, r, why)) << body;
  EXPECT_EQ(r.size(), 0u);  // nothing half-parsed left behind
  return why;
}

TEST(SweepRequest, ReadsCapsulesRaysAndTheirOptions) {
  const SweepRequest r = parsed(R"({"path":"brute","layers":5,"queries":[
      {"shape":"capsule","a":[1,2,3],"b":[1,3.5,3],"radius":0.25,"motion":[0,-1,0.5],"layers":4},
      {"shape":"ray","from":[0.1,0.2,0.3],"motion":[4,5,6]}]})");
  EXPECT_EQ(r.path, SweepPath::brute);
  EXPECT_EQ(r.layers, 5u);
  ASSERT_FALSE(r.of_ellipsoids);
  ASSERT_EQ(r.capsules.size(), 2u);
  EXPECT_EQ(r.capsules[0].capsule.b.y, 3.5f);
  EXPECT_EQ(r.capsules[0].capsule.radius, 0.25f);
  EXPECT_EQ(r.capsules[0].motion.z, 0.5f);
  EXPECT_EQ(r.capsules[0].layers, 4u);
  // A ray is a capsule of radius 0 from one point, seeing every layer unless told.
  EXPECT_EQ(r.capsules[1].capsule.a.y, 0.2f);
  EXPECT_EQ(r.capsules[1].capsule.b.z, 0.3f);
  EXPECT_EQ(r.capsules[1].capsule.radius, 0.f);
  EXPECT_EQ(r.capsules[1].layers, kAllLayers);
}

TEST(SweepRequest, NumbersBecomeTheFloatsTheyName) {
  // The page sends float values printed as shortest doubles: they must come back bit for bit.
  const SweepRequest r = parsed(R"({"queries":[{"shape":"ray","from":[0.10000000149011612,-3.4028234663852886e38,1e-45],"motion":[0,0,1]}]})");
  EXPECT_EQ(r.capsules[0].capsule.a.x, 0.1f);
  EXPECT_EQ(r.capsules[0].capsule.a.y, -3.4028234663852886e38f);
  EXPECT_EQ(r.capsules[0].capsule.a.z, 1e-45f);
  EXPECT_EQ(r.path, SweepPath::simd);
}

TEST(SweepRequest, ReadsEllipsoids) {
  const SweepRequest r = parsed(R"({"queries":[{"shape":"ellipsoid","centre":[1,2,3],"radii":[0.3,0.9,0.3],"motion":[1,0,0]}]})");
  ASSERT_TRUE(r.of_ellipsoids);
  ASSERT_EQ(r.ellipsoids.size(), 1u);
  EXPECT_EQ(r.ellipsoids[0].ellipsoid.radii.y, 0.9f);
}

TEST(SweepRequest, RefusesWhatIsNotABatch) {
  EXPECT_EQ(refused("not json"), "the request is not JSON");
  EXPECT_EQ(refused(""), "the request is not JSON");
  EXPECT_EQ(refused("[1,2]"), "the request is not a JSON object");
  EXPECT_EQ(refused("{}"), "queries is missing or not an array");
  EXPECT_EQ(refused(R"({"queries":[]})"), "queries is empty");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1]}],"extra":1})"),
            "the request: unknown field 'extra'");
  EXPECT_EQ(refused(R"({"path":"gpu","queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1]}]})"),
            "path is not simd, scalar or brute");
  EXPECT_EQ(refused(R"({"layers":0,"queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1]}]})"),
            "layers is not a layer mask from 1 to 4294967295");
}

TEST(SweepRequest, RefusesBadQueriesNamingThem) {
  const std::string ray = R"({"shape":"ray","from":[0,0,0],"motion":[0,0,1]})";
  EXPECT_EQ(refused(R"({"queries":[)" + ray + R"(,{"shape":"capsule","a":[0,0,0],"b":[0,1,0],"radius":-1,"motion":[1,0,0]}]})"),
            "queries[1].radius is below 0");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,1e39,0],"motion":[0,0,1]}]})"),
            "queries[0].from[1] is not a finite float");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,"1",0],"motion":[0,0,1]}]})"), "queries[0].from[1] is not a number");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,0],"motion":[0,0,1]}]})"), "queries[0].from is not [x, y, z]");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","motion":[0,0,1]}]})"), "queries[0].from is missing");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"cube","from":[0,0,0],"motion":[0,0,1]}]})"),
            "queries[0].shape 'cube' is not capsule, ray or ellipsoid");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ellipsoid","centre":[0,0,0],"radii":[1,0,1],"motion":[0,0,1]}]})"),
            "queries[0].radii are not all above 0");
  EXPECT_EQ(refused(R"({"queries":[)" + ray + R"(,{"shape":"ellipsoid","centre":[0,0,0],"radii":[1,1,1],"motion":[0,0,1]}]})"),
            "queries[1]: a batch holds ellipsoids or capsules and rays, not both");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1],"layers":0}]})"),
            "queries[0].layers is not a layer mask from 1 to 4294967295");
  EXPECT_EQ(refused(R"({"queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1],"radius":1}]})"),
            "queries[0]: unknown field 'radius'");
  // What a refusal quotes of the request is never markup (the page shows it; a URL can set it).
  EXPECT_EQ(refused(R"({"queries":[{"shape":"<img src=x onerror=alert(1)>","from":[0,0,0],"motion":[0,0,1]}]})"),
            "queries[0].shape '?img?src?x?onerror?alert?1??' is not capsule, ray or ellipsoid");
  EXPECT_EQ(refused(R"({"queries":[],"<b>x</b>":1})"), "the request: unknown field '?b?x??b?'");
  // A query that sees none of the batch's layers could not be written to a CWSQ file (mask 0).
  EXPECT_EQ(refused(R"({"layers":6,"queries":[{"shape":"ray","from":[0,0,0],"motion":[0,0,1],"layers":1}]})"),
            "queries[0].layers share no layer with the batch's layers");
}

TEST(SweepRequest, RefusesBatchesAndBodiesOverTheirBounds) {
  const std::string ray = R"({"shape":"ray","from":[0,0,0],"motion":[0,0,1]})";
  std::string body = R"({"queries":[)";
  for (std::size_t i = 0; i < kMaxSweepBatch; ++i) body += (i ? "," : "") + ray;
  EXPECT_EQ(parsed(body + "]}").size(), kMaxSweepBatch);
  EXPECT_EQ(refused(body + "," + ray + "]}"),
            std::to_string(kMaxSweepBatch + 1) + " queries, more than the " + std::to_string(kMaxSweepBatch) + " a request may hold");
  const std::string big = R"({"queries":[)" + ray + "]}" + std::string(kMaxRequestBytes, ' ');
  EXPECT_EQ(refused(big), "the request is " + std::to_string(big.size()) + " bytes, more than " + std::to_string(kMaxRequestBytes));
  // Deep nesting is a malformed request, not a crash.
  EXPECT_FALSE(refused(std::string(20000, '[') + std::string(20000, ']')).empty());
}

}  // namespace
}  // namespace capsweep::viewer
