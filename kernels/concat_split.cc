// Concat and Split along one axis. Both see the tensor as [outer, axis * inner] rows and move
// whole contiguous row pieces with memcpy, for any dtype.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/registrations.h"

namespace webnx {
namespace {

// Resolves `axis` in [-rank, rank) into [0, rank). Negative axes are accepted at every version
// (older schemas only documented non-negative ones; exporters emit both).
Status NormalizeAxis(const PlanContext& ctx, int64_t axis, int64_t rank, int64_t* out) {
  const int64_t lo = -rank;
  if (axis < lo || axis >= rank) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "axis " + std::to_string(axis) + " is out of range [" + std::to_string(lo) +
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

class ConcatKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const int n = ctx.num_inputs();
    if (n < 1) return ctx.Error(ErrorCode::kMalformedModel, "needs at least one input");
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(n, n));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    if (!ctx.attrs().Has("axis")) {
      return ctx.Error(ErrorCode::kMalformedModel, "required attribute 'axis' is missing");
    }
    const int64_t axis_attr = ctx.attrs().Int("axis", 0);
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const Shape& first = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(first.size());
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axis_attr, rank, &axis));

    Shape out = first;
    out[axis] = 0;
    for (int i = 0; i < n; ++i) {
      const Shape& s = ctx.shape(i);
      if (ctx.dtype(i) != ctx.dtype(0)) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "input " + std::to_string(i) + " is " + DTypeName(ctx.dtype(i)) +
                             " but input 0 is " + DTypeName(ctx.dtype(0)));
      }
      ctx.AcceptDType(static_cast<int>(i));
      bool compatible = s.size() == first.size();
      for (int64_t d = 0; compatible && d < rank; ++d) compatible = d == axis || s[d] == first[d];
      if (!compatible) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "input " + std::to_string(i) + " of shape " + ShapeToString(s) +
                             " does not match input 0 of shape " + ShapeToString(first) +
                             " outside axis " + std::to_string(axis));
      }
      out[axis] += s[axis];
    }
    int64_t numel = 0;
    if (!ShapeNumel(out, &numel)) {
      return ctx.Error(ErrorCode::kOutOfMemory,
                       "output shape " + ShapeToString(out) + " is too large");
    }

    const size_t elem = DTypeSize(ctx.dtype(0));
    outer_ = Product(first, 0, axis);
    const int64_t inner = Product(first, axis + 1, first.size());
    piece_bytes_.assign(n, 0);
    for (int i = 0; i < n; ++i)
      piece_bytes_[i] = static_cast<size_t>(ctx.shape(i)[axis] * inner) * elem;
    row_bytes_ = static_cast<size_t>(out[axis] * inner) * elem;
    ctx.SetOutput(0, ctx.dtype(0), out);
    return Status::Ok();
  }

  // One row (only 1s before the axis): each input is one run of the output, which its producer
  // can write in place.
  std::vector<int64_t> InputPlacesInOutput() const override {
    if (outer_ != 1) return {};
    std::vector<int64_t> places;
    size_t offset = 0;
    for (size_t piece : piece_bytes_) {
      places.push_back(static_cast<int64_t>(offset));
      offset += piece;
    }
    return places;
  }

  Status Run(RunContext& ctx) override {
    uint8_t* out = ctx.output(0).ptr<uint8_t>();
    size_t offset = 0;
    for (size_t i = 0; i < piece_bytes_.size(); ++i) {
      const size_t piece = piece_bytes_[i];
      if (piece == 0) continue;
      const uint8_t* in = ctx.input(static_cast<int>(i)).ptr<uint8_t>();
      if (outer_ == 1 && in == out + offset) {  // written in place (InputPlacesInOutput)
        offset += piece;
        continue;
      }
      for (int64_t o = 0; o < outer_; ++o) {
        std::memcpy(out + o * row_bytes_ + offset, in + o * piece, piece);
      }
      offset += piece;
    }
    return Status::Ok();
  }

 private:
  int64_t outer_ = 0;
  size_t row_bytes_ = 0;
  std::vector<size_t> piece_bytes_;  // per input: bytes it adds to each output row
};

