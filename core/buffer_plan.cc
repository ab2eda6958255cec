#include "core/buffer_plan.h"

#include <algorithm>

namespace webnx {

void BufferPlan::Add(const std::string& value, Tensor* slot, int step) {
  buffer_of_[value] = static_cast<int>(lifetimes_.size());
  lifetimes_.push_back(BufferLifetime{slot->nbytes(), step, step});
  tensors_.push_back({slot});
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

size_t BufferPlan::Layout() {
  size_t arena_bytes = 0;
  offsets_ = PlaceBuffers(lifetimes_, &arena_bytes);
  return arena_bytes;
}

void BufferPlan::Bind(uint8_t* arena) {
  for (size_t b = 0; b < tensors_.size(); ++b)
    for (Tensor* t : tensors_[b]) t->data = arena + offsets_[b];
}

}  // namespace webnx
