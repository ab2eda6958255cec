// GatherND and ScatterND: tuples of int64 indices address slices of data, read (GatherND) or
// written over a copy of data (ScatterND, optionally combining with the value there: add, mul,
// max, min). ScatterElements (and its old name Scatter): one index per update, along one axis.
// Negative indices count from the end; one out of range fails the run naming the node, before
// anything is written.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/binary_common.h"
#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

enum class Combine { kNone, kAdd, kMul, kMax, kMin };

Status ReadCombine(PlanContext& ctx, DType dtype, Combine* combine) {
  const std::string reduction = ctx.attrs().String("reduction", "none");
  WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
  const int v = ctx.since_version();
  if (reduction == "none") {
    *combine = Combine::kNone;
  } else if (reduction == "add" && v >= 16) {
    *combine = Combine::kAdd;
  } else if (reduction == "mul" && v >= 16) {
    *combine = Combine::kMul;
  } else if (reduction == "max" && v >= 18) {
    *combine = Combine::kMax;
  } else if (reduction == "min" && v >= 18) {
    *combine = Combine::kMin;
  } else {
    return ctx.Error(
        ErrorCode::kMalformedModel,
        "attribute 'reduction' '" + reduction + "' is not defined at version " + std::to_string(v));
  }
  if (*combine != Combine::kNone && dtype == DType::kBool)
    return ctx.Error(ErrorCode::kUnsupportedDtype, "a bool scatter cannot combine values");
  if (*combine != Combine::kNone && dtype != DType::kFloat32 && dtype != DType::kInt32 &&
      dtype != DType::kInt64) {
    return ctx.Error(ErrorCode::kUnsupportedDtype,
                     "reduction '" + reduction + "' computes in float32, int32 and int64, not " +
                         DTypeName(dtype));
  }
  return Status::Ok();
}

// Calls fn(T{}): T the compute type (float32, int32 or int64) when values combine, else
// (values only move) the unsigned integer as wide as an element, which serves every dtype.
template <typename Fn>
void DispatchScatter(DType dtype, Combine combine, Fn&& fn) {
  if (combine == Combine::kNone) {
    DispatchBySize(DTypeSize(dtype), fn);
  } else if (dtype == DType::kFloat32) {
    fn(float{});
  } else if (dtype == DType::kInt32) {
    fn(int32_t{});
  } else if (dtype == DType::kInt64) {
    fn(int64_t{});
  }
}

// T unsigned: an element's bits, which only move.
template <typename T>
void CombineInto(T* dst, T v, Combine combine) {
  if constexpr (std::is_unsigned_v<T>) {
    *dst = v;
  } else {
    switch (combine) {
      case Combine::kNone:
        *dst = v;
        break;
      case Combine::kAdd:
        if constexpr (std::is_integral_v<T>)
          *dst = binary::WrapAdd(*dst, v);
        else
          *dst = *dst + v;
        break;
      case Combine::kMul:
        if constexpr (std::is_integral_v<T>)
          *dst = binary::WrapMul(*dst, v);
        else
          *dst = *dst * v;
        break;
      case Combine::kMax:
        *dst = std::max(*dst, v);
        break;
      case Combine::kMin:
        *dst = std::min(*dst, v);
        break;
    }
  }
}

Status OutOfRange(const std::string& node, int64_t index, int64_t dim) {
  return Status(ErrorCode::kInvalidInput, node + ": index " + std::to_string(index) +
                                              " is out of range for a dim of size " +
                                              std::to_string(dim));
}

// The element offset of each of `tuples` index tuples (m = dims.size() indices each) into the
// dims `dims` of one batch of data, in units of `unit` elements; false (with the bad index) when
// one is outside.
bool TupleOffsets(const int64_t* indices, int64_t tuples, const Shape& dims, int64_t unit,
                  int64_t* offsets, int64_t* bad_index, int64_t* bad_dim) {
  const int64_t m = static_cast<int64_t>(dims.size());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t j = 0; j < m; ++j) {
      int64_t index = indices[t * m + j];
      if (index < -dims[j] || index >= dims[j]) {
        *bad_index = index;
        *bad_dim = dims[j];
        return false;
      }
      if (index < 0) index += dims[j];
      offset = offset * dims[j] + index;
    }
    offsets[t] = offset * unit;
  }
  return true;
}

