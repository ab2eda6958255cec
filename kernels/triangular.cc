// Trilu (the upper or lower triangle of the last two dims, from diagonal k) and EyeLike (ones
// on diagonal k of a 2-D tensor): masks over matrix positions.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// In row i of a matrix with `cols` columns, the columns [begin, end) a diagonal offset keeps:
// upper keeps j >= i + k, lower keeps j <= i + k.
void KeptColumns(int64_t i, int64_t k, int64_t cols, bool upper, int64_t* begin, int64_t* end) {
  const int64_t diagonal = std::clamp<int64_t>(i + k, -1, cols);
  *begin = upper ? std::max<int64_t>(diagonal, 0) : 0;
  *end = upper ? cols : std::min<int64_t>(diagonal + 1, cols);
}

class TriluKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const Shape& x = ctx.shape(0);
    if (x.size() < 2) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "the input must have rank >= 2, got " + ShapeToString(x));
    }
    k_ = 0;
    if (ctx.has_input(1)) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
      const Tensor* k = ctx.constant(1);
      if (!k) return ctx.Error(ErrorCode::kMalformedModel, "input 'k' must be known when planned");
      if (k->numel() != 1)
        return ctx.Error(ErrorCode::kMalformedModel, "input 'k' must be a scalar");
      k_ = k->ptr<int64_t>()[0];
    }
    upper_ = ctx.attrs().Int("upper", 1) != 0;
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    rows_ = x[x.size() - 2];
    cols_ = x[x.size() - 1];
    k_ = std::clamp(k_, -rows_ - 1, cols_ + 1);  // the same mask, with no overflow below
    matrices_ = nn::DimProduct(x, 0, x.size() - 2);
    elem_ = DTypeSize(ctx.dtype(0));
    ctx.SetOutput(0, ctx.dtype(0), x);
    return Status::Ok();
  }

  // Each row: zeros, the kept run copied, zeros (bytes: every dtype is the same copy).
  Status Run(RunContext& ctx) override {
    const auto* x = static_cast<const uint8_t*>(ctx.input(0).data);
    auto* y = static_cast<uint8_t*>(ctx.output(0).data);
    const size_t row_bytes = static_cast<size_t>(cols_) * elem_;
    for (int64_t m = 0; m < matrices_; ++m) {
      for (int64_t i = 0; i < rows_; ++i) {
        const size_t offset = static_cast<size_t>(m * rows_ + i) * row_bytes;
        int64_t begin = 0, end = 0;
        KeptColumns(i, k_, cols_, upper_, &begin, &end);
        std::memset(y + offset, 0, row_bytes);
        if (end > begin)
          std::memcpy(y + offset + begin * elem_, x + offset + begin * elem_,
                      (end - begin) * elem_);
      }
    }
    return Status::Ok();
  }

 private:
  bool upper_ = true;
  int64_t k_ = 0, rows_ = 0, cols_ = 0, matrices_ = 0;
  size_t elem_ = 0;
};

class EyeLikeKernel final : public Kernel {
 public:
  const char* DTypeAttribute() const override { return "dtype"; }
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    const Shape& x = ctx.shape(0);
    if (x.size() != 2) {
      return ctx.Error(ErrorCode::kShapeMismatch, "the input must be 2-D, got " + ShapeToString(x));
    }
    Attrs& attrs = ctx.attrs();
    const int64_t dtype = attrs.Int("dtype", static_cast<int64_t>(ctx.dtype(0)));
    k_ = attrs.Int("k", 0);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (dtype < 0 || dtype > INT32_MAX || !IsSupportedDType(static_cast<int32_t>(dtype))) {
      return ctx.Error(ErrorCode::kUnsupportedDtype,
                       "attribute 'dtype' " + std::to_string(dtype) + " is not supported");
    }
    dtype_ = static_cast<DType>(dtype);
    k_ = std::clamp(k_, -x[0], x[1]);  // the same diagonal, with no overflow in Run
    WriteElement(dtype_, 1, one_);
    ctx.SetOutput(0, dtype_, x);
    return Status::Ok();
  }

  // One element's bytes written along the diagonal: every dtype is the same loop.
  Status Run(RunContext& ctx) override {
    Tensor& y = ctx.output(0);
    const int64_t rows = y.shape[0], cols = y.shape[1];
    const size_t elem = DTypeSize(dtype_);
    auto* out = static_cast<uint8_t*>(y.data);
    std::memset(out, 0, y.nbytes());
    for (int64_t i = std::max<int64_t>(0, -k_); i < rows && i + k_ < cols; ++i)
      std::memcpy(out + (i * cols + i + k_) * elem, one_, elem);
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kUndefined;
  int64_t k_ = 0;
  uint8_t one_[8] = {};  // 1 in dtype_
};

}  // namespace

void RegisterTriangularKernels(OpRegistry& r) {
  r.Register("", "Trilu", {{14}, Inputs(1, 2), Outputs(1)}, MakeKernel<TriluKernel>);
  r.Register("", "EyeLike", {{9, 22}, Inputs(1), Outputs(1)}, MakeKernel<EyeLikeKernel>);
}

}  // namespace webnx
