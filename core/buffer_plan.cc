#include "core/buffer_plan.h"

#include <algorithm>
#include <cstdint>

namespace webnx {

void BufferPlan::Add(const std::string& value, Tensor* slot, int step) {
  buffer_of_[value] = static_cast<int>(lifetimes_.size());
  lifetimes_.push_back(BufferLifetime{slot->nbytes(), step, step});
  tensors_.push_back({slot});
  host_.push_back(-1);
  offset_in_host_.push_back(0);
}

bool BufferPlan::Share(const std::string& value, const std::string& source, Tensor* slot) {
  auto b = buffer_of_.find(source);
  if (b == buffer_of_.end()) return false;
  const int buffer = b->second;  // before the insertion below, which may rehash
  buffer_of_[value] = buffer;
  if (slot) tensors_[buffer].push_back(slot);
  return true;
}

void BufferPlan::ReadAt(const std::string& value, int step) {
  auto b = buffer_of_.find(value);
  if (b != buffer_of_.end())
    lifetimes_[b->second].last_step = std::max(lifetimes_[b->second].last_step, step);
}

void BufferPlan::Drop(const std::string& value) {
  auto b = buffer_of_.find(value);
  if (b != buffer_of_.end()) lifetimes_[b->second].bytes = 0;
}

int BufferPlan::Outermost(int buffer, size_t* offset) const {
  size_t at = 0;
  for (; host_[buffer] >= 0; buffer = host_[buffer]) at += offset_in_host_[buffer];
  if (offset) *offset = at;
  return buffer;
}

bool BufferPlan::PlaceInside(const std::string& value, const std::string& host, size_t offset,
                             size_t bytes) {
  auto v = buffer_of_.find(value), h = buffer_of_.find(host);
  if (v == buffer_of_.end() || h == buffer_of_.end()) return false;
  const int placed = v->second, outer = h->second;
  if (host_[placed] >= 0 || lifetimes_[placed].bytes != bytes) return false;
  if (offset > lifetimes_[outer].bytes || bytes > lifetimes_[outer].bytes - offset) return false;
  // Not the host itself, nor a buffer the host is inside already.
  if (Outermost(outer, nullptr) == placed) return false;
  host_[placed] = outer;
  offset_in_host_[placed] = offset;
  return true;
}

size_t BufferPlan::Layout() {
  // A buffer placed inside another takes no space of its own; the outermost host lives from the
  // first step any of them is written to the last step any is read.
  std::vector<BufferLifetime> placed = lifetimes_;
  for (size_t b = 0; b < placed.size(); ++b) {
    const int root = Outermost(static_cast<int>(b), nullptr);
    if (root == static_cast<int>(b)) continue;
    placed[root].first_step = std::min(placed[root].first_step, lifetimes_[b].first_step);
    placed[root].last_step = std::max(placed[root].last_step, lifetimes_[b].last_step);
    placed[b].bytes = 0;
  }
  size_t arena_bytes = 0;
  offsets_ = PlaceBuffers(placed, &arena_bytes);
  if (arena_bytes == SIZE_MAX) return arena_bytes;
  for (size_t b = 0; b < placed.size(); ++b) {
    size_t offset = 0;
    const int root = Outermost(static_cast<int>(b), &offset);
    offsets_[b] = offsets_[root] + offset;
  }
  return arena_bytes;
}

void BufferPlan::Bind(uint8_t* arena) {
  for (size_t b = 0; b < tensors_.size(); ++b)
    for (Tensor* t : tensors_[b]) t->data = arena + offsets_[b];
}

}  // namespace webnx
