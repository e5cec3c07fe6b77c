// Small glTF 2.0 scenes for tests, written as one .gltf (JSON with the buffer embedded as a
// base64 data URI): each mesh a list of triangles (one primitive, positions only), each node
// with its name, mesh, transform, children and extras as the test gives them.
#pragma once

#include <cstdint>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <capsweep/values.h>

namespace gltf {

struct Node {
  std::string name;  // "" leaves it unnamed
  int mesh = -1;     // -1: none
  std::vector<int> children;
  // JSON members as they are written (e.g. "\"translation\":[0,2,0]"), and the extras object.
  std::string transform;
  std::string extras;
};

struct Scene {
  std::vector<std::vector<capsweep::Triangle>> meshes;
  std::vector<std::string> mesh_names;  // "" leaves one unnamed
  std::vector<Node> nodes;
  std::vector<int> roots;

  std::string json() const { return text(true); }

  // The same as a binary glTF: the JSON chunk, then the buffer as the BIN chunk.
  std::string glb() const {
    std::string js = text(false), bin = buffer();
    js.append((4 - js.size() % 4) % 4, ' ');
    bin.append((4 - bin.size() % 4) % 4, '\0');
    auto u32 = [](std::size_t v) {
      const std::uint32_t x = std::uint32_t(v);
      return std::string(reinterpret_cast<const char*>(&x), 4);
    };
    const std::string body = u32(js.size()) + "JSON" + js + u32(bin.size()) + std::string("BIN\0", 4) + bin;
    return "glTF" + u32(2) + u32(12 + body.size()) + body;
  }

 private:
  std::string buffer() const {
    std::string bytes;
    for (const auto& mesh : meshes) {
      for (const capsweep::Triangle& t : mesh) bytes.append(reinterpret_cast<const char*>(&t), sizeof t);
    }
    return bytes;
  }

  std::string text(bool embedded) const {
    const std::string bytes = buffer();
    std::ostringstream j;
    j << R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[)" << list(roots) << "]}],\"nodes\":[";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      j << (i ? "," : "") << "{";
      std::string sep;
      auto member = [&](const std::string& text) {
        j << sep << text;
        sep = ",";
      };
      if (!n.name.empty()) member("\"name\":\"" + n.name + "\"");
      if (n.mesh >= 0) member("\"mesh\":" + std::to_string(n.mesh));
      if (!n.children.empty()) member("\"children\":[" + list(n.children) + "]");
      if (!n.transform.empty()) member(n.transform);
      if (!n.extras.empty()) member("\"extras\":" + n.extras);
      j << "}";
    }
    j << "],\"meshes\":[";
    for (std::size_t m = 0; m < meshes.size(); ++m) {
      j << (m ? "," : "") << "{";
      if (m < mesh_names.size() && !mesh_names[m].empty()) j << "\"name\":\"" << mesh_names[m] << "\",";
      j << R"("primitives":[{"attributes":{"POSITION":)" << m << "}}]}";
    }
    j << R"(],"buffers":[{"byteLength":)" << bytes.size();
    if (embedded) j << R"(,"uri":"data:application/octet-stream;base64,)" << base64(bytes) << "\"";
    j << "}],\"bufferViews\":[";
    std::size_t offset = 0;
    for (std::size_t m = 0; m < meshes.size(); ++m) {
      const std::size_t length = meshes[m].size() * sizeof(capsweep::Triangle);
      j << (m ? "," : "") << R"({"buffer":0,"byteOffset":)" << offset << ",\"byteLength\":" << length << "}";
      offset += length;
    }
    j << "],\"accessors\":[";
    for (std::size_t m = 0; m < meshes.size(); ++m) {
      capsweep::Vec3 lo = meshes[m][0].v[0], hi = lo;
      for (const capsweep::Triangle& t : meshes[m]) {
        for (const capsweep::Vec3& v : t.v) lo = capsweep::min(lo, v), hi = capsweep::max(hi, v);
      }
      j.precision(9);
      j << (m ? "," : "") << R"({"bufferView":)" << m << R"(,"componentType":5126,"count":)" << meshes[m].size() * 3
        << R"(,"type":"VEC3","min":[)" << lo.x << "," << lo.y << "," << lo.z << "],\"max\":[" << hi.x << "," << hi.y
        << "," << hi.z << "]}";
    }
    j << "]}";
    return j.str();
  }

  static std::string list(const std::vector<int>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(v[i]);
    }
    return s;
  }
  static std::string base64(const std::string& in) {
    static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
      std::uint32_t n = std::uint32_t(std::uint8_t(in[i])) << 16;
      if (i + 1 < in.size()) n |= std::uint32_t(std::uint8_t(in[i + 1])) << 8;
      if (i + 2 < in.size()) n |= std::uint32_t(std::uint8_t(in[i + 2]));
      out += table[(n >> 18) & 63];
      out += table[(n >> 12) & 63];
      out += i + 1 < in.size() ? table[(n >> 6) & 63] : '=';
      out += i + 2 < in.size() ? table[n & 63] : '=';
    }
    return out;
  }
};

}  // namespace gltf

