// Shape manipulation: Reshape, Flatten, Squeeze, Unsqueeze (views: data unchanged) and Expand,
// Tile (replicate). Inputs that decide an output shape must be known when the plan is made.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/registrations.h"
#include "kernels/shape_common.h"

namespace webnx {
namespace {

using shape_ops::CheckOutputSize;
using shape_ops::CopyRun;
using shape_ops::ExpectNonNegativeDims;
using shape_ops::kMaxOutputElements;
using shape_ops::ReadConstantInts;

// Resolves each axis in [-rank, rank) into [0, rank); a repeated axis is an error.
Status NormalizeAxes(const PlanContext& ctx, std::vector<int64_t>* axes, int64_t rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t& axis : *axes) {
    if (axis < -rank || axis >= rank) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "axis " + std::to_string(axis) + " is out of range [" +
                           std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
    }
    if (axis < 0) axis += rank;
    if (seen[axis]) {
      return ctx.Error(ErrorCode::kMalformedModel, "axis " + std::to_string(axis) + " repeats");
    }
    seen[axis] = true;
  }
  return Status::Ok();
}

// Base of the ops whose output holds the input's elements in the same order: views, which
// point their output at the input's storage instead of copying (the planner keeps it alive).
class ViewKernel : public Kernel {
 public:
  int OutputAliasesInput() const override { return 0; }
  Status Run(RunContext& ctx) override {
    ctx.output(0).data = ctx.input(0).data;
    return Status::Ok();
  }
};

// ---- Reshape (5+: target shape as an input; 14+: allowzero)

class ReshapeKernel final : public ViewKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const bool allow_zero = ctx.since_version() >= 14 && ctx.attrs().Int("allowzero", 0) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    if (!ctx.constant(1)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "Reshape target shape must be known when the plan is made");
    }
    std::vector<int64_t> target;
    WEBNX_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "Reshape target shape", &target));

    const Shape& in = ctx.shape(0);
    int64_t in_numel = 0;
    ShapeNumel(in, &in_numel);
    Shape out(target.size());
    int64_t inferred = -1;  // index of the -1 dim
    int64_t known = 1;      // product of the other dims
    for (size_t i = 0; i < target.size(); ++i) {
      int64_t d = target[i];
      if (d == 0 && !allow_zero) {
        if (i >= in.size()) {
          return ctx.Error(ErrorCode::kShapeMismatch,
                           "target " + ShapeToString(target) + " copies dim " + std::to_string(i) +
                               " that the input " + ShapeToString(in) + " lacks");
        }
        d = in[i];
      } else if (d == -1) {
        if (inferred >= 0) {
          return ctx.Error(ErrorCode::kMalformedModel,
                           "target " + ShapeToString(target) + " has more than one -1");
        }
        inferred = static_cast<int64_t>(i);
        continue;
      } else if (d < 0) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "target " + ShapeToString(target) + " has a negative dim");
      }
      out[i] = d;
      if (d != 0 && known > std::numeric_limits<int64_t>::max() / d) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "target " + ShapeToString(target) + " is too large");
      }
      known *= d;
    }
    if (inferred >= 0) {
      if (known == 0 || in_numel % known != 0) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "cannot reshape " + ShapeToString(in) + " into " + ShapeToString(target));
      }
      out[inferred] = in_numel / known;
      known = in_numel;
    }
    if (known != in_numel) {
      return ctx.Error(ErrorCode::kShapeMismatch, "cannot reshape " + ShapeToString(in) + " (" +
                                                      std::to_string(in_numel) +
                                                      " elements) into " + ShapeToString(out));
    }
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }
};

// ---- Flatten: [d0 .. d(axis-1)] x [d(axis) .. ] into 2-D.