// Split-2/11: sizes in the 'split' attribute; 13: in the optional second input; 18: or equal
// parts from 'num_outputs' (the last part smaller when the dim does not divide).
class SplitKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const int version = ctx.since_version();
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, version >= 13 ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const int64_t axis_attr = ctx.attrs().Int("axis", 0);
    std::vector<int64_t> sizes;
    bool has_sizes = false;
    if (version < 13) {
      has_sizes = ctx.attrs().Has("split");
      sizes = ctx.attrs().Ints("split");
    }
    const bool has_num_outputs = version >= 18 && ctx.attrs().Has("num_outputs");
    const int64_t num_outputs = has_num_outputs ? ctx.attrs().Int("num_outputs", 0) : 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());

    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(NormalizeAxis(ctx, axis_attr, rank, &axis));
    const int outputs = ctx.num_outputs();
    if (outputs < 1) return ctx.Error(ErrorCode::kMalformedModel, "needs at least one output");

    if (version >= 13 && ctx.has_input(1)) {
      const Tensor* split = ctx.constant(1);
      if (!split) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "the 'split' input must be known when the plan is made");
      }
      if (split->dtype != DType::kInt64) {
        return ctx.Error(
            ErrorCode::kUnsupportedDtype,
            std::string("the 'split' input must be int64, got ") + DTypeName(split->dtype));
      }
      // An empty 'split' tensor is treated as absent.
      has_sizes = split->numel() > 0;
      sizes.clear();
      for (int64_t i = 0; i < split->numel(); ++i) sizes.push_back(split->IntAt(i));
    }
    if (has_sizes && has_num_outputs) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "give either 'split' or 'num_outputs', not both");
    }

    const int64_t dim = in[axis];
    if (has_sizes) {
      WEBNX_RETURN_IF_ERROR(CheckSizes(ctx, sizes, outputs, dim));
    } else if (has_num_outputs) {
      if (num_outputs != outputs) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "num_outputs is " + std::to_string(num_outputs) + " but the node has " +
                             std::to_string(outputs) + " outputs");
      }
      const int64_t chunk = (dim + outputs - 1) / outputs;
      sizes.assign(outputs, 0);
      for (int i = 0; i < outputs; ++i) {
        sizes[i] = std::min(chunk, std::max<int64_t>(0, dim - i * chunk));
      }
    } else {
      if (dim % outputs != 0) {
        return ctx.Error(ErrorCode::kShapeMismatch,
                         "dim " + std::to_string(dim) + " of axis " + std::to_string(axis) +
                             " cannot be split into " + std::to_string(outputs) + " equal parts");
      }
      sizes.assign(outputs, dim / outputs);
    }

    const size_t elem = DTypeSize(ctx.dtype(0));
    outer_ = Product(in, 0, axis);
    const int64_t inner = Product(in, axis + 1, in.size());
    row_bytes_ = static_cast<size_t>(dim * inner) * elem;
    piece_bytes_.assign(outputs, 0);
    for (int i = 0; i < outputs; ++i) {
      Shape out = in;
      out[axis] = sizes[i];
      piece_bytes_[i] = static_cast<size_t>(sizes[i] * inner) * elem;
      ctx.SetOutput(i, ctx.dtype(0), out);
    }
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    const uint8_t* in = ctx.input(0).ptr<uint8_t>();
    size_t offset = 0;
    for (size_t i = 0; i < piece_bytes_.size(); ++i) {
      const size_t piece = piece_bytes_[i];
      if (piece != 0 && ctx.has_output(static_cast<int>(i))) {
        uint8_t* out = ctx.output(static_cast<int>(i)).ptr<uint8_t>();
        for (int64_t o = 0; o < outer_; ++o) {
          std::memcpy(out + o * piece, in + o * row_bytes_ + offset, piece);
        }
      }
      offset += piece;
    }
    return Status::Ok();
  }

 private:
  static Status CheckSizes(const PlanContext& ctx, const std::vector<int64_t>& sizes, int outputs,
                           int64_t dim) {
    if (static_cast<int64_t>(sizes.size()) != outputs) {
      return ctx.Error(ErrorCode::kMalformedModel, "'split' has " + std::to_string(sizes.size()) +
                                                       " sizes but the node has " +
                                                       std::to_string(outputs) + " outputs");
    }
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0 || s > dim) {
        return ctx.Error(ErrorCode::kMalformedModel, "split size " + std::to_string(s) +
                                                         " is out of range for a dim of " +
                                                         std::to_string(dim));
      }
      total += s;
    }
    if (total != dim) {
      return ctx.Error(ErrorCode::kShapeMismatch, "split sizes add up to " + std::to_string(total) +
                                                      " but the split dim is " +
                                                      std::to_string(dim));
    }
    return Status::Ok();
  }

  int64_t outer_ = 0;
  size_t row_bytes_ = 0;
  std::vector<size_t> piece_bytes_;  // per output: bytes it takes from each input row
};

}  // namespace

void RegisterConcatSplitKernels(OpRegistry& r) {
  r.Register("", "Concat", {{4, 11, 13}, Inputs::AtLeast(1), Outputs(1)}, MakeKernel<ConcatKernel>);
  // 13 turned split into an optional input.
  r.Register(
      "", "Split",
      {{{2, 11}, Inputs(1), Outputs::AtLeast(1)}, {{13, 18}, Inputs(1, 2), Outputs::AtLeast(1)}},
      MakeKernel<SplitKernel>);
}

}  // namespace webnx
