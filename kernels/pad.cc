// Pad: constant, reflect, edge (and wrap from 19) modes; negative pads crop. The pads (and axes)
// must be known when the plan is made, because they decide the output shape.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/dtype_dispatch.h"
#include "kernels/indexing_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

using indexing::IndexAt;
using indexing::NormalizeDistinctAxis;

// ---- Pad: constant, reflect, edge (and wrap from 19) modes; negative pads crop.

class PadKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    const int version = ctx.since_version();
    WEBNX_RETURN_IF_ERROR(ctx.ExpectAnyDType(0));
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
        ctx.AcceptDType(2);
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
      WEBNX_RETURN_IF_ERROR(NormalizeDistinctAxis(ctx, axes[i], rank, &seen, &axis));
      before[axis] = pads[i];
      after[axis] = pads[i + n];
    }
    return PlanIndexMaps(ctx, in, before, after);
  }

  Status Run(RunContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    if (y.numel() == 0) return Status::Ok();
    // Only elements move, so one loop per element size serves every dtype.
    DispatchBySize(DTypeSize(dtype_), [&](auto tag) { Fill<decltype(tag)>(ctx, x, y); });
    return Status::Ok();
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

  // T is the unsigned integer as wide as an element: the constant is moved as its bits.
  template <typename T>
  void Fill(RunContext& ctx, const Tensor& x, Tensor& y) {
    T value{};  // all bits zero: 0 in every dtype
    if (constant_from_input_ && ctx.has_input(2)) {
      std::memcpy(&value, ctx.input(2).data, sizeof(T));
    } else if constexpr (sizeof(T) == sizeof(float)) {
      if (dtype_ == DType::kFloat32) std::memcpy(&value, &attr_value_, sizeof(T));  // Pad-2
    }
    const T* in = x.ptr<T>();
    T* out = y.ptr<T>();
    const int64_t rank = static_cast<int64_t>(out_dims_.size());
    if (rank == 0) {
      out[0] = in[0];
      return;
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

void RegisterPadKernels(OpRegistry& r) {
  // 11 turned pads and the constant value into inputs; 18 added axes.
  r.Register("", "Pad",
             {{{2}, Inputs(1), Outputs(1)},
              {{11, 13}, Inputs(2, 3), Outputs(1)},
              {{18, 19}, Inputs(2, 4), Outputs(1)}},
             MakeKernel<PadKernel>);
}

}  // namespace webnx
