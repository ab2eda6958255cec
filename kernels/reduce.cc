// The Reduce* family. Axes come from the 'axes' attribute, or from the optional second input
// (ReduceSum from version 13, the others from 18), which must then be known at plan time.
// Float reductions accumulate in double; integer ones in int64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/simd/plane_sum.h"
#include "kernels/widening.h"

namespace webnx {
namespace {

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

bool AllowsIntegers(ReduceOp op) {
  return op == ReduceOp::kSum || op == ReduceOp::kMax || op == ReduceOp::kMin ||
         op == ReduceOp::kProd;
}

class ReduceKernel : public Kernel {
 public:
  explicit ReduceKernel(ReduceOp op) : op_(op) {}

  Status Plan(PlanContext& ctx) override {
    const int version = ctx.since_version();
    const bool axes_from_input = version >= (op_ == ReduceOp::kSum ? 13 : 18);
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(1, axes_from_input ? 2 : 1));
    WEBNX_RETURN_IF_ERROR(CheckDType(ctx));
    dtype_ = ctx.dtype(0);

    Attrs& attrs = ctx.attrs();
    const bool keepdims = attrs.Int("keepdims", 1) != 0;
    const bool noop_with_empty_axes = axes_from_input && attrs.Int("noop_with_empty_axes", 0) != 0;
    WEBNX_RETURN_IF_ERROR(attrs.status());
    std::vector<int64_t> axes;
    WEBNX_RETURN_IF_ERROR(ReadAxes(ctx, axes_from_input, &axes));

    const Shape& x = ctx.shape(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    // No axes with noop_with_empty_axes reduces nothing, "but other operations will be
    // performed" (the spec): each output is the reduction of its one element, x^2 for
    // SumSquare, |x| for L1 and L2, log(x) for LogSum; a plain copy where that is x itself.
    const bool reduce_nothing = axes.empty() && noop_with_empty_axes;
    identity_ = reduce_nothing &&
                (op_ == ReduceOp::kSum || op_ == ReduceOp::kMean || op_ == ReduceOp::kMax ||
                 op_ == ReduceOp::kMin || op_ == ReduceOp::kProd);
    std::vector<bool> reduced(x.size(), axes.empty() && !reduce_nothing);
    for (int64_t a : axes) {
      int64_t axis = 0;
      if (!nn::NormalizeAxis(a, rank, &axis)) {
        return ctx.Error(ErrorCode::kMalformedModel, "axis " + std::to_string(a) +
                                                         " is out of range for input of shape " +
                                                         ShapeToString(x));
      }
      if (reduced[axis]) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "axis " + std::to_string(a) + " is listed more than once in 'axes'");
      }
      reduced[axis] = true;
    }

