#include "io/mesh_checks.h"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <capsweep/files.h>

namespace capsweep {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) { throw SceneError(path + ": " + why); }

// Whitespace-separated words of a text body, with the line each starts on.
class Words {
 public:
  explicit Words(std::string_view text) : text_(text) {}
  bool next(std::string_view& word) {
    while (at_ < text_.size() && std::strchr(" \t\r\n", text_[at_])) {
      if (text_[at_] == '\n') ++line_;
      ++at_;
    }
    if (at_ >= text_.size()) return false;
    const std::size_t start = at_;
    while (at_ < text_.size() && !std::strchr(" \t\r\n", text_[at_])) ++at_;
    word = text_.substr(start, at_ - start);
    return true;
  }
  // The rest of the current line (for OFF faces, whose trailing colour is optional).
  std::string_view rest_of_line() {
    const std::size_t end = text_.find('\n', at_);
    const std::string_view rest = text_.substr(at_, end == std::string_view::npos ? text_.size() - at_ : end - at_);
    at_ = end == std::string_view::npos ? text_.size() : end;
    return rest;
  }
  std::size_t offset() const { return at_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
};

bool to_integer(std::string_view word, long long& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}
bool to_number(std::string_view word, double& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

// A number read from a file, for a message: an integer as an integer, anything else as the
// shortest text that reads back to it (casting 1e30 or NaN to long long is undefined behaviour).
std::string number_text(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 9.0e18) return std::to_string((long long)v);
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, v);
  return std::string(text, written.ptr);
}

// A list length or a vertex index must be a whole number; above 2^53 a double skips integers.
bool is_whole(double v, double below) { return v >= 0 && v < below && v == std::trunc(v); }
constexpr double kTwoTo53 = 9007199254740992.0;

// --- PLY (Greg Turk's format: a text header, then ascii or binary elements) ---

struct PlyProperty {
  bool list = false;
  std::string count_type, type, name;
};
struct PlyElement {
  std::string name;
  long long count = 0;
  std::vector<PlyProperty> properties;
};

int ply_type_bytes(const std::string& t) {
  if (t == "char" || t == "uchar" || t == "int8" || t == "uint8") return 1;
  if (t == "short" || t == "ushort" || t == "int16" || t == "uint16") return 2;
  if (t == "int" || t == "uint" || t == "float" || t == "int32" || t == "uint32" || t == "float32") return 4;
  if (t == "double" || t == "float64") return 8;
  return 0;
}

bool is_vertex_indices(const PlyElement& e, const PlyProperty& p) {
  return e.name == "face" && p.list && (p.name == "vertex_indices" || p.name == "vertex_index");
}

// A binary value of type t at p, as a double (integers exactly up to 2^53).
double read_binary(const char* p, const std::string& t, bool big_endian) {
  unsigned char b[8];
  const int n = ply_type_bytes(t);
  std::memcpy(b, p, std::size_t(n));
  if (big_endian) {
    for (int i = 0; i < n / 2; ++i) std::swap(b[i], b[n - 1 - i]);
  }
  auto as = [&](auto v) {
    std::memcpy(&v, b, sizeof v);
    return double(v);
  };
  if (t == "char" || t == "int8") return as(std::int8_t{});
  if (t == "uchar" || t == "uint8") return as(std::uint8_t{});
  if (t == "short" || t == "int16") return as(std::int16_t{});
  if (t == "ushort" || t == "uint16") return as(std::uint16_t{});
  if (t == "int" || t == "int32") return as(std::int32_t{});
  if (t == "uint" || t == "uint32") return as(std::uint32_t{});
  if (t == "float" || t == "float32") return as(float{});
  return as(double{});
}

