#include "core/limits.h"

#include <algorithm>
#include <cstdint>

#include "core/tensor.h"

namespace webnx {
namespace {

thread_local int64_t tensor_byte_limit = kMaxTensorBytes;

}  // namespace

const std::vector<LimitField>& LimitFields() {
  static const std::vector<LimitField> fields = {
      {"maxRank", &SessionLimits::max_rank},
      {"maxDimension", &SessionLimits::max_dimension},
      {"maxTensorElements", &SessionLimits::max_tensor_elements},
      {"maxTensorBytes", &SessionLimits::max_tensor_bytes},
      {"maxInitializerBytes", &SessionLimits::max_initializer_bytes},
      {"maxArenaBytes", &SessionLimits::max_arena_bytes},
      {"maxNodes", &SessionLimits::max_nodes},
      {"maxGraphDepth", &SessionLimits::max_graph_depth},
      {"maxStringLength", &SessionLimits::max_string_length},
      {"maxSubgraphDepth", &SessionLimits::max_subgraph_depth},
      {"maxLoopIterations", &SessionLimits::max_loop_iterations},
  };
  return fields;
}

Status LimitError(ErrorCode code, const std::string& what, int64_t value, const std::string& unit,
                  int64_t limit, const char* name) {
  return Status(code, what + " " + std::to_string(value) + unit + "; the limit is " +
                          std::to_string(limit) + " (limits." + name + ")");
}

Status CheckShapeLimits(const std::vector<int64_t>& shape, size_t dtype_size,
                        const SessionLimits& limits, const std::string& what) {
  // Whatever the limits say, no dim and no element count passes the 4 GiB heap: kernels rely
  // on that to add and multiply a few dims without overflow.
  const int64_t max_dimension = std::min(limits.max_dimension, kMaxTensorBytes);
  const int64_t max_elements = std::min(limits.max_tensor_elements, kMaxTensorBytes);
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (rank > limits.max_rank) {
    return LimitError(ErrorCode::kMalformedModel, what + " has rank", rank, "", limits.max_rank,
                      "maxRank");
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status(ErrorCode::kMalformedModel, what + " has a negative dimension " +
                                                    std::to_string(shape[d]) + " at axis " +
                                                    std::to_string(d));
    }
    if (shape[d] > max_dimension) {
      return LimitError(ErrorCode::kMalformedModel, what + " has a dimension of", shape[d],
                        " at axis " + std::to_string(d), max_dimension, "maxDimension");
    }
  }
  int64_t numel = 0;
  if (!ShapeNumel(shape, &numel)) {  // the product overflows int64
    return Status(ErrorCode::kOutOfMemory, what + " of shape " + ShapeToString(shape) +
                                               " has more than 2^63 elements; the limit is " +
                                               std::to_string(max_elements) +
                                               " (limits.maxTensorElements)");
  }
  if (numel > max_elements) {
    return LimitError(ErrorCode::kOutOfMemory, what + " of shape " + ShapeToString(shape) + " has",
                      numel, " elements", max_elements, "maxTensorElements");
  }
  const int64_t cap = std::min(limits.max_tensor_bytes, kMaxTensorBytes);
  const int64_t elem = static_cast<int64_t>(dtype_size);
  if (elem > 0 && numel > cap / elem) {
    return LimitError(
        ErrorCode::kOutOfMemory, what + " of shape " + ShapeToString(shape) + " needs",
        numel > INT64_MAX / elem ? INT64_MAX : numel * elem, " bytes", cap, "maxTensorBytes");
  }
  return Status::Ok();
}

ScopedTensorByteLimit::ScopedTensorByteLimit(int64_t max_bytes) : previous_(tensor_byte_limit) {
  tensor_byte_limit = std::max<int64_t>(0, std::min(max_bytes, kMaxTensorBytes));
}

ScopedTensorByteLimit::~ScopedTensorByteLimit() {
  tensor_byte_limit = previous_;
}

int64_t CurrentTensorByteLimit() {
  return tensor_byte_limit;
}

}  // namespace webnx
