// TopK: the k largest (or smallest) elements along one axis and their int64 indices, ordered
// best first; equal values keep their index order, as the spec requires. k is an input from
// version 10 and must be known when the plan is made (it sets the output shape). Every numeric
// dtype with one sort: the indices are chosen on int64 keys that order as the values do
// (OrderedKeys), and the values copied from the input by index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/convert_elements.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

// keys[i] = x[i] as an int64 that orders as the values do: integers widened (uint64 with its
// top bit flipped: 2^63 and up wrap negative), floats by their float64 bits, the negative ones'
// magnitude bits reversed, -0 as 0 (they are equal) and every NaN as one key above +inf (NaN
// counts as the largest value, so the order stays a strict weak one whatever the input holds).
void OrderedKeys(DType dtype, const void* x, int64_t n, int64_t* keys) {
  const bool is_float =
      dtype == DType::kFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
  ConvertElements(dtype, x, is_float ? DType::kFloat64 : DType::kInt64, keys, n);
  if (dtype == DType::kUint64) {
    for (int64_t i = 0; i < n; ++i) keys[i] ^= std::numeric_limits<int64_t>::min();
  }
  if (!is_float) return;
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    std::memcpy(&v, &keys[i], sizeof(v));
    if (v == 0) v = 0;  // -0 too
    if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(&keys[i], &v, sizeof(v));
    if (keys[i] < 0) keys[i] ^= std::numeric_limits<int64_t>::max();
  }
}

class TopKKernel final : public Kernel {
 public:
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    if (ctx.since_version() >= 10) *inputs = {1};
  }

  Status Plan(PlanContext& ctx) override {
    const bool k_input = ctx.since_version() >= 10;
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(k_input ? 2 : 1, k_input ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(
        ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt8,
                            DType::kInt16, DType::kInt32, DType::kInt64, DType::kUint8,
                            DType::kUint16, DType::kUint32, DType::kUint64}));
    const Shape& x = ctx.shape(0);
    if (x.empty()) return ctx.Error(ErrorCode::kShapeMismatch, "the input must have rank >= 1");
    Attrs& attrs = ctx.attrs();
    int64_t axis = 0;
    WEBNX_RETURN_IF_ERROR(
        indexing::NormalizeAxis(ctx, attrs.Int("axis", -1), static_cast<int64_t>(x.size()), &axis));
    largest_ = attrs.Int("largest", 1) != 0;
    int64_t k = attrs.Int("k", -1);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    if (k_input) WEBNX_RETURN_IF_ERROR(ReadK(ctx, &k));
    if (k < 0 || k > x[axis]) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "k " + std::to_string(k) + " is outside [0, " + std::to_string(x[axis]) +
                           "] for axis " + std::to_string(axis) + " of " + ShapeToString(x));
    }
    k_ = k;
    outer_ = nn::DimProduct(x, 0, axis);
    extent_ = x[axis];
    inner_ = nn::DimProduct(x, axis + 1, x.size());
    dtype_ = ctx.dtype(0);
    Shape out = x;
    out[axis] = k;
    ctx.SetOutput(0, dtype_, out);
    ctx.SetOutput(1, DType::kInt64, out);
    order_.resize(static_cast<size_t>(extent_));
    const bool own_keys = dtype_ == DType::kInt64;
    return Tensor::AllocateUninitialized(DType::kInt64,
                                         {own_keys ? 0 : nn::DimProduct(x, 0, x.size())}, &keys_);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const auto* keys = static_cast<const int64_t*>(x.data);
    if (dtype_ != DType::kInt64) {
      OrderedKeys(dtype_, x.data, x.numel(), keys_.ptr<int64_t>());
      keys = keys_.ptr<int64_t>();
    }
    Select(keys, ctx);
    CopyValues(x, ctx);
    return Status::Ok();
  }

 private:
  static Status ReadK(PlanContext& ctx, int64_t* k) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    const Tensor* t = ctx.constant(1);
    if (!t) return ctx.Error(ErrorCode::kMalformedModel, "input 'K' must be known when planned");
    if (t->numel() != 1) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "input 'K' must hold one value, got shape " + ShapeToString(t->shape));
    }
    *k = t->ptr<int64_t>()[0];
    return Status::Ok();
  }

  // Per slice: a partial sort of the indices by key, best first, then lower index first.
  void Select(const int64_t* x, RunContext& ctx) {
    int64_t* indices = ctx.output(1).ptr<int64_t>();
    const bool largest = largest_;
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        const int64_t* slice = x + o * extent_ * inner_ + i;
        for (int64_t e = 0; e < extent_; ++e) order_[e] = e;
        const int64_t inner = inner_;
        std::partial_sort(order_.begin(), order_.begin() + k_, order_.end(),
                          [&](int64_t a, int64_t b) {
                            const int64_t va = slice[a * inner], vb = slice[b * inner];
                            if (va != vb) return largest ? va > vb : va < vb;
                            return a < b;
                          });
        for (int64_t j = 0; j < k_; ++j) indices[(o * k_ + j) * inner_ + i] = order_[j];
      }
    }
  }

  // values[at] = the input element at indices[at] along the axis, by element size.
  void CopyValues(const Tensor& x, RunContext& ctx) const {
    const int64_t* indices = ctx.output(1).ptr<int64_t>();
    DispatchBySize(DTypeSize(dtype_), [&](auto tag) {
      using U = decltype(tag);
      const U* in = static_cast<const U*>(x.data);
      U* values = static_cast<U*>(ctx.output(0).data);
      for (int64_t o = 0; o < outer_; ++o) {
        for (int64_t j = 0; j < k_; ++j) {
          for (int64_t i = 0; i < inner_; ++i) {
            const int64_t at = (o * k_ + j) * inner_ + i;
            values[at] = in[(o * extent_ + indices[at]) * inner_ + i];
          }
        }
      }
    });
  }

  bool largest_ = true;
  int64_t k_ = 0, outer_ = 0, extent_ = 0, inner_ = 0;
  DType dtype_ = DType::kUndefined, key_dtype_ = DType::kUndefined;
  std::vector<int64_t> order_;  // sized when planned: Run allocates nothing
  Tensor keys_;                 // the input as keys, when they are not its own values
};

}  // namespace

void RegisterTopKKernels(OpRegistry& r) {
  r.Register("", "TopK", {{{1}, Inputs(1), Outputs(2)}, {{10, 11}, Inputs(2), Outputs(2)}},
             MakeKernel<TopKKernel>);
}

}  // namespace webnx