// GatherND and ScatterND: tuples of m indices address slices of data's dims [b, b+m).
class IndexTupleKernel final : public Kernel {
 public:
  explicit IndexTupleKernel(bool scatter) : scatter_(scatter) {}

  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(scatter_ ? 3 : 2, scatter_ ? 3 : 2));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    const int64_t batch_dims = scatter_ ? 0 : ctx.attrs().Int("batch_dims", 0);
    combine_ = Combine::kNone;
    if (scatter_) WEBNX_RETURN_IF_ERROR(ReadCombine(ctx, ctx.dtype(0), &combine_));
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    const int64_t r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
    const int64_t m = q == 0 ? -1 : indices.back();
    if (q < 1 || r < 1 || batch_dims < 0 || batch_dims >= std::min(r, q) || m < 0 ||
        m > r - batch_dims ||
        !std::equal(indices.begin(), indices.begin() + batch_dims, data.begin())) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "data " + ShapeToString(data) + " and indices " + ShapeToString(indices) +
                           " do not fit (batch_dims " + std::to_string(batch_dims) + ")");
    }
    Shape out(indices.begin(), indices.end() - 1);
    out.insert(out.end(), data.begin() + batch_dims + m, data.end());
    if (scatter_) {
      WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {ctx.dtype(0)}));
      if (ctx.shape(2) != out) {
        return ctx.Error(ErrorCode::kShapeMismatch, "updates " + ShapeToString(ctx.shape(2)) +
                                                        " must be " + ShapeToString(out));
      }
      out = data;
    }
    batches_ = nn::DimProduct(data, 0, batch_dims);
    tuple_dims_.assign(data.begin() + batch_dims, data.begin() + batch_dims + m);
    slice_ = nn::DimProduct(data, batch_dims + m, data.size());
    batch_elems_ = nn::DimProduct(data, batch_dims, data.size());
    tuples_ = nn::DimProduct(indices, batch_dims, indices.size() - 1);
    dtype_ = ctx.dtype(0);
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, dtype_, out);
    return Tensor::AllocateUninitialized(DType::kInt64, Shape{batches_ * tuples_}, &offsets_);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& indices = ctx.input(1);
    int64_t* offsets = offsets_.ptr<int64_t>();
    int64_t bad_index = 0, bad_dim = 0;
    const int64_t m = static_cast<int64_t>(tuple_dims_.size());
    for (int64_t b = 0; b < batches_; ++b) {
      if (!TupleOffsets(indices.ptr<int64_t>() + b * tuples_ * m, tuples_, tuple_dims_, slice_,
                        offsets + b * tuples_, &bad_index, &bad_dim)) {
        return OutOfRange(node_, bad_index, bad_dim);
      }
    }
    DispatchScatter(dtype_, combine_, [&](auto tag) { Move<decltype(tag)>(ctx, offsets); });
    return Status::Ok();
  }

 private:
  template <typename T>
  void Move(RunContext& ctx, const int64_t* offsets) {
    const T* data = ctx.input(0).ptr<T>();
    T* out = ctx.output(0).ptr<T>();
    if (scatter_) std::memcpy(out, data, ctx.input(0).nbytes());
    const T* updates = scatter_ ? ctx.input(2).ptr<T>() : nullptr;
    for (int64_t b = 0; b < batches_; ++b) {
      for (int64_t t = 0; t < tuples_; ++t) {
        const int64_t at = b * batch_elems_ + offsets[b * tuples_ + t];
        const int64_t slot = (b * tuples_ + t) * slice_;
        for (int64_t e = 0; e < slice_; ++e) {
          if (scatter_) {
            CombineInto(out + at + e, updates[slot + e], combine_);
          } else {
            out[slot + e] = data[at + e];
          }
        }
      }
    }
  }

  const bool scatter_;
  Combine combine_ = Combine::kNone;
  DType dtype_ = DType::kUndefined;
  Shape tuple_dims_;
  int64_t batches_ = 0, slice_ = 0, batch_elems_ = 0, tuples_ = 0;
  std::string node_;
  Tensor offsets_;  // per tuple, checked before anything is written
};

class ScatterElementsKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 3));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt32, DType::kInt64}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(2, {ctx.dtype(0)}));
    const Shape& data = ctx.shape(0);
    const Shape& indices = ctx.shape(1);
    WEBNX_RETURN_IF_ERROR(ReadCombine(ctx, ctx.dtype(0), &combine_));
    const int64_t rank = static_cast<int64_t>(data.size());
    bool fits = rank >= 1 && indices.size() == data.size() && ctx.shape(2) == indices;
    for (int64_t d = 0; fits && d < rank; ++d) fits = indices[d] <= data[d];
    if (!fits) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "data " + ShapeToString(data) + ", indices " + ShapeToString(indices) +
                           " and updates " + ShapeToString(ctx.shape(2)) +
                           " must share a rank, updates matching indices, within data");
    }
    WEBNX_RETURN_IF_ERROR(indexing::NormalizeAxis(ctx, ctx.attrs().Int("axis", 0), rank, &axis_));
    WEBNX_RETURN_IF_ERROR(ctx.attrs().status());
    data_ = data;
    indices_ = indices;
    strides_.assign(data.size(), 1);
    for (size_t d = data.size(); d-- > 1;) strides_[d - 1] = strides_[d] * data[d];
    position_.assign(data.size(), 0);
    dtype_ = ctx.dtype(0);
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, dtype_, data);
    return Tensor::AllocateUninitialized(DType::kInt64, Shape{nn::DimProduct(indices, 0, rank)},
                                         &offsets_);
  }

  Status Run(RunContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(Offsets(ctx.input(1)));
    DispatchScatter(dtype_, combine_, [&](auto tag) {
      using T = decltype(tag);
      const T* updates = ctx.input(2).ptr<T>();
      T* out = ctx.output(0).ptr<T>();
      std::memcpy(out, ctx.input(0).ptr<T>(), ctx.input(0).nbytes());
      const int64_t* offsets = offsets_.ptr<int64_t>();
      for (int64_t k = 0; k < offsets_.numel(); ++k)
        CombineInto(out + offsets[k], updates[k], combine_);
    });
    return Status::Ok();
  }

 private:
  // Where each update goes in data, walking the indices' positions in order.
  Status Offsets(const Tensor& indices) {
    const size_t rank = data_.size();
    const std::vector<int64_t>& strides = strides_;
    std::vector<int64_t>& position = position_;
    std::fill(position.begin(), position.end(), 0);
    int64_t* offsets = offsets_.ptr<int64_t>();
    for (int64_t k = 0; k < offsets_.numel(); ++k) {
      int64_t index = indexing::IndexAt(indices, k);
      const int64_t dim = data_[axis_];
      if (index < -dim || index >= dim) return OutOfRange(node_, index, dim);
      if (index < 0) index += dim;
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d)
        offset += (static_cast<int64_t>(d) == axis_ ? index : position[d]) * strides[d];
      offsets[k] = offset;
      for (size_t d = rank; d-- > 0 && ++position[d] == indices_[d];) position[d] = 0;
    }
    return Status::Ok();
  }

  Combine combine_ = Combine::kNone;
  int64_t axis_ = 0;
  Shape data_, indices_;
  std::vector<int64_t> strides_;   // data's, in elements
  std::vector<int64_t> position_;  // the walk over indices, sized when planned
  DType dtype_ = DType::kUndefined;
  std::string node_;
  Tensor offsets_;
};

}  // namespace

void RegisterScatterGatherKernels(OpRegistry& r) {
  r.Register("", "GatherND", {{11, 12, 13}, Inputs(2), Outputs(1)},
             []() -> Kernel* { return new IndexTupleKernel(false); });
  r.Register("", "ScatterElements", {{11, 13, 16, 18}, Inputs(3), Outputs(1)},
             MakeKernel<ScatterElementsKernel>);
  r.Register("", "Scatter", {{9, 11}, Inputs(3), Outputs(1)}, MakeKernel<ScatterElementsKernel>);
  r.Register("", "ScatterND", {{11, 13, 16, 18}, Inputs(3), Outputs(1)},
             []() -> Kernel* { return new IndexTupleKernel(true); });
}

}  // namespace webnx
