// Static memory plan: places every activation buffer of a plan at an offset in one arena so
// that buffers whose lifetimes overlap never share bytes. Run() then allocates nothing.
#pragma once

#include <cstddef>
#include <vector>

namespace webnx {

struct BufferLifetime {
  size_t bytes = 0;
  int first_step = 0;  // step that writes it
  int last_step = 0;   // last step that reads it (INT_MAX for graph outputs)
};

// Returns each buffer's offset (64-byte aligned); `arena_bytes` receives the total size, or
// SIZE_MAX when it does not fit in size_t (offsets are then incomplete).
std::vector<size_t> PlaceBuffers(const std::vector<BufferLifetime>& buffers, size_t* arena_bytes);

// The same contract in O(n log n), greedy in step order; PlaceBuffers uses it past
// kMaxBuffersPlacedBySize buffers, where its own search (quadratic in the buffers alive
// together) would make a huge graph's plan take hours.
constexpr size_t kMaxBuffersPlacedBySize = 4096;
std::vector<size_t> PlaceBuffersByTime(const std::vector<BufferLifetime>& buffers,
                                       size_t* arena_bytes);

}  // namespace webnx