class FlattenKernel final : public ViewKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    int64_t axis = ctx.attrs().Int("axis", 1);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    if (axis < -rank || axis > rank) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "axis " + std::to_string(axis) + " is out of range [" +
                           std::to_string(-rank) + ", " + std::to_string(rank) + "]");
    }
    if (axis < 0) axis += rank;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[d];
    ctx.SetOutput(0, ctx.dtype(0), {outer, inner});
    return Status::Ok();
  }
};

// ---- Squeeze (axes attribute before 13, optional input from 13)

class SqueezeKernel final : public ViewKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const bool axes_input = ctx.since_version() >= 13;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, axes_input ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    std::vector<int64_t> axes;
    if (axes_input) {
      if (ctx.has_input(1)) WEBNX_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "Squeeze axes", &axes));
    } else {
      axes = ctx.attrs().Ints("axes");
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    }
    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    WEBNX_RETURN_IF_ERROR(NormalizeAxes(ctx, &axes, rank));
    std::vector<bool> drop(rank, false);
    if (axes.empty()) {
      for (int64_t d = 0; d < rank; ++d) drop[d] = in[d] == 1;  // no axes: every 1-dim
    }
    for (int64_t axis : axes) {
      if (in[axis] != 1) {
        return ctx.Error(ErrorCode::kShapeMismatch, "cannot squeeze dim " + std::to_string(axis) +
                                                        " of size " + std::to_string(in[axis]) +
                                                        " in input " + ShapeToString(in));
      }
      drop[axis] = true;
    }
    Shape out;
    for (int64_t d = 0; d < rank; ++d) {
      if (!drop[d]) out.push_back(in[d]);
    }
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }
};

// ---- Unsqueeze (axes attribute before 13, required input from 13)

class UnsqueezeKernel final : public ViewKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const bool axes_input = ctx.since_version() >= 13;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(axes_input ? 2 : 1, axes_input ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    std::vector<int64_t> axes;
    if (axes_input) {
      WEBNX_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "Unsqueeze axes", &axes));
    } else {
      if (!ctx.attrs().Has("axes")) {
        return ctx.Error(ErrorCode::kMalformedModel, "attribute 'axes' is required");
      }
      axes = ctx.attrs().Ints("axes");
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    }
    const Shape& in = ctx.shape(0);
    const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
    WEBNX_RETURN_IF_ERROR(NormalizeAxes(ctx, &axes, out_rank));
    std::vector<bool> inserted(out_rank, false);
    for (int64_t axis : axes) inserted[axis] = true;
    Shape out;
    size_t next = 0;
    for (int64_t d = 0; d < out_rank; ++d) out.push_back(inserted[d] ? 1 : in[next++]);
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }
};

// ---- Expand: broadcast the input to broadcast(input shape, shape).

class ExpandKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    std::vector<int64_t> shape;
    WEBNX_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "Expand shape", &shape));
    WEBNX_RETURN_IF_ERROR(ExpectNonNegativeDims(ctx, shape, "Expand shape"));
    Shape out;
    Status s = BroadcastShapes({ctx.shape(0), shape}, &out);
    if (!s.ok()) return ctx.Error(s.code(), s.message());
    WEBNX_RETURN_IF_ERROR(CheckOutputSize(ctx, out));
    walker_.Init(out, {ctx.shape(0)});
    elem_ = DTypeSize(ctx.dtype(0));
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const uint8_t* in = ctx.input(0).ptr<uint8_t>();
    uint8_t* out = ctx.output(0).ptr<uint8_t>();
    const bool advance = walker_.step(0) != 0;
    const size_t elem = elem_;
    walker_.ForEachRun([&](const int64_t* offsets, int64_t out_offset, int64_t n) {
      CopyRun(out + out_offset * elem, in + offsets[0] * elem, n, elem, advance);
    });
    return Status::Ok();
  }

 private:
  BroadcastWalker walker_;
  size_t elem_ = 0;
};

// ---- Tile: out dim d = in dim d * repeats[d]; out[c] = in[c mod in_dims].

class TileKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    std::vector<int64_t> repeats;
    WEBNX_RETURN_IF_ERROR(ReadConstantInts(ctx, 1, "Tile repeats", &repeats));
    const Shape& in = ctx.shape(0);
    if (repeats.size() != in.size()) {
      return ctx.Error(ErrorCode::kMalformedModel, "repeats has " + std::to_string(repeats.size()) +
                                                       " values for an input of rank " +
                                                       std::to_string(in.size()));
    }
    Shape out(in.size());
    for (size_t d = 0; d < in.size(); ++d) {
      if (repeats[d] < 0) {
        return ctx.Error(ErrorCode::kMalformedModel, "repeats must not be negative");
      }
      if (in[d] != 0 && repeats[d] > kMaxOutputElements / in[d]) {
        return ctx.Error(ErrorCode::kOutOfMemory, "tiled output is too large");
      }
      out[d] = in[d] * repeats[d];
    }
    WEBNX_RETURN_IF_ERROR(CheckOutputSize(ctx, out));
    in_dims_ = in;
    out_dims_ = out;
    in_strides_.assign(in.size(), 1);
    for (size_t d = in.size(); d-- > 1;) in_strides_[d - 1] = in_strides_[d] * in[d];
    counter_.assign(in.size(), 0);
    elem_ = DTypeSize(ctx.dtype(0));
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const uint8_t* in = ctx.input(0).ptr<uint8_t>();
    uint8_t* out = ctx.output(0).ptr<uint8_t>();
    const int64_t total = ctx.output(0).numel();
    if (total == 0) return Status::Ok();
    const int64_t rank = static_cast<int64_t>(out_dims_.size());
    if (rank == 0) {
      std::memcpy(out, in, elem_);
      return Status::Ok();
    }
    // Each output row (innermost dim) is its input row repeated; outer coordinates wrap.
    const int64_t in_row = in_dims_[rank - 1];
    const int64_t out_row = out_dims_[rank - 1];
    const size_t row_bytes = static_cast<size_t>(in_row) * elem_;
    std::fill(counter_.begin(), counter_.end(), 0);
    for (int64_t o = 0; o < total; o += out_row) {
      int64_t src = 0;
      for (int64_t d = 0; d + 1 < rank; ++d) src += (counter_[d] % in_dims_[d]) * in_strides_[d];
      uint8_t* dst = out + static_cast<size_t>(o) * elem_;
      for (int64_t r = 0; r < out_row; r += in_row) {
        std::memcpy(dst + static_cast<size_t>(r) * elem_, in + static_cast<size_t>(src) * elem_,
                    row_bytes);
      }
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++counter_[d] < out_dims_[d]) break;
        counter_[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  Shape in_dims_, out_dims_;
  std::vector<int64_t> in_strides_, counter_;
  size_t elem_ = 0;
};

}  // namespace

void RegisterShapeKernels(OpRegistry& r) {
  r.Register("", "Reshape", {{5, 13, 14, 19, 21}, Inputs(2), Outputs(1)},
             MakeKernel<ReshapeKernel>);
  r.Register("", "Flatten", {{1, 9, 11, 13, 21}, Inputs(1), Outputs(1)}, MakeKernel<FlattenKernel>);
  // 13 turned axes into an input: optional for Squeeze, required for Unsqueeze.
  r.Register("", "Squeeze", {{{1, 11}, Inputs(1), Outputs(1)}, {{13}, Inputs(1, 2), Outputs(1)}},
             MakeKernel<SqueezeKernel>);
  r.Register("", "Unsqueeze", {{{1, 11}, Inputs(1), Outputs(1)}, {{13}, Inputs(2), Outputs(1)}},
             MakeKernel<UnsqueezeKernel>);
  r.Register("", "Expand", {{8, 13}, Inputs(2), Outputs(1)}, MakeKernel<ExpandKernel>);
  r.Register("", "Tile", {{6, 13}, Inputs(2), Outputs(1)}, MakeKernel<TileKernel>);
}

}  // namespace webnx
