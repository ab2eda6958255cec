// Indexing ops that copy the elements they select: Gather and GatherElements (by indices) and
// Slice (by ranges along axes). Indices read at run time are checked before use (an out-of-range
// index is InvalidInput, never an out-of-bounds read); Slice parameters must be known when the
// plan is made, because they decide the output shape.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/indexing_common.h"
#include "kernels/registrations.h"
#include "kernels/strided_copy.h"

namespace webnx {
namespace {

using indexing::CopyBytes;
using indexing::IndexAt;
using indexing::NormalizeAxis;
using indexing::NormalizeDistinctAxis;
using indexing::StridedCopy;

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
}

Status IndexOutOfRange(const std::string& node, int64_t index, int64_t dim, int64_t axis) {
  return Status(ErrorCode::kInvalidInput,
                node + ": index " + std::to_string(index) + " is out of range [" +
                    std::to_string(-dim) + ", " + std::to_string(dim - 1) + "] for axis " +
                    std::to_string(axis) + " of size " + std::to_string(dim));
}

// ---- Gather: out[a..., i..., b...] = data[a..., indices[i...], b...]

class GatherKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64, DType::kInt32}));
    const int64_t axis_attr = ctx.attrs().Int("axis", 0);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axis_attr, static_cast<int64_t>(data.size()), &axis_));

    Shape out(data.begin(), data.begin() + axis_);
    out.insert(out.end(), indices.begin(), indices.end());
    out.insert(out.end(), data.begin() + axis_ + 1, data.end());
    int64_t numel = 0;
    if (!ShapeNumel(out, &numel)) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "output shape " + ShapeToString(out) + " is too large");
    }
    outer_ = Product(data, 0, axis_);
    axis_dim_ = data[axis_];
    block_bytes_ =
        static_cast<size_t>(Product(data, axis_ + 1, data.size())) * DTypeSize(ctx.dtype(0));
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& indices = ctx.input(1);
    const int64_t count = indices.numel();
    // Check every index first so a bad one leaves no half-written output behind.
    for (int64_t j = 0; j < count; ++j) {
      const int64_t index = IndexAt(indices, j);
      if (index < -axis_dim_ || index >= axis_dim_) {
        return IndexOutOfRange(node_, index, axis_dim_, axis_);
      }
    }
    const uint8_t* data = ctx.input(0).ptr<uint8_t>();
    uint8_t* out = ctx.output(0).ptr<uint8_t>();
    for (int64_t o = 0; o < outer_; ++o) {
      const uint8_t* src = data + static_cast<size_t>(o * axis_dim_) * block_bytes_;
      for (int64_t j = 0; j < count; ++j) {
        int64_t index = IndexAt(indices, j);
        if (index < 0) index += axis_dim_;
        CopyBytes(out, src + static_cast<size_t>(index) * block_bytes_, block_bytes_);
        out += block_bytes_;
      }
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t outer_ = 0;
  int64_t axis_dim_ = 0;
  size_t block_bytes_ = 0;
  std::string node_;
};

// ---- GatherElements: out[i][j][k] = data[indices[i][j][k]][j][k] (axis 0), same rank.

class GatherElementsKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64, DType::kInt32}));
    const int64_t axis_attr = ctx.attrs().Int("axis", 0);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    const int64_t rank = static_cast<int64_t>(data.size());
    WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axis_attr, rank, &axis_));
    if (indices.size() != data.size()) {
      return ctx.Error(ErrorCode::kShapeMismatch, "indices of shape " + ShapeToString(indices) +
                                                      " must have the rank of data " +
                                                      ShapeToString(data));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis_ && indices[d] > data[d]) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "indices of shape " + ShapeToString(indices) + " exceed data of shape " +
                             ShapeToString(data) + " in dim " + std::to_string(d));
      }
    }
    data_strides_.assign(rank, 1);
    for (int64_t d = rank - 1; d > 0; --d) data_strides_[d - 1] = data_strides_[d] * data[d];
    index_dims_ = indices;
    counter_.assign(rank, 0);
    axis_dim_ = data[axis_];
    elem_size_ = DTypeSize(ctx.dtype(0));
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, ctx.dtype(0), indices);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const Tensor& indices = ctx.input(1);
    const int64_t count = indices.numel();
    for (int64_t j = 0; j < count; ++j) {
      const int64_t index = IndexAt(indices, j);
      if (index < -axis_dim_ || index >= axis_dim_) {
        return IndexOutOfRange(node_, index, axis_dim_, axis_);
      }
    }
    const uint8_t* data = ctx.input(0).ptr<uint8_t>();
    uint8_t* out = ctx.output(0).ptr<uint8_t>();
    const int64_t rank = static_cast<int64_t>(index_dims_.size());
    std::fill(counter_.begin(), counter_.end(), 0);
    int64_t base = 0;  // data offset of the current position, ignoring the axis coordinate
    const int64_t axis_stride = data_strides_[axis_];
    for (int64_t j = 0; j < count; ++j) {
      int64_t index = IndexAt(indices, j);
      if (index < 0) index += axis_dim_;
      const int64_t src = base + index * axis_stride;
      CopyBytes(out + j * elem_size_, data + src * elem_size_, elem_size_);
      // Odometer over the indices shape; the axis coordinate does not move `base`.
      for (int64_t d = rank - 1; d >= 0; --d) {
        const int64_t stride = d == axis_ ? 0 : data_strides_[d];
        if (++counter_[d] < index_dims_[d]) {
          base += stride;
          break;
        }
        base -= stride * (index_dims_[d] - 1);
        counter_[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  int64_t axis_dim_ = 0;
  size_t elem_size_ = 0;
  Shape index_dims_;
  std::vector<int64_t> data_strides_;
  std::vector<int64_t> counter_;
  std::string node_;
};

// ---- Slice

// Reads a 1-D int32/int64 plan-time parameter tensor.
Status ReadIntList(const PlanContext& ctx, int input, const char* name, std::vector<int64_t>* out) {
  const Tensor* t = ctx.constant(input);
  if (!t) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     std::string("Slice '") + name + "' must be known when the plan is made");
  }
  if (t->dtype != DType::kInt64 && t->dtype != DType::kInt32) {
    return ctx.Error(
        ErrorCode::kUnsupportedDtype,
        std::string("Slice '") + name + "' must be int32 or int64, got " + DTypeName(t->dtype));
  }
  if (t->rank() > 1) {
    return ctx.Error(
        ErrorCode::kMalformedModel,
        std::string("Slice '") + name + "' must be 1-D, got shape " + ShapeToString(t->shape));
  }
  out->clear();
  for (int64_t i = 0; i < t->numel(); ++i) out->push_back(IndexAt(*t, i));
  return Status::Ok();
}

class SliceKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    std::vector<int64_t> starts, ends, axes, steps;
    bool has_axes = false, has_steps = false;
    if (ctx.since_version() < 10) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
      if (!ctx.attrs().Has("starts") || !ctx.attrs().Has("ends")) {
        return ctx.Error(ErrorCode::kMalformedModel, "attributes 'starts' and 'ends' are required");
      }
      starts = ctx.attrs().Ints("starts");
      ends = ctx.attrs().Ints("ends");
      has_axes = ctx.attrs().Has("axes");
      axes = ctx.attrs().Ints("axes");
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 5));
      WEBNX_RETURN_IF_ERROR(ReadIntList(ctx, 1, "starts", &starts));
      WEBNX_RETURN_IF_ERROR(ReadIntList(ctx, 2, "ends", &ends));
      if ((has_axes = ctx.has_input(3))) WEBNX_RETURN_IF_ERROR(ReadIntList(ctx, 3, "axes", &axes));
      if ((has_steps = ctx.has_input(4))) {
        WEBNX_RETURN_IF_ERROR(ReadIntList(ctx, 4, "steps", &steps));
      }
    }

    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    const size_t n = starts.size();
    if (ends.size() != n || (has_axes && axes.size() != n) || (has_steps && steps.size() != n)) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "starts, ends, axes and steps must have the same length");
    }
    if (!has_axes) {
      if (static_cast<int64_t>(n) > rank) {
        return ctx.Error(ErrorCode::kMalformedModel, "more starts than input dims");
      }
      axes.resize(n);
      for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
    }
    if (!has_steps) steps.assign(n, 1);

    // Per input dim: first index, step and count of the slice (full dim by default).
    std::vector<int64_t> first(rank, 0), step(rank, 1);
    Shape out = in;
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < n; ++i) {
      int64_t axis = 0;
      WEBNX_RETURN_IF_ERROR(NormalizeDistinctAxis(ctx, axes[i], rank, &seen, &axis));
      if (steps[i] == 0) return ctx.Error(ErrorCode::kMalformedModel, "steps must not be 0");
      ClampRange(in[axis], starts[i], ends[i], steps[i], &first[axis], &out[axis]);
      step[axis] = std::max(steps[i], -std::numeric_limits<int64_t>::max());
    }

    // Byte strides of the input; dims that are copied whole from the inside out form one
    // contiguous block.
    const size_t elem = DTypeSize(ctx.dtype(0));
    std::vector<int64_t> in_stride(rank, static_cast<int64_t>(elem));
    for (int64_t d = rank - 1; d > 0; --d) in_stride[d - 1] = in_stride[d] * in[d];
    int64_t start = 0;
    for (int64_t d = 0; d < rank; ++d) start += first[d] * in_stride[d];
    int64_t inner = rank;  // dims [inner, rank) form the block
    size_t block = elem;
    while (inner > 0 && step[inner - 1] == 1 && out[inner - 1] == in[inner - 1]) {
      --inner;
      block *= static_cast<size_t>(in[inner]);
    }
    if (inner > 0 && step[inner - 1] == 1) {
      --inner;  // a partial dim with step 1 still reads contiguously
      block *= static_cast<size_t>(out[inner]);
    }
    std::vector<int64_t> dims, strides;
    for (int64_t d = 0; d < inner; ++d) {
      dims.push_back(out[d]);
      // A dim of one element never advances (and a huge step must not overflow here).
      strides.push_back(out[d] > 1 ? step[d] * in_stride[d] : 0);
    }
    int64_t numel = 0;
    if (!ShapeNumel(out, &numel) || numel == 0) block = 0;  // nothing to copy
    copy_.Init(start, dims, strides, block);
    // One block (the outer dims all 1: a range of channels of one image, say): the output is
    // that part of the input, a view, and nothing is copied.
    view_start_ = -1;
    if (block != 0 && std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == 1; }))
      view_start_ = start;
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  int OutputAliasesInput() const override { return view_start_ >= 0 ? 0 : -1; }

  Status Run(RunContext& ctx) override {
    if (view_start_ >= 0) {
      ctx.output(0).data = static_cast<uint8_t*>(ctx.input(0).data) + view_start_;
      return Status::Ok();
    }
    copy_.Run(ctx.input(0).ptr<uint8_t>(), ctx.output(0).ptr<uint8_t>());
    return Status::Ok();
  }

 private:
  // ONNX Slice clamping: negative start/end count from the end; for positive steps both clamp
  // to [0, dim], for negative steps start clamps to [0, dim-1] and end to [-1, dim-1].
  static void ClampRange(int64_t dim, int64_t start, int64_t end, int64_t step, int64_t* first,
                         int64_t* count) {
    if (dim == 0) {
      *first = *count = 0;
      return;
    }
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      *count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      // |step| without overflow for INT64_MIN: any step that large takes one element.
      const int64_t magnitude =
          step == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -step;
      *count = start > end ? (start - end - 1) / magnitude + 1 : 0;
    }
    *first = *count > 0 ? start : 0;
  }

  StridedCopy copy_;
  int64_t view_start_ = -1;  // the output's byte offset in the input when it is a view
};

}  // namespace

void RegisterGatherSliceKernels(OpRegistry& r) {
  r.Register("", "Gather", {{1, 11, 13}, Inputs(2), Outputs(1)}, MakeKernel<GatherKernel>);
  r.Register("", "GatherElements", {{11, 13}, Inputs(2), Outputs(1)},
             MakeKernel<GatherElementsKernel>);
  // 10 turned starts, ends, axes and steps into inputs.
  r.Register("", "Slice", {{{1}, Inputs(1), Outputs(1)}, {{10, 11, 13}, Inputs(3, 5), Outputs(1)}},
             MakeKernel<SliceKernel>);
}

}  // namespace webnx
