#include "service/pose_sets.h"

namespace capsweep::service {

std::size_t PoseSets::add(const std::string& id, PoseSet poses) {
  if (auto it = by_id_.find(id); it != by_id_.end()) {
    used_.splice(used_.begin(), used_, it->second);
    return kNotAdded;
  }
  if (capacity_ == 0) return kNotAdded;
  std::size_t evicted = 0;
  for (; used_.size() >= capacity_; ++evicted) {
    by_id_.erase(used_.back().first);
    used_.pop_back();
  }
  used_.emplace_front(id, std::move(poses));
  by_id_.emplace(id, used_.begin());
  return evicted;
}

PoseSet PoseSets::find(const std::string& id) {
  std::lock_guard guard(lock_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  used_.splice(used_.begin(), used_, it->second);
  return it->second->second;
}

std::size_t PoseSets::size() const {
  std::lock_guard guard(lock_);
  return used_.size();
}

}  // namespace capsweep::service
