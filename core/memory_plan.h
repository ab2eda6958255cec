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

// Returns each buffer's offset (64-byte aligned); `arena_bytes` receives the total size.
std::vector<size_t> PlaceBuffers(const std::vector<BufferLifetime>& buffers, size_t* arena_bytes);

}  // namespace webnx
