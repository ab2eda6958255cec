#include "kernels/widening.h"

#include <string>
#include <utility>
#include <vector>

#include "kernels/convert_elements.h"

namespace webnx {

DType WideDTypeOf(DType dtype, Uint64As uint64_as, SmallIntsAs small_ints_as) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUint8:
    case DType::kInt16:
    case DType::kUint16:
      return small_ints_as == SmallIntsAs::kFloat32 ? DType::kFloat32 : DType::kInt32;
    case DType::kUint32:
      return DType::kInt64;
    case DType::kFloat16:
      return DType::kFloat32;
    case DType::kUint64:
      return uint64_as == Uint64As::kNone ? dtype : DType::kInt64;
    default:
      return dtype;
  }
}

namespace {

// uint64 <-> int64 minus 2^63, in place.
void FlipTopBits(void* data, int64_t n) {
  uint64_t* bits = static_cast<uint64_t*>(data);
  for (int64_t i = 0; i < n; ++i) bits[i] ^= uint64_t{1} << 63;
}

class WideningKernel final : public Kernel {
 public:
  WideningKernel(std::unique_ptr<Kernel> inner, Uint64As uint64_as, SmallIntsAs small_ints_as)
      : inner_(std::move(inner)), uint64_as_(uint64_as), small_ints_as_(small_ints_as) {}

  Status Plan(PlanContext& ctx) override {
    narrow_ = DType::kUndefined;
    for (int i = 0; i < ctx.num_inputs() && narrow_ == DType::kUndefined; ++i) {
      if (ctx.has_input(i) && Wide(ctx.dtype(i)) != ctx.dtype(i)) narrow_ = ctx.dtype(i);
    }
    if (narrow_ == DType::kUndefined) return inner_->Plan(ctx);
    const int n = ctx.num_inputs();
    values_.assign(n, PlannedValue());
    inputs_.assign(n, Tensor());
    constant_.assign(n, false);
    std::vector<const PlannedValue*> planned(n, nullptr);
    for (int i = 0; i < n; ++i) {
      if (ctx.has_input(i)) {
        WEBNX_RETURN_IF_ERROR(PlanInput(ctx, i));
        planned[i] = &values_[i];
      }
    }
    PlanContext wide = ctx.WithInputs(planned);
    Status s = inner_->Plan(wide);
    if (!s.ok()) return Explain(ctx, s);
    // An input the inner kernel took (widened or as it is) is taken (core/plan_node.cc).
    for (int i = 0; i < n; ++i) {
      if (wide.DTypeAccepted(i)) ctx.AcceptDType(i);
    }
    if (wide.outputs_follow_data()) {
      return ctx.Error(ErrorCode::kInternal, "a widened kernel cannot bound its outputs");
    }
    return PlanOutputs(ctx, wide);
  }

