// What the indexing kernels share (gather_slice.cc, pad.cc): dtype and axis checks at plan
// time, reading an int32/int64 index, and copying one element or block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx::indexing {

// Resolves `axis` in [-rank, rank) into [0, rank). Negative axes are accepted at every version
// (older schemas only documented non-negative ones; exporters emit both).
inline Status NormalizeAxis(const PlanContext& ctx, int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "axis " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) +
                         ", " + std::to_string(rank - 1) + "] for an input of rank " +
                         std::to_string(rank));
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::Ok();
}

// Reads index i of an int32/int64 tensor.
inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype == DType::kInt32 ? t.ptr<int32_t>()[i] : t.ptr<int64_t>()[i];
}

// Copies one element or block of `bytes`; fixed sizes compile to a single load/store.
inline void CopyBytes(uint8_t* dst, const uint8_t* src, size_t bytes) {
  switch (bytes) {
    case 1:
      *dst = *src;
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 8:
      std::memcpy(dst, src, 8);
      return;
    default:
      std::memcpy(dst, src, bytes);
      return;
  }
}

// NormalizeAxis for one entry of a list of axes: an axis that an earlier entry already resolved
// to (marked in `seen`) is an error.
inline Status NormalizeDistinctAxis(const PlanContext& ctx, int64_t axis, int64_t rank,
                                    std::vector<bool>* seen, int64_t* out) {
  WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axis, rank, out));
  if ((*seen)[*out]) {
    return ctx.Error(ErrorCode::kMalformedModel, "axis " + std::to_string(axis) + " repeats");
  }
  (*seen)[*out] = true;
  return Status::Ok();
}

}  // namespace webnx::indexing
