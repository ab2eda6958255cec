// What the shape kernels share (shape_ops.cc, shape_compute.cc): the output size cap, reading
// plan-time shape-like inputs, and copying one value or a run of values.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx::shape_ops {

// Outputs larger than this many elements are refused at plan time (the wasm heap is 4 GiB).
constexpr int64_t kMaxOutputElements = int64_t{1} << 32;

inline Status CheckOutputSize(const PlanContext& ctx, const Shape& out) {
  int64_t numel = 0;
  if (!ShapeNumel(out, &numel) || numel > kMaxOutputElements) {
    return ctx.Error(ErrorCode::kOutOfMemory,
                     "output shape " + ShapeToString(out) + " is too large");
  }
  return Status::Ok();
}

// Reads a plan-time int64 (or int32) list from input `i`, for shape-like inputs.
inline Status ReadConstantInts(const PlanContext& ctx, int i, const std::string& what,
                               std::vector<int64_t>* out) {
  const Tensor* t = ctx.constant(i);
  if (!t) {
    return ctx.Error(ErrorCode::kMalformedModel, what + " must be known when the plan is made");
  }
  if (t->dtype != DType::kInt64 && t->dtype != DType::kInt32) {
    return ctx.Error(ErrorCode::kUnsupportedDtype,
                     what + " must be int64, got " + std::string(DTypeName(t->dtype)));
  }
  if (t->rank() > 1) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     what + " must be 1-D, got shape " + ShapeToString(t->shape));
  }
  out->clear();
  for (int64_t k = 0; k < t->numel(); ++k) out->push_back(t->IntAt(k));
  return Status::Ok();
}

// A plan-time shape must not have a negative dim; `what` names it in the error.
inline Status ExpectNonNegativeDims(const PlanContext& ctx, const std::vector<int64_t>& shape,
                                    const std::string& what) {
  for (int64_t d : shape) {
    if (d < 0) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       what + " " + ShapeToString(shape) + " has a negative dim");
    }
  }
  return Status::Ok();
}

// Copies `count` elements of `elem` bytes each, either a run (step 1) or one value repeated.
inline void CopyRun(uint8_t* dst, const uint8_t* src, int64_t count, size_t elem, bool advance) {
  if (advance) {
    std::memcpy(dst, src, static_cast<size_t>(count) * elem);
    return;
  }
  switch (elem) {
    case 1:
      std::memset(dst, *src, static_cast<size_t>(count));
      return;
    case 4: {
      uint32_t v;
      std::memcpy(&v, src, 4);
      auto* d = reinterpret_cast<uint32_t*>(dst);
      for (int64_t i = 0; i < count; ++i) d[i] = v;
      return;
    }
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * elem, src, elem);
      return;
  }
}

}  // namespace webnx::shape_ops
