// Indexing ops: Gather, GatherElements, Slice and Pad. Indices read at run time are checked
// before use (an out-of-range index is InvalidInput, never an out-of-bounds read); Slice and Pad
// parameters must be known when the plan is made, because they decide the output shape.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "kernels/registrations.h"

namespace webnx {
namespace {

Status ExpectAnyDType(const PlanContext& ctx, int i) {
  return ctx.ExpectDType(i, {DType::kFloat32, DType::kInt32, DType::kInt64, DType::kBool});
}

// Resolves `axis` in [-rank, rank) into [0, rank). Negative axes are accepted at every version
// (older schemas only documented non-negative ones; exporters emit both).
Status NormalizeAxis(const PlanContext& ctx, int64_t axis, int64_t rank, int64_t* out) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "axis " + std::to_string(axis) + " is out of range [" + std::to_string(-rank) +
                         ", " + std::to_string(rank - 1) + "] for an input of rank " +
                         std::to_string(rank));
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::Ok();
}

int64_t Product(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= shape[i];
  return p;
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
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
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
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
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

// ---- Strided block copy shared by Slice: out walks `dims`, reading at `start` + sum of
// coordinate * stride (bytes), copying `block` contiguous bytes per step.

class StridedCopy {
 public:
  // dims/strides per remaining dim (outermost first), block: contiguous bytes per step.
  void Init(int64_t start, std::vector<int64_t> dims, std::vector<int64_t> strides, size_t block) {
    start_ = start;
    dims_ = std::move(dims);
    strides_ = std::move(strides);
    block_ = block;
    counter_.assign(dims_.size(), 0);
    steps_ = 1;
    for (int64_t d : dims_) steps_ *= d;
  }

  void Run(const uint8_t* in, uint8_t* out) {
    if (block_ == 0) return;
    std::fill(counter_.begin(), counter_.end(), 0);
    const int64_t rank = static_cast<int64_t>(dims_.size());
    int64_t offset = start_;
    for (int64_t s = 0; s < steps_; ++s) {
      CopyBytes(out, in + offset, block_);
      out += block_;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++counter_[d] < dims_[d]) {
          offset += strides_[d];
          break;
        }
        offset -= strides_[d] * (dims_[d] - 1);
        counter_[d] = 0;
      }
    }
  }

 private:
  int64_t start_ = 0;
  int64_t steps_ = 0;
  size_t block_ = 0;
  std::vector<int64_t> dims_, strides_, counter_;
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
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
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
      WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axes[i], rank, &axis));
      if (seen[axis]) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "axis " + std::to_string(axes[i]) + " repeats");
      }
      seen[axis] = true;
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
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
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
};

// ---- Pad: constant, reflect, edge (and wrap from 19) modes; negative pads crop.

class PadKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const int version = ctx.since_version();
    WEBNX_RETURN_IF_ERROR(ExpectAnyDType(ctx, 0));
    const std::string mode = ctx.attrs().String("mode", "constant");
    std::vector<int64_t> pads, axes;
    bool has_axes = false;
    constant_from_input_ = false;
    attr_value_ = 0;
    if (version < 11) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));  // Pad-2 is float only
      if (!ctx.attrs().Has("pads")) {
        return ctx.Error(ErrorCode::kMalformedModel, "attribute 'pads' is required");
      }
      pads = ctx.attrs().Ints("pads");
      attr_value_ = ctx.attrs().Float("value", 0.f);
    } else {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, version >= 18 ? 4 : 3));
      WEBNX_RETURN_IF_ERROR(ReadPlanInts(ctx, 1, "pads", &pads));
      if (ctx.has_input(2)) {
        if (ctx.dtype(2) != ctx.dtype(0)) {
          return ctx.Error(ErrorCode::kMalformedModel, "constant_value must have the input dtype");
        }
        int64_t numel = 0;
        if (!ShapeNumel(ctx.shape(2), &numel) || numel != 1) {
          return ctx.Error(ErrorCode::kMalformedModel, "constant_value must be a scalar");
        }
        constant_from_input_ = true;
      }
      if ((has_axes = ctx.has_input(3))) WEBNX_RETURN_IF_ERROR(ReadPlanInts(ctx, 3, "axes", &axes));
    }
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());

    if (mode == "constant") {
      mode_ = Mode::kConstant;
    } else if (mode == "reflect") {
      mode_ = Mode::kReflect;
    } else if (mode == "edge") {
      mode_ = Mode::kEdge;
    } else if (mode == "wrap" && version >= 19) {
      mode_ = Mode::kWrap;
    } else {
      return ctx.Error(ErrorCode::kMalformedModel, "unknown mode '" + mode + "'");
    }

    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    if (!has_axes) {
      axes.resize(rank);
      for (int64_t d = 0; d < rank; ++d) axes[d] = d;
    }
    const size_t n = axes.size();
    if (pads.size() != 2 * n) {
      return ctx.Error(
          ErrorCode::kMalformedModel,
          "pads has " + std::to_string(pads.size()) + " values, expected " + std::to_string(2 * n));
    }
    std::vector<int64_t> before(rank, 0), after(rank, 0);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < n; ++i) {
      int64_t axis = 0;
      WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axes[i], rank, &axis));
      if (seen[axis]) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "axis " + std::to_string(axes[i]) + " repeats");
      }
      seen[axis] = true;
      before[axis] = pads[i];
      after[axis] = pads[i + n];
    }
    return PlanIndexMaps(ctx, in, before, after);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    if (y.numel() == 0) return Status::Ok();
    switch (dtype_) {
      case DType::kFloat32:
        return Fill<float>(ctx, x, y);
      case DType::kInt32:
        return Fill<int32_t>(ctx, x, y);
      case DType::kInt64:
        return Fill<int64_t>(ctx, x, y);
      case DType::kBool:
        return Fill<bool>(ctx, x, y);
      case DType::kUndefined:
        break;
    }
    return Status(ErrorCode::kInternal, "Pad: undefined dtype");
  }

 private:
  enum class Mode { kConstant, kReflect, kEdge, kWrap };

  static Status ReadPlanInts(const PlanContext& ctx, int input, const char* name,
                             std::vector<int64_t>* out) {
    const Tensor* t = ctx.constant(input);
    if (!t) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       std::string("Pad '") + name + "' must be known when the plan is made");
    }
    if (t->dtype != DType::kInt64 && t->dtype != DType::kInt32) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       std::string("Pad '") + name + "' must be int64, got " + DTypeName(t->dtype));
    }
    out->clear();
    for (int64_t i = 0; i < t->numel(); ++i) out->push_back(IndexAt(*t, i));
    return Status::Ok();
  }

  // Maps output coordinate c of dim d to an input coordinate, or -1 for the constant value.
  int64_t SourceIndex(int64_t c, int64_t before, int64_t dim) const {
    int64_t i = c - before;
    if (i >= 0 && i < dim) return i;
    switch (mode_) {
      case Mode::kConstant:
        return -1;
      case Mode::kEdge:
        return i < 0 ? 0 : dim - 1;
      case Mode::kReflect: {
        if (dim == 1) return 0;
        const int64_t period = 2 * (dim - 1);
        int64_t m = i % period;
        if (m < 0) m += period;
        return m < dim ? m : period - m;
      }
      case Mode::kWrap: {
        int64_t m = i % dim;
        return m < 0 ? m + dim : m;
      }
    }
    return -1;
  }

  Status PlanIndexMaps(PlanContext& ctx, const Shape& in, const std::vector<int64_t>& before,
                       const std::vector<int64_t>& after) {
    const int64_t rank = static_cast<int64_t>(in.size());
    Shape out(rank);
    // No dim exceeds 2^32 (SessionLimits' ceiling), so pads beyond +-2^32 cannot give a valid
    // output; rejecting them first keeps the sum below and SourceIndex's c - before in range.
    constexpr int64_t kMaxPad = int64_t{1} << 32;
    for (int64_t d = 0; d < rank; ++d) {
      if (std::max(before[d], after[d]) > kMaxPad) {
        return ctx.Error(ErrorCode::kOutOfMemory,
                         "pads of dim " + std::to_string(d) + " (" + std::to_string(before[d]) +
                             ", " + std::to_string(after[d]) + ") make the output too large");
      }
      if (std::min(before[d], after[d]) < -kMaxPad) {
        return ctx.Error(ErrorCode::kShapeMismatch, "pads crop dim " + std::to_string(d) +
                                                        " of size " + std::to_string(in[d]) +
                                                        " below zero");
      }
      out[d] = in[d] + before[d] + after[d];
      if (out[d] < 0) {
        return ctx.Error(ErrorCode::kShapeMismatch, "pads crop dim " + std::to_string(d) +
                                                        " of size " + std::to_string(in[d]) +
                                                        " below zero");
      }
      if (mode_ != Mode::kConstant && in[d] == 0 && out[d] > 0) {
        return ctx.Error(ErrorCode::kShapeMismatch, "cannot pad an empty dim " + std::to_string(d) +
                                                        " in a non-constant mode");
      }
    }
    int64_t numel = 0;
    if (!ShapeNumel(out, &numel) || numel > (int64_t{1} << 32)) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "output shape " + ShapeToString(out) + " is too large");
    }
    // One map per dim, concatenated; offsets_[d] is where dim d's map starts.
    maps_.clear();
    map_offsets_.assign(rank, 0);
    for (int64_t d = 0; d < rank; ++d) {
      map_offsets_[d] = static_cast<int64_t>(maps_.size());
      for (int64_t c = 0; c < out[d]; ++c) maps_.push_back(SourceIndex(c, before[d], in[d]));
    }
    in_strides_.assign(rank, 1);
    for (int64_t d = rank - 1; d > 0; --d) in_strides_[d - 1] = in_strides_[d] * in[d];
    out_dims_ = out;
    counter_.assign(rank, 0);
    dtype_ = ctx.dtype(0);
    ctx.SetOutput(0, dtype_, out);
    return Status::Ok();
  }

  template <typename T>
  Status Fill(RunContext& ctx, const Tensor& x, Tensor& y) {
    T value = static_cast<T>(attr_value_);
    if (constant_from_input_ && ctx.has_input(2)) value = ctx.input(2).ptr<T>()[0];
    const T* in = x.ptr<T>();
    T* out = y.ptr<T>();
    const int64_t rank = static_cast<int64_t>(out_dims_.size());
    if (rank == 0) {
      out[0] = in[0];
      return Status::Ok();
    }
    const int64_t inner = out_dims_[rank - 1];
    const int64_t* inner_map = maps_.data() + map_offsets_[rank - 1];
    const int64_t total = y.numel();
    std::fill(counter_.begin(), counter_.end(), 0);
    for (int64_t o = 0; o < total; o += inner) {
      // Input offset of this row, or a constant row when an outer coordinate maps outside.
      int64_t base = 0;
      bool constant_row = false;
      for (int64_t d = 0; d + 1 < rank; ++d) {
        const int64_t src = maps_[map_offsets_[d] + counter_[d]];
        if (src < 0) constant_row = true;
        base += src * in_strides_[d];
      }
      T* row = out + o;
      if (constant_row) {
        for (int64_t i = 0; i < inner; ++i) row[i] = value;
      } else {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t src = inner_map[i];
          row[i] = src < 0 ? value : in[base + src];
        }
      }
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++counter_[d] < out_dims_[d]) break;
        counter_[d] = 0;
      }
    }
    return Status::Ok();
  }

  Mode mode_ = Mode::kConstant;
  DType dtype_ = DType::kUndefined;
  bool constant_from_input_ = false;
  float attr_value_ = 0;
  std::vector<int64_t> maps_;
  std::vector<int64_t> map_offsets_;
  std::vector<int64_t> in_strides_;
  Shape out_dims_;
  std::vector<int64_t> counter_;
};

}  // namespace

void RegisterGatherSliceKernels(OpRegistry& r) {
  r.Register("", "Gather", {{1, 11, 13}, Inputs(2), Outputs(1)}, MakeKernel<GatherKernel>);
  r.Register("", "GatherElements", {{11, 13}, Inputs(2), Outputs(1)},
             MakeKernel<GatherElementsKernel>);
  // 10 turned starts, ends, axes and steps into inputs.
  r.Register("", "Slice", {{{1}, Inputs(1), Outputs(1)}, {{10, 11, 13}, Inputs(3, 5), Outputs(1)}},
             MakeKernel<SliceKernel>);
  // 11 turned pads and the constant value into inputs; 18 added axes.
  r.Register("", "Pad",
             {{{2}, Inputs(1), Outputs(1)},
              {{11, 13}, Inputs(2, 3), Outputs(1)},
              {{18, 19}, Inputs(2, 4), Outputs(1)}},
             MakeKernel<PadKernel>);
}

}  // namespace webnx
