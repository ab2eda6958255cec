// Bounds on what a model may ask of the runtime. Hostile input (a 2^40-element shape, two
// million nodes, a megabyte-long name) meets a coded error that names the limit before
// anything that size is allocated or walked. Defaults fit real models in a 4 GiB wasm32 heap;
// callers tighten them through SessionOptions::limits (JS: create(src, { limits: {...} })).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace webnx {

// The hard ceiling, whatever the limits say, for one tensor's bytes, elements and any one dim:
// 4 GiB less one alignment unit, so that a padded size still fits wasm32's 32-bit size_t.
constexpr int64_t kMaxTensorBytes = (int64_t{1} << 32) - 64;

struct SessionLimits {
  int64_t max_rank = 32;                             // limits.maxRank
  int64_t max_dimension = kMaxTensorBytes;           // limits.maxDimension: one dim's size
  int64_t max_tensor_elements = kMaxTensorBytes;     // limits.maxTensorElements
  int64_t max_tensor_bytes = kMaxTensorBytes;        // limits.maxTensorBytes (scratch too)
  int64_t max_initializer_bytes = int64_t{3} << 30;  // limits.maxInitializerBytes: all weights
  int64_t max_arena_bytes = int64_t{3} << 30;        // limits.maxArenaBytes: one plan
  int64_t max_nodes = 2000000;                       // limits.maxNodes
  int64_t max_graph_depth = 1000000;                 // limits.maxGraphDepth: longest chain
  int64_t max_string_length = int64_t{1} << 20;      // limits.maxStringLength: bytes
  int64_t max_subgraph_depth = 16;                   // limits.maxSubgraphDepth: nesting
  // Iterations of one Loop whose end only its run decides (a condition computed from data).
  int64_t max_loop_iterations = int64_t{1} << 24;  // limits.maxLoopIterations
};

// One limit by its JS name ("maxNodes"), for the bindings and for messages.
struct LimitField {
  const char* name;
  int64_t SessionLimits::*member;
};
const std::vector<LimitField>& LimitFields();

// "<what> <value><unit>; the limit is <limit> (limits.<name>)", e.g. "the model has 2000001
// nodes; the limit is 2000000 (limits.maxNodes)".
Status LimitError(ErrorCode code, const std::string& what, int64_t value, const std::string& unit,
                  int64_t limit, const char* name);

// Rank, every dimension, the element count and the byte size of one tensor (dtype_size 0:
// bytes not checked). MalformedModel for rank and dims, OutOfMemory for sizes.
Status CheckShapeLimits(const std::vector<int64_t>& shape, size_t dtype_size,
                        const SessionLimits& limits, const std::string& what);

// Caps every Tensor::Allocate on this thread (kernel scratch included) at max_tensor_bytes
// while alive; scopes nest and restore the previous cap.
class ScopedTensorByteLimit {
 public:
  explicit ScopedTensorByteLimit(int64_t max_bytes);
  ~ScopedTensorByteLimit();
  ScopedTensorByteLimit(const ScopedTensorByteLimit&) = delete;
  ScopedTensorByteLimit& operator=(const ScopedTensorByteLimit&) = delete;

 private:
  int64_t previous_;
};
// The cap in force (the 4 GiB hard ceiling when no scope is active).
int64_t CurrentTensorByteLimit();

}  // namespace webnx
