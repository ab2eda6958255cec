#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <utility>

#include "core/memory_plan.h"

namespace webnx {

// Greedy in step order: buffers whose last reader has run go back to a free list (coalesced
// with free neighbours), and each new buffer takes the smallest free block it fits in, else
// grows the arena. O(n log n) in the number of buffers.
std::vector<size_t> PlaceBuffersByTime(const std::vector<BufferLifetime>& buffers,
                                       size_t* arena_bytes) {
  constexpr size_t kAlign = 64;
  auto padded = [&](size_t i) {
    return std::max(kAlign, (buffers[i].bytes + kAlign - 1) / kAlign * kAlign);
  };
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].first_step < buffers[b].first_step;
  });
  std::vector<size_t> offset(buffers.size(), 0);
  std::map<size_t, size_t> free_by_offset;           // offset -> size
  std::set<std::pair<size_t, size_t>> free_by_size;  // (size, offset)
  auto erase_free = [&](std::map<size_t, size_t>::iterator it) {
    free_by_size.erase({it->second, it->first});
    return free_by_offset.erase(it);
  };
  auto add_free = [&](size_t at, size_t size) {
    auto next = free_by_offset.lower_bound(at);
    if (next != free_by_offset.end() && at + size == next->first) {
      size += next->second;
      next = erase_free(next);
    }
    if (next != free_by_offset.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == at) {
        at = prev->first;
        size += prev->second;
        erase_free(prev);
      }
    }
    free_by_offset.emplace(at, size);
    free_by_size.emplace(size, at);
  };
  // Live buffers, the one whose last reader runs first on top.
  using Live = std::pair<int, size_t>;  // (last_step, id)
  std::priority_queue<Live, std::vector<Live>, std::greater<Live>> live;
  size_t end = 0;
  for (size_t id : order) {
    while (!live.empty() && live.top().first < buffers[id].first_step) {
      add_free(offset[live.top().second], padded(live.top().second));
      live.pop();
    }
    const size_t size = padded(id);
    auto fit = free_by_size.lower_bound({size, 0});
    if (fit != free_by_size.end()) {
      const size_t block = fit->first;
      const size_t at = fit->second;
      erase_free(free_by_offset.find(at));
      if (block > size) add_free(at + size, block - size);
      offset[id] = at;
    } else {
      // The free block ending the arena (if any) grows to fit.
      size_t at = end;
      if (!free_by_offset.empty()) {
        auto last = std::prev(free_by_offset.end());
        if (last->first + last->second == end) {
          at = last->first;
          erase_free(last);
        }
      }
      if (at > SIZE_MAX - size) {  // wasm32: the arena would pass 4 GiB
        *arena_bytes = SIZE_MAX;
        return offset;
      }
      offset[id] = at;
      end = at + size;
    }
    live.emplace(buffers[id].last_step, id);
  }
  *arena_bytes = end;
  return offset;
}

}  // namespace webnx