  Status Run(RunContext& ctx) override {
    if (narrow_ == DType::kUndefined) return inner_->Run(ctx);
    std::vector<const Tensor*> ins(ctx.num_inputs(), nullptr);
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      Tensor& wide = inputs_[i];
      const Tensor& in = ctx.input(i);
      if (wide.dtype == DType::kUndefined) {
        ins[i] = &in;  // not narrow: as it is
      } else {
        if (!constant_[i]) Convert(in, &wide);
        ins[i] = &wide;
      }
    }
    std::vector<Tensor*> outs(ctx.num_outputs(), nullptr);
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      if (!ctx.has_output(o)) continue;
      outs[o] = outputs_[o].dtype == DType::kUndefined ? &ctx.output(o) : &outputs_[o];
    }
    RunContext wide(std::move(ins), std::move(outs), ctx.threads());
    WEBNX_RETURN_IF_ERROR(inner_->Run(wide));
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      if (!ctx.has_output(o) || outputs_[o].dtype == DType::kUndefined) continue;
      Tensor& out = ctx.output(o);
      if (Biased(out.dtype)) FlipTopBits(outputs_[o].data, out.numel());
      ConvertElements(outputs_[o].dtype, outputs_[o].data, out.dtype, out.data, out.numel());
    }
    return Status::Ok();
  }

  // What the passes ask before any plan does not depend on dtypes: the inner kernel answers.
  void DeclareForms(FormContext& ctx, std::vector<ConstantForm>* forms) const override {
    inner_->DeclareForms(ctx, forms);
  }
  void DeclarePlanTimeInputs(FormContext& ctx, std::vector<int>* inputs) const override {
    inner_->DeclarePlanTimeInputs(ctx, inputs);
  }
  ElementwiseKind Elementwise() const override { return inner_->Elementwise(); }
  bool ReadsOnlyInputShapes() const override { return inner_->ReadsOnlyInputShapes(); }
  // Fusion only where nothing is widened (a fused stage would skip the conversions).
  int OutputAliasesInput() const override {
    return narrow_ == DType::kUndefined ? inner_->OutputAliasesInput() : -1;
  }
  EpilogueStage AsEpilogueStage() const override {
    return narrow_ == DType::kUndefined ? inner_->AsEpilogueStage() : EpilogueStage{};
  }
  Epilogue* epilogue() override {
    return narrow_ == DType::kUndefined ? inner_->epilogue() : nullptr;
  }
  bool FuseConsumer(std::unique_ptr<Kernel>& consumer) override {
    return narrow_ == DType::kUndefined && inner_->FuseConsumer(consumer);
  }
  const void* ClassTag() const override { return inner_->ClassTag(); }

 private:
  DType Wide(DType dtype) const { return WideDTypeOf(dtype, uint64_as_, small_ints_as_); }
  bool Biased(DType narrow) const {
    return narrow == DType::kUint64 && uint64_as_ == Uint64As::kOrdered;
  }

  void Convert(const Tensor& narrow, Tensor* wide) const {
    ConvertElements(narrow.dtype, narrow.data, wide->dtype, wide->data, narrow.numel());
    if (Biased(narrow.dtype)) FlipTopBits(wide->data, narrow.numel());
  }

  // The input as the inner kernel sees it: narrow dtypes widened (constants converted now,
  // the others into scratch at every run).
  Status PlanInput(const PlanContext& ctx, int i) {
    PlannedValue& v = values_[i];
    v.shape = ctx.shape(i);
    v.dtype = ctx.dtype(i);
    v.value = ctx.constant(i);
    const DType wide = Wide(v.dtype);
    if (wide == v.dtype) return Status::Ok();
    WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(wide, v.shape, &inputs_[i]));
    if (v.value) {
      Convert(*v.value, &inputs_[i]);
      v.value = &inputs_[i];
    }
    constant_[i] = v.value != nullptr;
    v.dtype = wide;
    return Status::Ok();
  }

  // Outputs follow input 0's dtype: of its wide dtype, they are its narrow one's, computed
  // into scratch.
  Status PlanOutputs(PlanContext& ctx, const PlanContext& wide) {
    const DType first = ctx.dtype(0);
    const DType wide_dtype = Wide(first);
    outputs_.assign(ctx.num_outputs(), Tensor());
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      const PlannedValue& out = wide.outputs()[o];
      if (wide_dtype == first || out.dtype != wide_dtype) {
        ctx.SetOutput(o, out.dtype, out.shape);
        continue;
      }
      ctx.SetOutput(o, first, out.shape);
      WEBNX_RETURN_IF_ERROR(Tensor::AllocateUninitialized(out.dtype, out.shape, &outputs_[o]));
    }
    return Status::Ok();
  }

  // An error about the wide dtype names the dtype the model has.
  Status Explain(const PlanContext& ctx, const Status& s) const {
    if (s.code() != ErrorCode::kUnsupportedDtype) return s;
    return ctx.Error(ErrorCode::kUnsupportedDtype,
                     std::string("does not compute in ") + DTypeName(narrow_) + " (computed as " +
                         DTypeName(Wide(narrow_)) + ": " + s.message() + ")");
  }

  std::unique_ptr<Kernel> inner_;
  Uint64As uint64_as_;
  SmallIntsAs small_ints_as_;
  DType narrow_ = DType::kUndefined;  // the first narrow input dtype of this plan, if any
  std::vector<PlannedValue> values_;  // the inputs as the inner kernel plans them
  std::vector<Tensor> inputs_;        // widened inputs (undefined: taken as they are)
  std::vector<bool> constant_;        // widened once, at plan time
  std::vector<Tensor> outputs_;       // wide outputs converted back (undefined: written as is)
};

}  // namespace

Kernel* WidenNarrowDTypesOf(KernelFactory inner, Uint64As uint64_as, SmallIntsAs small_ints_as) {
  return WidenNarrowDTypes(std::unique_ptr<Kernel>(inner()), uint64_as, small_ints_as);
}

Kernel* WidenNarrowDTypes(std::unique_ptr<Kernel> inner, Uint64As uint64_as,
                          SmallIntsAs small_ints_as) {
  return new WideningKernel(std::move(inner), uint64_as, small_ints_as);
}

}  // namespace webnx