void check_ply(const std::string& path, std::string_view bytes) {
  const std::size_t header_end = bytes.find("end_header");
  if (header_end == std::string_view::npos) refuse(path, "PLY header has no end_header");
  std::size_t body = bytes.find('\n', header_end);
  if (body == std::string_view::npos) refuse(path, "PLY file ends after its header");
  ++body;
  Words header(bytes.substr(0, header_end));
  std::string format;
  std::vector<PlyElement> elements;
  for (std::string_view w; header.next(w);) {
    if (w == "format") {
      std::string_view f;
      header.next(f);
      format = f;
      header.rest_of_line();
    } else if (w == "element") {
      std::string_view name, count;
      header.next(name);
      header.next(count);
      PlyElement e;
      e.name = name;
      if (!to_integer(count, e.count) || e.count < 0) refuse(path, "PLY element '" + e.name + "' has a bad count");
      elements.push_back(e);
    } else if (w == "property") {
      if (elements.empty()) refuse(path, "PLY property before any element");
      PlyProperty p;
      std::string_view a, b, c;
      header.next(a);
      if (a == "list") {
        header.next(b);
        header.next(c);
        p.list = true;
        p.count_type = b;
        p.type = c;
      } else {
        p.type = a;
      }
      std::string_view name;
      header.next(name);
      p.name = name;
      if (ply_type_bytes(p.type) == 0 || (p.list && ply_type_bytes(p.count_type) == 0)) {
        refuse(path, "PLY property '" + p.name + "' has an unknown type");
      }
      elements.back().properties.push_back(p);
    } else {
      header.rest_of_line();  // ply, comment, obj_info
    }
  }
  long long vertices = 0;
  for (const PlyElement& e : elements) {
    if (e.name == "vertex") vertices = e.count;
    // Records of no properties take no bytes: a binary file could declare 10^18 of them.
    if (e.count > 0 && e.properties.empty()) {
      refuse(path, "PLY element '" + e.name + "' declares " + std::to_string(e.count) + " records of no properties");
    }
  }
  // An index of 1.5 is refused too: Assimp would truncate it to another vertex without a word.
  auto check_index = [&](double index, long long face) {
    if (!is_whole(index, double(vertices))) {
      refuse(path, "face " + std::to_string(face) + " names vertex " + number_text(index) + " of " +
                       std::to_string(vertices));
    }
  };
  auto ends = [&](const PlyElement& e, long long i) {
    refuse(path, "the file ends inside " + e.name + " " + std::to_string(i) + " (it declares " +
                     std::to_string(e.count) + ")");
  };

  if (format == "ascii") {
    // One element per line (the PLY format's own rule): a face's line must hold exactly its
    // count and that many indices, so a short face cannot borrow the next line's numbers.
    std::string_view rest = bytes.substr(body);
    long long line_number = 0;
    auto next_line = [&](std::string_view& line) {
      while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        ++line_number;
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) return true;
      }
      return false;
    };
    for (const PlyElement& e : elements) {
      for (long long i = 0; i < e.count; ++i) {
        std::string_view line;
        if (!next_line(line)) ends(e, i);
        Words words(line);
        std::string_view w;
        double v;
        for (const PlyProperty& p : e.properties) {
          if (!words.next(w)) {
            refuse(path, e.name + " " + std::to_string(i) + ": its line holds fewer values than its properties");
          }
          if (!to_number(w, v)) refuse(path, e.name + " " + std::to_string(i) + ": '" + std::string(w) + "' is not a number");
          if (!p.list) continue;
          if (!is_whole(v, kTwoTo53)) refuse(path, e.name + " " + std::to_string(i) + ": bad list length '" + std::string(w) + "'");
          const long long n = (long long)v;
          // Assimp 5.2's triangulation aborts the process on a face of no vertices.
          if (n == 0 && is_vertex_indices(e, p)) refuse(path, e.name + " " + std::to_string(i) + " has no vertices");
          for (long long k = 0; k < n; ++k) {
            if (!words.next(w)) {
              refuse(path, e.name + " " + std::to_string(i) + " claims " + std::to_string(n) + " indices but its line holds " +
                               std::to_string(k));
            }
            if (!to_number(w, v)) refuse(path, e.name + " " + std::to_string(i) + ": '" + std::string(w) + "' is not a number");
            if (is_vertex_indices(e, p)) check_index(v, i);
          }
        }
        if (words.next(w)) refuse(path, e.name + " " + std::to_string(i) + ": its line holds more values than its properties");
      }
    }
    return;
  }
  if (format != "binary_little_endian" && format != "binary_big_endian") {
    refuse(path, "PLY format '" + format + "' is not ascii or binary");
  }
  const bool big = format == "binary_big_endian";
  std::size_t at = body;
  for (const PlyElement& e : elements) {
    for (long long i = 0; i < e.count; ++i) {
      for (const PlyProperty& p : e.properties) {
        if (!p.list) {
          const std::size_t n = std::size_t(ply_type_bytes(p.type));
          if (bytes.size() - at < n) ends(e, i);
          at += n;
          continue;
        }
        const std::size_t cn = std::size_t(ply_type_bytes(p.count_type));
        if (bytes.size() - at < cn) ends(e, i);
        const double count = read_binary(bytes.data() + at, p.count_type, big);
        at += cn;
        if (!is_whole(count, HUGE_VAL)) refuse(path, e.name + " " + std::to_string(i) + ": bad list length " + number_text(count));
        if (count == 0 && is_vertex_indices(e, p)) refuse(path, e.name + " " + std::to_string(i) + " has no vertices");
        const std::size_t tn = std::size_t(ply_type_bytes(p.type));
        if (double(bytes.size() - at) < count * double(tn)) {
          refuse(path, e.name + " " + std::to_string(i) + " claims " + number_text(count) +
                           " indices but the file ends");
        }
        for (long long k = 0; k < (long long)count; ++k, at += tn) {
          if (is_vertex_indices(e, p)) check_index(read_binary(bytes.data() + at, p.type, big), i);
        }
      }
    }
  }
}