    Shape out, reduced_dims;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!reduced[i]) {
        out.push_back(x[i]);
      } else {
        reduced_dims.push_back(x[i]);
        if (keepdims) out.push_back(1);
      }
    }
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, out, "output"));
    ctx.SetOutput(0, dtype_, out);
    reduce_count_ = nn::DimProduct(reduced_dims, 0, reduced_dims.size());
    in_numel_ = nn::DimProduct(x, 0, x.size());
    out_numel_ = nn::DimProduct(out, 0, out.size());
    CollapseDims(x, reduced);
    // One 8-byte accumulator per output; LogSumExp keeps its per-output shifts after them.
    acc_ = Tensor();
    if (identity_) return Status::Ok();
    const int64_t slots = op_ == ReduceOp::kLogSumExp ? 2 * out_numel_ : out_numel_;
    return Tensor::Allocate(DType::kInt64, {slots}, &acc_);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    if (identity_) {
      if (x.nbytes()) std::memcpy(y.data, x.data, x.nbytes());
      return Status::Ok();
    }
    switch (dtype_) {
      case DType::kFloat32:
        ReduceFloat(x.ptr<float>(), y.ptr<float>());
        break;
      case DType::kFloat64:
        ReduceDouble(x.ptr<double>(), y.ptr<double>());
        break;
      case DType::kInt64:
        ReduceInt(x.ptr<int64_t>(), y.ptr<int64_t>());
        break;
      case DType::kInt32:
        ReduceInt(x.ptr<int32_t>(), y.ptr<int32_t>());
        break;
      case DType::kBool:
        ReduceInt(x.ptr<bool>(), y.ptr<bool>());
        break;
      default:  // Plan admits only the five above
        return Status(ErrorCode::kInternal, std::string("reduce: dtype ") + DTypeName(dtype_));
    }
    return Status::Ok();
  }

 private:
  Status CheckDType(const PlanContext& ctx) const {
    if (op_ == ReduceOp::kMax || op_ == ReduceOp::kMin) {
      if (ctx.since_version() >= 20) {
        return ctx.ExpectDType(
            0, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool});
      }
    }
    if (AllowsIntegers(op_)) {
      return ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64});
    }
    return ctx.ExpectDType(0, {DType::kFloat32, DType::kFloat64});
  }

  Status ReadAxes(PlanContext& ctx, bool from_input, std::vector<int64_t>* axes) const {
    if (!from_input) {
      *axes = ctx.attrs().Ints("axes", {});
      return ctx.attrs().status();
    }
    if (ctx.attrs().Has("axes")) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "attribute 'axes' is not allowed at this version; axes are input 1");
    }
    axes->clear();
    if (!ctx.has_input(1)) return Status::Ok();
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(1, {DType::kInt64}));
    const Shape& shape = ctx.shape(1);
    if (shape.size() > 1) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "input 'axes' must be 1-D, got shape " + ShapeToString(shape));
    }
    const int64_t count = shape.empty() ? 1 : shape[0];
    if (count == 0) return Status::Ok();
    const Tensor* value = ctx.constant(1);
    if (value == nullptr) {
      return ctx.Error(ErrorCode::kUnsupportedOperator,
                       "input 'axes' must be known when the model is planned (an initializer or "
                       "computed from shapes)");
    }
    for (int64_t i = 0; i < count; ++i) axes->push_back(value->IntAt(i));
    return Status::Ok();
  }

  // Drops unit dims and merges neighbours that are both reduced or both kept, so the walk
  // runs over as few, as long, dims as possible.
  void CollapseDims(const Shape& x, const std::vector<bool>& reduced) {
    dims_.clear();
    dim_reduced_.clear();
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == 1) continue;
      if (!dims_.empty() && dim_reduced_.back() == reduced[i]) {
        dims_.back() *= x[i];
      } else {
        dims_.push_back(x[i]);
        dim_reduced_.push_back(reduced[i]);
      }
    }
    if (dims_.empty()) {
      dims_.push_back(1);
      dim_reduced_.push_back(false);
    }
    out_strides_.assign(dims_.size(), 0);
    int64_t stride = 1;
    for (size_t i = dims_.size(); i-- > 0;) {
      if (!dim_reduced_[i]) {
        out_strides_[i] = stride;
        stride *= dims_[i];
      }
    }
    index_.assign(dims_.size(), 0);
  }

  // Visits the input in memory order; acc[o] = combine(acc[o], value(x, o)) where o is the
  // element's output position.
  template <typename In, typename Acc, typename Value, typename Combine>
  void Walk(const In* x, Acc* acc, Value value, Combine combine) {
    if (in_numel_ == 0) return;
    const size_t last = dims_.size() - 1;
    const int64_t inner = dims_[last];
    const bool inner_reduced = dim_reduced_[last];
    std::fill(index_.begin(), index_.end(), 0);
    int64_t out = 0;
    for (int64_t base = 0; base < in_numel_; base += inner) {
      const In* row = x + base;
      if (inner_reduced) {
        Acc a = acc[out];
        for (int64_t i = 0; i < inner; ++i) a = combine(a, value(row[i], out));
        acc[out] = a;
      } else {
        for (int64_t i = 0; i < inner; ++i)
          acc[out + i] = combine(acc[out + i], value(row[i], out + i));
      }
      // Odometer step over the outer dims.
      for (size_t d = last; d-- > 0;) {
        out += out_strides_[d];
        if (++index_[d] < dims_[d]) break;
        out -= out_strides_[d] * dims_[d];
        index_[d] = 0;
      }
    }
  }

  // Every output the sum of one contiguous row of the input (a mean over each channel's plane,
  // a sum over the last axis): no walk, the rows summed with independent accumulators.
  bool SumsRows() const {
    return dim_reduced_.back() && (dims_.size() == 1 || (dims_.size() == 2 && !dim_reduced_[0]));
  }

  // The accumulators live in untyped heap memory, which may as well hold doubles.
  double* FloatAcc() { return static_cast<double*>(acc_.data); }
  double* Shifts() { return FloatAcc() + out_numel_; }

  void ReduceFloat(const float* x, float* y) {
    double* acc = FloatAcc();
    double* acc_end = acc + out_numel_;
    const double inf = std::numeric_limits<double>::infinity();
    auto add = [](double a, double b) { return a + b; };
    auto plain = [](float v, int64_t) { return static_cast<double>(v); };
    switch (op_) {
      case ReduceOp::kMax:
        // NaN propagates, as in numpy.
        std::fill(acc, acc_end, -inf);
        Walk(x, acc, plain, [](double a, double b) { return a > b || a != a ? a : b; });
        break;
      case ReduceOp::kMin:
        std::fill(acc, acc_end, inf);
        Walk(x, acc, plain, [](double a, double b) { return a < b || a != a ? a : b; });
        break;
      case ReduceOp::kProd:
        std::fill(acc, acc_end, 1.0);
        Walk(x, acc, plain, [](double a, double b) { return a * b; });
        break;
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kLogSum:
        if (SumsRows()) {
          const int64_t row = dims_.back();
          for (int64_t o = 0; o < out_numel_; ++o) acc[o] = simd::PlaneSum(x + o * row, row);
          break;
        }
        std::fill(acc, acc_end, 0.0);
        Walk(x, acc, plain, add);
        break;
      case ReduceOp::kL1:
        std::fill(acc, acc_end, 0.0);
        Walk(
            x, acc, [](float v, int64_t) { return std::fabs(static_cast<double>(v)); }, add);
        break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare:
        std::fill(acc, acc_end, 0.0);
        Walk(
            x, acc, [](float v, int64_t) { return static_cast<double>(v) * v; }, add);
        break;
      case ReduceOp::kLogSumExp: {
        // Shift by the max so exp() cannot overflow; an infinite or empty max shifts by 0.
        double* shift = Shifts();
        std::fill(acc, acc_end, -inf);
        Walk(x, acc, plain, [](double a, double b) { return a > b ? a : b; });
        for (int64_t o = 0; o < out_numel_; ++o) shift[o] = std::isfinite(acc[o]) ? acc[o] : 0.0;
        std::fill(acc, acc_end, 0.0);
        Walk(
            x, acc, [shift](float v, int64_t o) { return std::exp(v - shift[o]); }, add);
        break;
      }
    }
    for (int64_t o = 0; o < out_numel_; ++o) y[o] = static_cast<float>(Finalize(acc[o], o));
  }

  // float64: one walk for every op, which picks each element's value and combination by the
  // pass it is in (as the integer reductions do: float64 is rare, and its code is in every
  // download). LogSumExp takes a max pass for its shifts first.
  void ReduceDouble(const double* x, double* y) {
    double* acc = FloatAcc();
    const double* shift = Shifts();
    ReduceOp pass = op_ == ReduceOp::kLogSumExp ? ReduceOp::kMax : op_;
    for (;;) {
      const double init = pass == ReduceOp::kMax    ? -std::numeric_limits<double>::infinity()
                          : pass == ReduceOp::kMin  ? std::numeric_limits<double>::infinity()
                          : pass == ReduceOp::kProd ? 1.0
                                                    : 0.0;
      std::fill(acc, acc + out_numel_, init);
      Walk(
          x, acc,
          [&pass, shift](double v, int64_t o) {
            if (pass == ReduceOp::kL1) return std::fabs(v);
            if (pass == ReduceOp::kL2 || pass == ReduceOp::kSumSquare) return v * v;
            if (pass == ReduceOp::kLogSumExp) return std::exp(v - shift[o]);
            return v;
          },
          [&pass](double a, double b) {
            if (pass == ReduceOp::kMax) return a > b || a != a ? a : b;
            if (pass == ReduceOp::kMin) return a < b || a != a ? a : b;
            return pass == ReduceOp::kProd ? a * b : a + b;
          });
      if (pass != ReduceOp::kMax || op_ != ReduceOp::kLogSumExp) break;
      for (int64_t o = 0; o < out_numel_; ++o) Shifts()[o] = std::isfinite(acc[o]) ? acc[o] : 0.0;
      pass = ReduceOp::kLogSumExp;
    }
    for (int64_t o = 0; o < out_numel_; ++o) y[o] = Finalize(acc[o], o);
  }

  double Finalize(double a, int64_t o) {
    switch (op_) {
      case ReduceOp::kMean:
        return a / static_cast<double>(reduce_count_);
      case ReduceOp::kL2:
        return std::sqrt(a);
      case ReduceOp::kLogSum:
        return std::log(a);
      case ReduceOp::kLogSumExp:
        return std::log(a) + Shifts()[o];
      default:
        return a;
    }
  }

  // Sum, Prod, Max and Min of int32/int64 (wrapping like the output type) and Max/Min of bool.
  template <typename T>
  void ReduceInt(const T* x, T* y) {
    int64_t* acc = acc_.ptr<int64_t>();
    int64_t* acc_end = acc + out_numel_;
    auto plain = [](T v, int64_t) { return static_cast<int64_t>(v); };
    int64_t init = 0;
    if (op_ == ReduceOp::kMax) init = static_cast<int64_t>(std::numeric_limits<T>::lowest());
    if (op_ == ReduceOp::kMin) init = static_cast<int64_t>(std::numeric_limits<T>::max());
    if (op_ == ReduceOp::kProd) init = 1;
    std::fill(acc, acc_end, init);
    // One walk for every op (integer reductions are rare; one copy of the loop keeps the
    // download small). Wrapping arithmetic: no signed overflow.
    const ReduceOp op = op_;
    Walk(x, acc, plain, [op](int64_t a, int64_t b) {
      switch (op) {
        case ReduceOp::kMax:
          return std::max(a, b);
        case ReduceOp::kMin:
          return std::min(a, b);
        case ReduceOp::kProd:
          return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        default:  // kSum; Plan admits no other integer op
          return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      }
    });
    for (int64_t o = 0; o < out_numel_; ++o) y[o] = static_cast<T>(acc[o]);
  }

  ReduceOp op_;
  DType dtype_ = DType::kFloat32;
  bool identity_ = false;  // noop_with_empty_axes with no axes
  int64_t in_numel_ = 0, out_numel_ = 0;
  int64_t reduce_count_ = 1;  // input elements per output element
  // The input's dims after collapsing, whether each is reduced, and its output stride
  // (0 when reduced).
  std::vector<int64_t> dims_;
  std::vector<bool> dim_reduced_;
  std::vector<int64_t> out_strides_;
  std::vector<int64_t> index_;  // walk odometer
  Tensor acc_;  // out_numel_ accumulators (double for float input, int64 otherwise) [+ shifts]
};

