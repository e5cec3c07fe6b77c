// Poses of instances on the wire (capsweep.proto's PoseColumns): written by the client, read and
// checked by the server, and named by their content, so that every replica and the client give
// the same poses the same pose-set id.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <capsweep/instances.h>
#include "service/columns.h"

namespace capsweep::service {

void write_poses(std::span<const InstancePose> poses, pb::PoseColumns& c);

// The number of rows the columns agree on, or why not ("poses: column qw has 2 rows, id has 3").
std::string rows_of(const pb::PoseColumns& c, std::size_t& rows);

// The rows of `c` (rows_of's count) as poses, or why they are refused, naming the row:
// "poses: row 3 (instance 7): ..." for NaN or infinity, a rotation off unit length (check_pose),
// an id given twice. Whether the world has those instances is World::posed's to say.
std::string read_poses(const pb::PoseColumns& c, std::size_t rows, std::vector<InstancePose>& out);

// The id of a set of poses: 32 hex digits of XXH3-128 over its canonical bytes (rows ordered by
// id; each the id as 4 little-endian bytes, then position and rotation x, y, z, x, y, z, w as
// little-endian IEEE doubles). The rows' order does not change it; any other bit does.
std::string pose_set_id(std::span<const InstancePose> poses);

// `world` at `poses` (instances without a row keep theirs) as a still frame: no instance moved
// from the frame before, so World::move on it carries and pushes no agent. (posed() remembers
// the motion from the frame it was called on; a frame posed from that one with no poses moved
// nothing.) Throws WorldError as World::posed does.
World still_frame(const World& world, std::span<const InstancePose> poses);

}  // namespace capsweep::service