namespace gltf {

// A level with parts that move, for the io and command tests: nodes
//   0 Floor       (static) a 20 m floor
//   1 Door        dynamic by extras, at (0, 0, 5); its child 4 Handle moves with it
//   2 Lift_A      the crate mesh, rotated 30 degrees about y, at (-4, 0.5, 0): dynamic by the prefix Lift_
//   3 Lift_B      the same mesh, rotated about (1, 2, 3), at (4, 0.5, -3): the same prototype as Lift_A
//   4 Handle      child of Door, at (0.8, 1, 0.15) in the door's frame
//   5 Pillar      (static) rotated and moved, with its child 6 Cap (static)
// Scene roots 0, 1, 2, 3, 5.
inline Scene moving_level() {
  using capsweep::Vec3;
  auto box = [](Vec3 lo, Vec3 hi) {
    // 12 triangles, each face two.
    const Vec3 c[8] = {{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z},
                       {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}};
    const int f[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};
    std::vector<capsweep::Triangle> t;
    for (const auto& q : f) {
      t.push_back({{c[q[0]], c[q[1]], c[q[2]]}});
      t.push_back({{c[q[0]], c[q[2]], c[q[3]]}});
    }
    return t;
  };
  Scene s;
  s.meshes = {{{{{-10, 0, -10}, {-10, 0, 10}, {10, 0, 10}}}, {{{-10, 0, -10}, {10, 0, 10}, {10, 0, -10}}}},
              box({-1, 0, -0.1f}, {1, 2.2f, 0.1f}), box({-0.6f, -0.5f, -0.6f}, {0.6f, 0.5f, 0.6f}),
              box({-0.05f, -0.05f, 0}, {0.05f, 0.05f, 0.1f})};
  s.mesh_names = {"floor", "door", "crate", "handle"};
  const double h = std::sin(M_PI / 12), w = std::cos(M_PI / 12);  // 30 degrees about y
  std::ostringstream lift_a, lift_b;
  lift_a.precision(17);
  lift_a << "\"translation\":[-4,0.5,0],\"rotation\":[0," << h << ",0," << w << "]";
  const double n = std::sqrt(14.0), a = std::sin(0.6) / n, b = std::cos(0.6);  // 1.2 rad about (1, 2, 3)
  lift_b.precision(17);
  lift_b << "\"translation\":[4,0.5,-3],\"rotation\":[" << a << "," << 2 * a << "," << 3 * a << "," << b << "]";
  s.nodes = {{"Floor", 0, {}, "", ""},
             {"Door", 1, {4}, "\"translation\":[0,0,5]", R"({"capsweep":{"dynamic":true},"editor":"kept"})"},
             {"Lift_A", 2, {}, lift_a.str(), ""},
             {"Lift_B", 2, {}, lift_b.str(), ""},
             {"Handle", 3, {}, "\"translation\":[0.8,1,0.15]", ""},
             {"Pillar", 2, {6}, "\"translation\":[6,1,6],\"rotation\":[0,0.38268343236508984,0,0.92387953251128674]", ""},
             {"Cap", 3, {}, "\"translation\":[0,0.5,0],\"scale\":[2,2,2]", ""}};
  s.roots = {0, 1, 2, 3, 5};
  return s;
}

}  // namespace gltf
