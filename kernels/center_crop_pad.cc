// CenterCropPad (18): each listed axis cropped or zero-padded to its target length, centered;
// an odd difference puts the extra element on the right (the crop window starts rounded down).
// The target shape sets the output shape, so it must be known when planned. The input box that
// survives goes to its place in the output a row of bytes at a time, for every dtype alike.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class CenterCropPadKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt32, DType::kInt64}));
    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    std::vector<int64_t> axes = ctx.attrs().Ints("axes");
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    if (!ctx.attrs().Has("axes")) {
      for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    const Tensor* target = ctx.constant(1);
    if (!target) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'shape' must be known when the plan is made");
    }
    if (target->rank() != 1 || target->numel() != static_cast<int64_t>(axes.size())) {
      return ctx.Error(ErrorCode::kShapeMismatch, "input 'shape' " + ShapeToString(target->shape) +
                                                      " must hold one length per axis (" +
                                                      std::to_string(axes.size()) + ")");
    }
    Shape out = x;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t axis = 0;
      WEBNX_RETURN_IF_ERROR(indexing::NormalizeDistinctAxis(ctx, axes[i], rank, &seen, &axis));
      out[axis] = indexing::IndexAt(*target, static_cast<int64_t>(i));
      if (out[axis] < 0) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "target length " + std::to_string(out[axis]) + " is negative");
      }
    }
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, ctx.dtype(0), out);
    PlanCopy(x, out, DTypeSize(ctx.dtype(0)));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    if (padded_) std::memset(y.data, 0, y.nbytes());
    uint8_t* out = static_cast<uint8_t*>(y.data);
    const uint8_t* in = static_cast<const uint8_t*>(ctx.input(0).data);
    // The kept box, a row of its innermost dim at a time; an odometer walks the outer dims.
    const int64_t rank = static_cast<int64_t>(box_.size());
    if (rows_ == 0 || row_bytes_ == 0) return Status::Ok();
    std::fill(counter_.begin(), counter_.end(), 0);
    int64_t in_at = in_start_, out_at = out_start_;
    for (int64_t r = 0; r < rows_; ++r) {
      std::memcpy(out + out_at, in + in_at, row_bytes_);
      for (int64_t d = rank - 2; d >= 0; --d) {
        if (++counter_[d] < box_[d]) {
          in_at += in_strides_[d];
          out_at += out_strides_[d];
          break;
        }
        in_at -= in_strides_[d] * (box_[d] - 1);
        out_at -= out_strides_[d] * (box_[d] - 1);
        counter_[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  // Per axis: the kept length is the shorter one; a crop starts reading (in - out) / 2 in, a pad
  // starts writing (out - in) / 2 in.
  void PlanCopy(const Shape& x, const Shape& out, size_t elem) {
    const size_t rank = x.size();
    box_.assign(rank, 0);
    in_strides_.assign(rank, 0);
    out_strides_.assign(rank, 0);
    counter_.assign(rank, 0);
    padded_ = false;
    in_start_ = out_start_ = 0;
    int64_t x_numel = 0, out_numel = 0;
    // An empty side copies nothing, and its other dims may be huge (the strides would overflow).
    if (!ShapeNumel(x, &x_numel) || !ShapeNumel(out, &out_numel) || x_numel == 0 ||
        out_numel == 0) {
      padded_ = out_numel > 0;
      row_bytes_ = 0;
      rows_ = 0;
      return;
    }
    int64_t in_stride = static_cast<int64_t>(elem), out_stride = in_stride;
    for (size_t d = rank; d-- > 0;) {
      box_[d] = std::min(x[d], out[d]);
      padded_ = padded_ || out[d] > x[d];
      in_strides_[d] = in_stride;
      out_strides_[d] = out_stride;
      in_start_ += (x[d] > out[d] ? (x[d] - out[d]) / 2 : 0) * in_stride;
      out_start_ += (out[d] > x[d] ? (out[d] - x[d]) / 2 : 0) * out_stride;
      in_stride *= x[d];
      out_stride *= out[d];
    }
    // The innermost dim is one contiguous row; rank 0 copies its one element.
    row_bytes_ = static_cast<size_t>(rank == 0 ? elem : box_[rank - 1] * elem);
    rows_ = rank == 0 ? 1 : nn::DimProduct(box_, 0, rank - 1);
    if (rank > 0 && box_[rank - 1] == 0) rows_ = 0;
  }

  std::vector<int64_t> box_, in_strides_, out_strides_, counter_;
  int64_t in_start_ = 0, out_start_ = 0, rows_ = 0;
  size_t row_bytes_ = 0;
  bool padded_ = false;
};

}  // namespace

void RegisterCenterCropPadKernels(OpRegistry& r) {
  r.Register("", "CenterCropPad", {{18}, Inputs(2), Outputs(1)}, MakeKernel<CenterCropPadKernel>);
}

}  // namespace webnx
