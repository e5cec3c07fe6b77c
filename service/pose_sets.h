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

  // Keeps `poses` under `id` (again: marks it used). When it was not held, `kept(evicted, held)`
  // is called under the lock (how many sets left to make room, how many are held now), so that
  // counts taken there never go back in time.
  template <class Kept>
  void keep(const std::string& id, PoseSet poses, Kept&& kept) {
    std::lock_guard guard(lock_);
    if (const std::size_t evicted = add(id, std::move(poses)); evicted != kNotAdded) kept(evicted, used_.size());
  }
  // The set named `id`, marked used; null when it is not held.
  PoseSet find(const std::string& id);
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }

 private:
  static constexpr std::size_t kNotAdded = ~std::size_t(0);
  // Under the lock: the sets evicted to keep `poses`, or kNotAdded (held already, or no room).
  std::size_t add(const std::string& id, PoseSet poses);
  using Entry = std::pair<std::string, PoseSet>;
  const std::size_t capacity_;
  mutable std::mutex lock_;
  std::list<Entry> used_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_id_;
};

}  // namespace capsweep::service
