#include "core/kernel.h"

namespace webnx {

PlanContext::PlanContext(const Node& node, int since_version,
                         std::vector<const PlannedValue*> inputs)
    : node_(node),
      since_version_(since_version),
      attrs_(node),
      inputs_(std::move(inputs)),
      outputs_(node.outputs.size()) {}

void PlanContext::SetOutput(int i, DType dtype, Shape shape) {
  if (i < 0 || i >= num_outputs()) return;
  outputs_[i].dtype = dtype;
  outputs_[i].shape = std::move(shape);
}

Status PlanContext::FloatConstant(int i, const Tensor** out) const {
  *out = constant(i);
  if (!*out || (*out)->dtype != DType::kFloat32) {
    return Error(ErrorCode::kInternal, "input " + std::to_string(i) + " is no float32 constant");
  }
  return Status::Ok();
}

Status PlanContext::DerivedConstant(int i, const std::string& kind, size_t floats,
                                    const ConstantCache::Derive& derive, Tensor* out,
                                    ConstantCache::Placement placement) const {
  const Tensor* source = nullptr;
  WEBNX_RETURN_IF_ERROR(FloatConstant(i, &source));
  ConstantCache uncached;  // knows no initializer: derives into new storage
  return (constants_ ? *constants_ : uncached).Get(*source, kind, floats, derive, out, placement);
}

Status PlanContext::DerivedSplitConstant(int i, const std::string& kind, size_t floats,
                                         size_t granule, const ConstantCache::DeriveSplit& derive,
                                         Tensor* head, Tensor* tail) const {
  const Tensor* source = nullptr;
  WEBNX_RETURN_IF_ERROR(FloatConstant(i, &source));
  ConstantCache uncached;  // knows no initializer: derives into new storage
  return (constants_ ? *constants_ : uncached)
      .GetSplit(*source, kind, floats, granule, derive, head, tail);
}

std::string PlanContext::ConstantRewrittenAs(int i) const {
  const Tensor* source = constant(i);
  return source && constants_ ? constants_->RewrittenAs(*source) : std::string();
}

Status PlanContext::Error(ErrorCode code, const std::string& message) const {
  return Status(code, node_.Describe() + ": " + message);
}

Status PlanContext::ExpectInputs(int min, int max) const {
  if (num_inputs() > max) {
    return Error(ErrorCode::kMalformedModel, "takes at most " + std::to_string(max) +
                                                 " inputs, got " + std::to_string(num_inputs()));
  }
  for (int i = 0; i < min; ++i) {
    if (!has_input(i)) {
      return Error(ErrorCode::kMalformedModel,
                   "required input " + std::to_string(i) + " is missing");
    }
  }
  return Status::Ok();
}

Status PlanContext::ExpectDType(int i, std::initializer_list<DType> allowed) const {
  if (!has_input(i)) {
    return Error(ErrorCode::kMalformedModel, "required input " + std::to_string(i) + " is missing");
  }
  for (DType d : allowed)
    if (dtype(i) == d) return Status::Ok();
  std::string names;
  for (DType d : allowed) names += std::string(names.empty() ? "" : " or ") + DTypeName(d);
  return Error(ErrorCode::kUnsupportedDtype, "input " + std::to_string(i) + " ('" +
                                                 node_.inputs[i] + "') is " + DTypeName(dtype(i)) +
                                                 ", expected " + names);
}

}  // namespace webnx
