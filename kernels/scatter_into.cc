// Ops that write their input's values into a copy or a zeroed tensor at positions an index
// input gives: TensorScatter (24: a KV cache's update written at each batch item's position
// along `axis`, linearly or circularly) and MaxUnpool (9, 11, 22: values back at the flat
// positions MaxPool's indices recorded).
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class TensorScatterKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    if (ctx.dtype(1) != ctx.dtype(0))
      return ctx.Error(ErrorCode::kMalformedModel, "past_cache and update differ in dtype");
    ctx.AcceptDType(1);  // as input 0's is, or not
    if (ctx.has_input(2)) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {DType::kInt64}));
    Attrs& attrs = ctx.attrs();
    const int64_t axis_attr = attrs.Int("axis", -2);
    const std::string mode = attrs.String("mode", "linear");
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (mode != "linear" && mode != "circular")
      return ctx.Error(ErrorCode::kMalformedModel, "unknown mode '" + mode + "'");
    circular_ = mode == "circular";
    const Shape& cache = ctx.shape(0);
    const Shape& update = ctx.shape(1);
    const int64_t rank = static_cast<int64_t>(cache.size());
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, axis_attr, rank, &axis));
    bool fits = axis > 0 && update.size() == cache.size();
    for (int64_t d = 0; fits && d < rank; ++d)
      fits = d == axis ? update[d] <= cache[d] : update[d] == cache[d];
    if (!fits) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "update " + ShapeToString(update) + " does not fit past_cache " +
                           ShapeToString(cache) + " along axis " + std::to_string(axis) +
                           " (the batch axis 0 cannot be the one)");
    }
    if (ctx.has_input(2) && ctx.shape(2) != Shape{cache[0]})
      return ctx.Error(ErrorCode::kShapeMismatch, "write_indices must have shape [batch]");
    batch_ = cache[0];
    outer_ = nn::DimProduct(cache, 1, axis);
    length_ = cache[axis];
    rows_ = update[axis];
    row_bytes_ = DTypeSize(ctx.dtype(0)) * nn::DimProduct(cache, axis + 1, cache.size());
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, ctx.dtype(0), cache);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& out = ctx.output(0);
    if (out.data != ctx.input(0).data) std::memcpy(out.data, ctx.input(0).data, out.nbytes());
    const uint8_t* update = static_cast<const uint8_t*>(ctx.input(1).data);
    for (int64_t b = 0; b < batch_; ++b) {
      const int64_t start = ctx.has_input(2) ? ctx.input(2).ptr<int64_t>()[b] : 0;
      if (start < 0 || start >= length_ || (!circular_ && start + rows_ > length_)) {
        return Status(ErrorCode::kInvalidInput,
                      node_ + ": write_indices[" + std::to_string(b) +
                          "] = " + std::to_string(start) + " does not fit " +
                          std::to_string(rows_) + " rows in a cache of " + std::to_string(length_));
      }
      for (int64_t o = 0; o < outer_; ++o)
        for (int64_t r = 0; r < rows_; ++r) {
          const int64_t at = (start + r) % length_;
          std::memcpy(out.ptr<uint8_t>() + ((b * outer_ + o) * length_ + at) * row_bytes_,
                      update + ((b * outer_ + o) * rows_ + r) * row_bytes_, row_bytes_);
        }
    }
    return Status::Ok();
  }

 private:
  bool circular_ = false;
  int64_t batch_ = 0, outer_ = 1, length_ = 0, rows_ = 0;
  size_t row_bytes_ = 0;
  std::string node_;
};

class MaxUnpoolKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext&, std::vector<int>* inputs) const override {
    *inputs = {2};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(2, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    const Shape& x = ctx.shape(0);
    if (x.size() < 3 || ctx.shape(1) != x)
      return ctx.Error(ErrorCode::kShapeMismatch, "X must be [N, C, d...] and I of X's shape");
    const size_t rank = x.size() - 2;
    nn::WindowOptions options;
    options.allow_dilations = false;
    nn::WindowAttrs window;
    WEBNX_RETURN_IF_ERROR(nn::ReadWindowAttrs(ctx, rank, options, &window));
    Shape out = {x[0], x[1]};
    for (size_t d = 0; d < rank; ++d)
      out.push_back((x[2 + d] - 1) * window.strides[d] + window.kernel[d] - window.pads[d] -
                    window.pads[d + rank]);
    inferred_ = out;
    if (ctx.has_input(2)) {
      const Tensor* shape = ctx.constant(2);
      if (!shape || shape->numel() != static_cast<int64_t>(x.size()))
        return ctx.Error(ErrorCode::kMalformedModel,
                         "output_shape must hold one value per dim and be known when planned");
      out.assign(shape->ptr<int64_t>(), shape->ptr<int64_t>() + shape->numel());
    }
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "the output"));
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, DType::kFloat32, out);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    std::memset(y.data, 0, y.nbytes());
    int64_t inferred_size = 1;
    for (int64_t d : inferred_) inferred_size *= d;
    const float* x = ctx.input(0).ptr<float>();
    const int64_t* at = ctx.input(1).ptr<int64_t>();
    for (int64_t i = 0; i < ctx.input(0).numel(); ++i) {
      const int64_t to = at[i] >= 0 && at[i] < inferred_size ? Place(at[i], y.shape) : -1;
      if (to < 0) {
        return Status(ErrorCode::kInvalidInput,
                      node_ + ": index " + std::to_string(at[i]) + " is outside the unpooled " +
                          ShapeToString(inferred_) + " or the output " + ShapeToString(y.shape));
      }
      y.ptr<float>()[to] = x[i];
    }
    return Status::Ok();
  }

 private:
  // MaxPool's flat index into the shape unpooling infers, placed in the output's (a larger
  // output_shape keeps each value at its coordinates); -1 outside the output.
  int64_t Place(int64_t index, const Shape& out) const {
    if (out == inferred_) return index;
    int64_t flat = 0, stride = 1;
    for (size_t d = inferred_.size(); d-- > 0;) {
      const int64_t coord = index % inferred_[d];
      index /= inferred_[d];
      if (coord >= out[d]) return -1;
      flat += coord * stride;
      stride *= out[d];
    }
    return flat;
  }

  Shape inferred_;  // the output shape from the window attributes
  std::string node_;
};

}  // namespace

void RegisterScatterIntoKernels(OpRegistry& r) {
  r.Register("", "TensorScatter", {{24}, Inputs(2, 3), Outputs(1)},
             MakeKernel<TensorScatterKernel>);
  r.Register("", "MaxUnpool", {{9, 11, 22}, Inputs(2, 3), Outputs(1)}, MakeKernel<MaxUnpoolKernel>);
}

}  // namespace webnx