template <ReduceOp op>
Kernel* MakeReduce() {
  return WidenNarrowDTypes(std::make_unique<ReduceKernel>(op));
}

}  // namespace

void RegisterReduceKernels(OpRegistry& r) {
  // ReduceSum turned axes into an optional input at 13, the others at 18.
  r.Register("", "ReduceSum", {{{1, 11}, Inputs(1), Outputs(1)}, {{13}, Inputs(1, 2), Outputs(1)}},
             MakeReduce<ReduceOp::kSum>);
  const auto axes_input_at_18 = [&r](const char* op, KernelFactory factory) {
    r.Register("", op, {{{1, 11, 13}, Inputs(1), Outputs(1)}, {{18}, Inputs(1, 2), Outputs(1)}},
               factory);
  };
  const auto max_min = [&r](const char* op, KernelFactory factory) {
    r.Register("", op,
               {{{1, 11, 12, 13}, Inputs(1), Outputs(1)}, {{18, 20}, Inputs(1, 2), Outputs(1)}},
               factory);
  };
  axes_input_at_18("ReduceMean", MakeReduce<ReduceOp::kMean>);
  max_min("ReduceMax", MakeReduce<ReduceOp::kMax>);
  max_min("ReduceMin", MakeReduce<ReduceOp::kMin>);
  axes_input_at_18("ReduceProd", MakeReduce<ReduceOp::kProd>);
  axes_input_at_18("ReduceL1", MakeReduce<ReduceOp::kL1>);
  axes_input_at_18("ReduceL2", MakeReduce<ReduceOp::kL2>);
  axes_input_at_18("ReduceLogSum", MakeReduce<ReduceOp::kLogSum>);
  axes_input_at_18("ReduceLogSumExp", MakeReduce<ReduceOp::kLogSumExp>);
  axes_input_at_18("ReduceSumSquare", MakeReduce<ReduceOp::kSumSquare>);
}

}  // namespace webnx
