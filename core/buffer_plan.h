// The activation buffers of a plan being built: which value each buffer holds, the steps
// between which it lives, and the tensors that point into it. Once every step is known the
// buffers are laid out in one arena (core/memory_plan.h) and the tensors bound to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/memory_plan.h"
#include "core/tensor.h"

namespace webnx {

class BufferPlan {
 public:
  // A buffer of its own for `value`, written by step `step`; `slot` points into it once bound.
  void Add(const std::string& value, Tensor* slot, int step);
  // `value` lives in the buffer of `source` (a view of it, or a node fused into the step writing
  // it); `slot`, when given, points into that buffer too. False when `source` has no buffer (a
  // constant or a graph input).
  bool Share(const std::string& value, const std::string& source, Tensor* slot);
  // The buffer holding `value`, if any, is read by step `step`: it lives at least until then.
  void ReadAt(const std::string& value, int step);
  // `value` is never written (a fusion removed it): its buffer takes no space.
  void Drop(const std::string& value);
  // `value`'s buffer becomes the `bytes` bytes of `host`'s buffer at `offset` (a Concat's input,
  // written by its producer where the Concat's output holds it); the host's buffer then lives as
  // long as either did. False, changing nothing, unless both have buffers of their own, that
  // buffer holds exactly `bytes` and is not placed inside another already, and the range lies
  // within the host's.
  bool PlaceInside(const std::string& value, const std::string& host, size_t offset, size_t bytes);

  // Offsets for every buffer; returns the arena's size (SIZE_MAX when it overflows).
  size_t Layout();
  // Points every tensor at its buffer in `arena` (Layout's size).
  void Bind(uint8_t* arena);

 private:
  // The buffer `buffer` is placed inside, through every host (itself when none), and
  // `*offset` (when given) its byte offset there.
  int Outermost(int buffer, size_t* offset) const;

  std::vector<BufferLifetime> lifetimes_;
  std::vector<std::vector<Tensor*>> tensors_;  // per buffer
  // Per buffer: the buffer it is placed inside (-1: none) and its byte offset there.
  std::vector<int> host_;
  std::vector<size_t> offset_in_host_;
  std::unordered_map<std::string, int> buffer_of_;
  std::vector<size_t> offsets_;
};

}  // namespace webnx
