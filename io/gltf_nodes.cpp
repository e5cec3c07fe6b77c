#include "io/gltf_nodes.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include <capsweep/files.h>

namespace capsweep {

namespace {

using Json = nlohmann::json;

// The JSON of a .glb (binary glTF: a 12-byte header, then chunks; the first is the JSON), or the
// whole file.
std::string_view json_text(const std::string& path, std::string_view bytes) {
  if (bytes.size() < 4 || bytes.substr(0, 4) != "glTF") return bytes;
  std::uint32_t length = 0, type = 0;
  if (bytes.size() >= 20) {
    std::memcpy(&length, bytes.data() + 12, 4);
    std::memcpy(&type, bytes.data() + 16, 4);
  }
  if (bytes.size() < 20 || type != 0x4E4F534Au || length > bytes.size() - 20) {
    throw SceneError(path + ": a binary glTF whose first chunk is not its JSON");
  }
  return bytes.substr(20, length);
}

// Numbers of a fixed count (`what` names the member in a message).
void read_numbers(const Json& node, const char* what, double* out, std::size_t count, const std::string& where) {
  const auto it = node.find(what);
  if (it == node.end()) return;
  if (!it->is_array() || it->size() != count) {
    throw SceneError(where + ": its " + what + " is not " + std::to_string(count) + " numbers");
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!(*it)[k].is_number()) throw SceneError(where + ": its " + what + " is not " + std::to_string(count) + " numbers");
    out[k] = (*it)[k].get<double>();
  }
}

Affine local_transform(const Json& node, const std::string& where) {
  if (node.contains("matrix")) {  // as Assimp: a matrix wins over TRS
    double m[16];
    read_numbers(node, "matrix", m, 16, where);
    if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1) throw SceneError(where + ": its matrix is not affine");
    return from_column_major(m);
  }
  double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
  read_numbers(node, "translation", t, 3, where);
  read_numbers(node, "rotation", q, 4, where);
  read_numbers(node, "scale", s, 3, where);
  if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 0.5)) {
    throw SceneError(where + ": its rotation is not a unit quaternion");
  }
  return from_trs(t, q, s);
}

// extras: {"capsweep": {"dynamic": true}}; any other extras are the file's own business.
bool read_mark(const Json& node, const std::string& where) {
  const auto extras = node.find("extras");
  if (extras == node.end() || !extras->is_object()) return false;
  const auto mark = extras->find("capsweep");
  if (mark == extras->end()) return false;
  if (!mark->is_object()) throw SceneError(where + ": extras.capsweep must be an object, e.g. {\"dynamic\": true}");
  for (const auto& [key, value] : mark->items()) {
    if (key != "dynamic") throw SceneError(where + ": extras.capsweep holds '" + key + "' (capsweep knows only 'dynamic')");
    if (!value.is_boolean()) throw SceneError(where + ": extras.capsweep.dynamic must be true or false");
  }
  return mark->value("dynamic", false);
}

std::vector<std::uint32_t> indices(const Json& parent, const char* what, std::size_t count, const std::string& where) {
  std::vector<std::uint32_t> out;
  const auto it = parent.find(what);
  if (it == parent.end()) return out;
  if (!it->is_array()) throw SceneError(where + ": its " + what + " are not a list of node indices");
  for (const Json& i : *it) {
    if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= count) {
      throw SceneError(where + ": its " + what + " name a node the file does not have (" + i.dump() + ")");
    }
    out.push_back(std::uint32_t(i.get<std::uint64_t>()));
  }
  return out;
}

}  // namespace

std::string node_label(const GltfNodes& nodes, std::uint32_t index) {
  const std::string& name = nodes.nodes[index].name;
  return "node " + std::to_string(index) + (name.empty() ? "" : " '" + name + "'");
}

GltfNodes read_gltf_nodes(const std::string& path, std::string_view bytes) {
  // Only what names and places nodes is kept: buffers (often megabytes of base64) are dropped as
  // they are parsed.
  const auto keep = [](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth != 1 || event != Json::parse_event_t::key) return true;
    const std::string& key = parsed.get_ref<const std::string&>();
    return key == "asset" || key == "scene" || key == "scenes" || key == "nodes";
  };
  Json doc;
  try {
    doc = Json::parse(json_text(path, bytes), keep);
  } catch (const Json::exception& e) {
    throw SceneError(path + ": cannot read the glTF JSON (" + e.what() + ")");
  }
  const Json* version = doc.is_object() && doc.contains("asset") ? &doc["asset"] : nullptr;
  if (!version || !version->is_object() || !version->contains("version") || !(*version)["version"].is_string() ||
      (*version)["version"].get<std::string>().rfind("2.", 0) != 0) {
    throw SceneError(path + ": dynamic nodes are read from glTF 2.0 files only (asset.version is not 2.x)");
  }
  GltfNodes out;
  const Json nodes = doc.value("nodes", Json::array());
  if (!nodes.is_array()) throw SceneError(path + ": its nodes are not a list");
  out.nodes.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Json& node = nodes[i];
    GltfNode& n = out.nodes[i];
    if (!node.is_object()) throw SceneError(path + ": node " + std::to_string(i) + " is not an object");
    if (node.contains("name") && node["name"].is_string()) n.name = node["name"].get<std::string>();
    const std::string where = path + ": " + node_label(out, std::uint32_t(i));
    n.children = indices(node, "children", nodes.size(), where);
    n.local = local_transform(node, where);
    n.marked = read_mark(node, where);
  }
  const Json scenes = doc.value("scenes", Json::array());
  const Json scene = doc.value("scene", Json(0));
  if (!scenes.is_array() || !scene.is_number_unsigned() || scene.get<std::uint64_t>() >= scenes.size() ||
      !scenes[scene.get<std::size_t>()].is_object()) {
    throw SceneError(path + ": the glTF names no scene to import");
  }
  out.roots = indices(scenes[scene.get<std::size_t>()], "nodes", nodes.size(), path + ": scene " + scene.dump());
  return out;
}

}  // namespace capsweep
