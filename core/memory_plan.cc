#include "core/memory_plan.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

namespace webnx {

std::vector<size_t> PlaceBuffers(const std::vector<BufferLifetime>& buffers, size_t* arena_bytes) {
  if (buffers.size() > kMaxBuffersPlacedBySize) return PlaceBuffersByTime(buffers, arena_bytes);
  constexpr size_t kAlign = 64;
  auto padded = [&](size_t i) {
    return std::max(kAlign, (buffers[i].bytes + kAlign - 1) / kAlign * kAlign);
  };
  // Largest first: big buffers claim low offsets, small ones fill the gaps between them.
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return padded(a) > padded(b); });

  std::vector<size_t> offset(buffers.size(), 0);
  std::vector<size_t> placed;
  size_t total = 0;
  for (size_t id : order) {
    // Byte ranges of placed buffers alive at the same time as this one, by offset.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t other : placed) {
      const auto& a = buffers[id];
      const auto& b = buffers[other];
      if (a.first_step <= b.last_step && b.first_step <= a.last_step) {
        busy.emplace_back(offset[other], offset[other] + padded(other));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t candidate = 0;
    for (const auto& range : busy) {
      // Fits in the gap before this range (written so that it cannot wrap around).
      if (range.first >= candidate && range.first - candidate >= padded(id)) break;
      candidate = std::max(candidate, range.second);
    }
    if (candidate > SIZE_MAX - padded(id)) {  // wasm32: the arena would pass 4 GiB
      *arena_bytes = SIZE_MAX;
      return offset;
    }
    offset[id] = candidate;
    total = std::max(total, candidate + padded(id));
    placed.push_back(id);
  }
  *arena_bytes = total;
  return offset;
}

}  // namespace webnx
