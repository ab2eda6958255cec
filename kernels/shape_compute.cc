// Ops computed from shapes and plan-time inputs alone, never from tensor data: Shape and Size
// (the input's shape), ConstantOfShape and Range (from inputs that must be known when the plan
// is made).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/registrations.h"
#include "kernels/shape_common.h"

namespace webnx {
namespace {

// Base of the ops that read only their input's shape, never its data.
class ShapeOnlyKernel : public Kernel {
 public:
  bool ReadsOnlyInputShapes() const override { return true; }
};

// ---- Shape (15+: a [start, end) slice of the dims) and Size: known from shapes alone.

class ShapeKernel final : public ShapeOnlyKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const Shape& in = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(in.size());
    int64_t start = 0, end = rank;
    if (ctx.since_version() >= 15) {
      start = ctx.attrs().Int("start", 0);
      end = ctx.attrs().Int("end", rank);
      WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
      // Negative values count from the back; both clamp to [0, rank].
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, 0, rank);
    }
    dims_.assign(in.begin() + start, in.begin() + std::max(start, end));
    ctx.SetOutput(0, DType::kInt64, {static_cast<int64_t>(dims_.size())});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    int64_t* out = ctx.output(0).ptr<int64_t>();
    for (size_t i = 0; i < dims_.size(); ++i) out[i] = dims_[i];
    return Status::Ok();
  }

 private:
  std::vector<int64_t> dims_;
};

class SizeKernel final : public ShapeOnlyKernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    if (!ShapeNumel(ctx.shape(0), &numel_)) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input shape " + ShapeToString(ctx.shape(0)) + " has too many elements");
    }
    ctx.SetOutput(0, DType::kInt64, {});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    ctx.output(0).ptr<int64_t>()[0] = numel_;
    return Status::Ok();
  }

 private:
  int64_t numel_ = 0;
};

// ---- ConstantOfShape: a tensor of the given shape filled with the one-element 'value'.

class ConstantOfShapeKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    std::vector<int64_t> shape;
    WEBNX_RETURN_IF_ERROR(shape_ops::ReadConstantInts(ctx, 0, "ConstantOfShape shape", &shape));
    WEBNX_RETURN_IF_ERROR(shape_ops::ExpectNonNegativeDims(ctx, shape, "shape"));
    WEBNX_RETURN_IF_ERROR(shape_ops::CheckOutputSize(ctx, shape));
    const Tensor* value = ctx.attrs().TensorAttr("value");
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    dtype_ = DType::kFloat32;
    std::memset(value_, 0, sizeof(value_));
    if (value) {
      if (DTypeSize(value->dtype) == 0) {
        return ctx.Error(ErrorCode::kUnsupportedDtype, "'value' has an unsupported dtype");
      }
      if (value->numel() != 1) {
        return ctx.Error(ErrorCode::kMalformedModel, "'value' must hold exactly one element");
      }
      dtype_ = value->dtype;
      std::memcpy(value_, value->data, DTypeSize(dtype_));
    }
    ctx.SetOutput(0, dtype_, shape);
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    shape_ops::CopyRun(y.ptr<uint8_t>(), value_, y.numel(), DTypeSize(dtype_), false);
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kFloat32;
  uint8_t value_[8];
};

// ---- Range(start, limit, delta): start + i * delta for i < max(ceil((limit-start)/delta), 0).

class RangeKernel final : public Kernel {
 public:
  // start, limit and delta decide the output length.
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {0, 1, 2};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(0, {DType::kFloat32, DType::kInt32, DType::kInt64}));
    dtype_ = ctx.dtype(0);
    for (int i = 0; i < 3; ++i) {
      const char* names[] = {"start", "limit", "delta"};
      if (ctx.dtype(i) != dtype_) {
        return ctx.Error(ErrorCode::kMalformedModel, std::string(names[i]) + " is " +
                                                         DTypeName(ctx.dtype(i)) +
                                                         " but start is " + DTypeName(dtype_));
      }
      const Tensor* t = ctx.constant(i);
      if (!t) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         std::string("Range ") + names[i] + " must be known when the plan is made");
      }
      if (t->numel() != 1) {
        return ctx.Error(ErrorCode::kMalformedModel, std::string(names[i]) + " must be a scalar");
      }
    }
    int64_t count = 0;
    if (dtype_ == DType::kFloat32) {
      const double start = ctx.constant(0)->ptr<float>()[0];
      const double limit = ctx.constant(1)->ptr<float>()[0];
      const double delta = ctx.constant(2)->ptr<float>()[0];
      if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "Range needs a finite start and limit and a non-zero delta");
      }
      const double n = std::ceil((limit - start) / delta);
      if (n > static_cast<double>(shape_ops::kMaxOutputElements)) {
        return ctx.Error(ErrorCode::kOutOfMemory, "Range output is too large");
      }
      count = n > 0 ? static_cast<int64_t>(n) : 0;
    } else {
      const __int128 start = ctx.constant(0)->IntAt(0);
      const __int128 limit = ctx.constant(1)->IntAt(0);
      const __int128 delta = ctx.constant(2)->IntAt(0);
      if (delta == 0) return ctx.Error(ErrorCode::kMalformedModel, "Range delta must not be 0");
      const __int128 span = limit - start;
      // ceil(span / delta) for either sign of delta.
      __int128 n = span / delta;
      if (n * delta != span && ((span > 0) == (delta > 0))) ++n;
      if (n > shape_ops::kMaxOutputElements)
        return ctx.Error(ErrorCode::kOutOfMemory, "Range output is too large");
      count = n > 0 ? static_cast<int64_t>(n) : 0;
    }
    ctx.SetOutput(0, dtype_, {count});
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    const int64_t n = y.numel();
    switch (dtype_) {
      case DType::kFloat32: {
        const float start = ctx.input(0).ptr<float>()[0];
        const float delta = ctx.input(2).ptr<float>()[0];
        float* out = y.ptr<float>();
        for (int64_t i = 0; i < n; ++i) out[i] = start + static_cast<float>(i) * delta;
        break;
      }
      case DType::kInt32:
        Fill<int32_t>(ctx, y.ptr<int32_t>(), n);
        break;
      case DType::kInt64:
        Fill<int64_t>(ctx, y.ptr<int64_t>(), n);
        break;
      default:
        break;
    }
    return Status::Ok();
  }

 private:
  template <typename T>
  static void Fill(RunContext& ctx, T* out, int64_t n) {
    const int64_t start = ctx.input(0).IntAt(0);
    const int64_t delta = ctx.input(2).IntAt(0);
    // Values stay within [start, limit), so they fit T; the products are formed in unsigned
    // arithmetic so no intermediate overflows.
    for (int64_t i = 0; i < n; ++i) {
      out[i] = static_cast<T>(static_cast<uint64_t>(start) +
                              static_cast<uint64_t>(i) * static_cast<uint64_t>(delta));
    }
  }

  DType dtype_ = DType::kUndefined;
};

}  // namespace

void RegisterShapeComputeKernels(OpRegistry& r) {
  r.Register("", "Shape", {{1, 13, 15}, Inputs(1), Outputs(1)}, MakeKernel<ShapeKernel>);
  r.Register("", "Size", {{1, 13}, Inputs(1), Outputs(1)}, MakeKernel<SizeKernel>);
  r.Register("", "ConstantOfShape", {{9, 20}, Inputs(1), Outputs(1)},
             MakeKernel<ConstantOfShapeKernel>);
  r.Register("", "Range", {{11}, Inputs(3), Outputs(1)}, MakeKernel<RangeKernel>);
}

}  // namespace webnx
