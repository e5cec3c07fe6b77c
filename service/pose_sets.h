// The pose sets a replica keeps (UploadPoses): a bounded cache by pose-set id, the least recently
// used set leaving first. Losing one costs a client one FAILED_PRECONDITION and a re-send, never
// a wrong answer, so replicas need not agree on what they hold.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <capsweep/instances.h>

namespace capsweep::service {

using PoseSet = std::shared_ptr<const std::vector<InstancePose>>;

class PoseSets {
 public:
  explicit PoseSets(std::size_t capacity) : capacity_(capacity) {}

  // Keeps `poses` under `id` (again: marks it used); returns how many sets left to make room.
  std::size_t keep(const std::string& id, PoseSet poses);
  // The set named `id`, marked used; null when it is not held.
  PoseSet find(const std::string& id);
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }

 private:
  using Entry = std::pair<std::string, PoseSet>;
  const std::size_t capacity_;
  mutable std::mutex lock_;
  std::list<Entry> used_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_id_;
};

}  // namespace capsweep::service
