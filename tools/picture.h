// A top-down picture (looking down -Y) of a world with a crowd's trails, written as PNG.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <capsweep/world.h>

namespace capsweep {

class TopDownPicture {
 public:
  // The world's X-Z extent fitted into at most `size` pixels on the longer side. Surfaces are
  // shaded by height, steep ones darker, the highest surface at each pixel on top.
  TopDownPicture(const World& world, int size = 1200);

  // A trail segment coloured by speed: blue at 0, green at max_speed / 2, red at max_speed.
  void trail(const Vec3& from, const Vec3& to, float speed, float max_speed);
  // A contact: yellow with the world, magenta with another agent.
  void contact(const Vec3& p, bool with_agent);
  // Where an agent ends: a white disc (40 % of its radius).
  void agent(const Vec3& p, float radius);
  // A moving part's path from above (the box its triangles swept over a run): tinted and
  // outlined in part k's colour, over what is drawn already (the trails show through).
  void moving_part(const Aabb& box, std::size_t k);
  // A navmesh polygon's triangle from above: its pixels tinted teal (the ground shows through).
  void navmesh(const Triangle& t);
  // A planned path's leg: a thin white line.
  void path(const Vec3& from, const Vec3& to);
  // Part k's colour by name: orange, cyan, lime, pink, then again.
  static const char* part_colour_name(std::size_t k);
  // What a legend row stands for: each is drawn in the colour its drawing call uses.
  enum class Mark : std::uint8_t { contact_with_level, contact_with_agent, agent, navmesh, path };
  // A legend of the colours (the trails' speeds up to max_speed m/s, then one row per mark, then
  // each named moving part, part k in part k's colour) and a scale bar of a round length, in a
  // panel in the top-left corner. Draw it last: it covers what is under it.
  void legend(float max_speed, std::span<const Mark> marks, std::span<const std::string> part_names = {});
  // A crowd's legend: the contacts and the agents, then the parts.
  void legend(float max_speed, std::span<const std::string> part_names = {});

  // Throws std::runtime_error naming the file when it cannot be written.
  void write_png(const std::string& path, std::span<const std::string> inputs = {}) const;  // atomic

  int width() const { return width_; }
  int height() const { return height_; }

 private:
  void put(int x, int y, std::uint32_t rgb);
  // A straight line from above, one pixel wide.
  void line(const Vec3& from, const Vec3& to, std::uint32_t rgb);
  // Calls f(pixel, w0, w1, w2) for each pixel whose centre the triangle covers seen from above
  // (a barycentric fill of its pixel box), with the centre's barycentric weights.
  template <class F>
  void fill(const Triangle& t, F&& f);
  void text(const std::string& s, int x, int y, std::uint32_t rgb);
  float px(float x) const { return (x - x0_) * scale_; }
  float py(float z) const { return (z - z0_) * scale_; }

  int width_, height_;
  float x0_, z0_, scale_;
  std::vector<std::uint32_t> rgb_;
};

}  // namespace capsweep