// --- OFF (Geomview's Object File Format: counts, vertex lines, face lines "n i0 .. in-1") ---

void check_off(const std::string& path, std::string_view bytes) {
  // Comments run from '#' to the end of a line; drop them so that words and lines stay simple.
  std::string text(bytes);
  for (std::size_t c = text.find('#'); c != std::string::npos; c = text.find('#', c)) {
    const std::size_t end = text.find('\n', c);
    text.replace(c, (end == std::string::npos ? text.size() : end) - c, "");
  }
  Words words(text);
  std::string_view w;
  if (!words.next(w) || w.find("OFF") == std::string_view::npos) refuse(path, "not an OFF file (no OFF keyword)");
  long long counts[3] = {0, 0, 0};
  for (long long& c : counts) {
    if (!words.next(w) || !to_integer(w, c) || c < 0) refuse(path, "OFF counts are missing or bad");
  }
  const long long vertices = counts[0], faces = counts[1];
  // Vertices: at least 3 numbers each; variants (COFF, NOFF, ...) add more on the same line.
  for (long long v = 0; v < vertices; ++v) {
    double x;
    for (int k = 0; k < 3; ++k) {
      if (!words.next(w)) refuse(path, "the file ends inside vertex " + std::to_string(v) + " (it declares " + std::to_string(vertices) + ")");
      if (!to_number(w, x)) refuse(path, "vertex " + std::to_string(v) + ": '" + std::string(w) + "' is not a number");
    }
    words.rest_of_line();
  }
  for (long long f = 0; f < faces; ++f) {
    long long n = 0;
    if (!words.next(w)) refuse(path, "the file ends inside face " + std::to_string(f) + " (it declares " + std::to_string(faces) + ")");
    if (!to_integer(w, n) || n < 0) refuse(path, "face " + std::to_string(f) + ": bad vertex count '" + std::string(w) + "'");
    if (n == 0) refuse(path, "face " + std::to_string(f) + " has no vertices");
    Words line(words.rest_of_line());
    for (long long k = 0; k < n; ++k) {
      long long index = 0;
      if (!line.next(w)) {
        refuse(path, "face " + std::to_string(f) + " claims " + std::to_string(n) + " indices but its line holds " + std::to_string(k));
      }
      if (!to_integer(w, index)) refuse(path, "face " + std::to_string(f) + ": '" + std::string(w) + "' is not an index");
      if (index < 0 || index >= vertices) {
        refuse(path, "face " + std::to_string(f) + " names vertex " + std::to_string(index) + " of " + std::to_string(vertices));
      }
    }
  }
}

}  // namespace

// Every gzip member must end with its trailer (a file cut short
// is refused, never loaded in part), and members may follow each other (RFC 1952, 2.2).
namespace {
constexpr std::size_t kMaxInflatedBytes = std::size_t(8) << 30;
}  // namespace

std::string inflate_gzip(const std::string& path, std::string_view packed) {
  if (packed.size() < 2 || static_cast<unsigned char>(packed[0]) != 0x1f || static_cast<unsigned char>(packed[1]) != 0x8b) {
    throw SceneError(path + ": not gzip data (the file is named .gz)");
  }
  std::string out;
  std::size_t at = 0;
  char buffer[1 << 16];
  while (at < packed.size()) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw SceneError(path + ": cannot start inflating");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data() + at));
    z.avail_in = uInt(std::min<std::size_t>(packed.size() - at, 1u << 30));
    int code = Z_OK;
    while (code == Z_OK) {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      code = inflate(&z, Z_NO_FLUSH);
      out.append(buffer, sizeof buffer - z.avail_out);
      if (out.size() > kMaxInflatedBytes) {
        inflateEnd(&z);
        throw SceneError(path + ": inflates to more than 8 GiB");
      }
      if (code == Z_BUF_ERROR && z.avail_in == 0) break;  // input used up before the member ended
    }
    const std::string why = z.msg ? z.msg : "";
    const std::size_t used = std::size_t(reinterpret_cast<const char*>(z.next_in) - (packed.data() + at));
    inflateEnd(&z);
    if (code != Z_STREAM_END) {
      if (code == Z_BUF_ERROR || code == Z_OK) throw SceneError(path + ": truncated gzip stream (the file is cut short)");
      throw SceneError(path + ": broken gzip data (" + (why.empty() ? "inflate error " + std::to_string(code) : why) + ")");
    }
    at += used;
    // Trailing zero bytes after the last member (tape padding) are not another member.
    if (packed.find_first_not_of('\0', at) == std::string_view::npos) break;
  }
  return out;
}


void check_mesh_bytes(const std::string& path, std::string_view bytes, const std::string& extension) {
  if (extension == ".ply") check_ply(path, bytes);
  if (extension == ".off") check_off(path, bytes);
}

}  // namespace capsweep
