#include "core/kernel.h"

namespace webnx {

PlanContext::PlanContext(const Node& node, int since_version,
                         std::vector<const PlannedValue*> inputs)
    : node_(node),
      since_version_(since_version),
      attrs_(node),
      inputs_(std::move(inputs)),
      outputs_(node.outputs.size()) {}

PlanContext PlanContext::WithInputs(std::vector<const PlannedValue*> inputs) const {
  PlanContext other(node_, since_version_, std::move(inputs));
  other.threads_ = threads_;
  other.constants_ = constants_;
  other.subgraphs_ = subgraphs_;
  other.limits_ = limits_;
  return other;
}

void PlanContext::SetOutput(int i, DType dtype, Shape shape) {
  if (i < 0 || i >= num_outputs()) return;
  outputs_[i].dtype = dtype;
  outputs_[i].shape = std::move(shape);
}

Status PlanContext::Form(const ConstantForm& form, DerivedForm* out) const {
  const int i = form.input;
  const PlannedValue* in = has_input(i) ? inputs_[i] : nullptr;
  if (!in || !in->is_constant()) {
    return Error(ErrorCode::kInternal, "input " + std::to_string(i) + " is no constant");
  }
  if (!constants_) return DeriveForm(*in->value, form, out);  // outside a session: no replacing
  return constants_->Get(in->initializer ? *in->initializer : *in->value, form, out);
}

Status PlanContext::Error(ErrorCode code, const std::string& message) const {
  return Status(code, node_.Describe() + ": " + message);
}

Status PlanContext::ExpectInputs(int min, int max) const {
  if (num_inputs() > max) {
    return Error(ErrorCode::kMalformedModel, "takes at most " + std::to_string(max) +
                                                 " inputs, got " + std::to_string(num_inputs()));
  }
  for (int i = 0; i < min; ++i) WEBNX_RETURN_IF_ERROR(ExpectPresent(i));
  return Status::Ok();
}

Status PlanContext::ExpectPresent(int i) const {
  if (has_input(i)) return Status::Ok();
  return Error(ErrorCode::kMalformedModel, "required input " + std::to_string(i) + " is missing");
}

Status PlanContext::ExpectDType(int i, std::initializer_list<DType> allowed) const {
  WEBNX_RETURN_IF_ERROR(ExpectPresent(i));
  for (DType d : allowed) {
    if (dtype(i) == d) {
      AcceptDType(i);
      return Status::Ok();
    }
  }
  std::string names;
  for (DType d : allowed) names += std::string(names.empty() ? "" : " or ") + DTypeName(d);
  return Error(ErrorCode::kUnsupportedDtype, "input " + std::to_string(i) + " ('" +
                                                 node_.inputs[i] + "') is " + DTypeName(dtype(i)) +
                                                 ", expected " + names);
}

Status PlanContext::ExpectAnyDType(int i) const {
  WEBNX_RETURN_IF_ERROR(ExpectPresent(i));
  if (DTypeSize(dtype(i)) == 0) {
    return Error(ErrorCode::kUnsupportedDtype,
                 "input " + std::to_string(i) + " ('" + node_.inputs[i] + "') has no dtype");
  }
  AcceptDType(i);
  return Status::Ok();
}

void PlanContext::AcceptDType(int i) const {
  if (i < 0 || i >= num_inputs()) return;
  if (accepted_.size() < inputs_.size()) accepted_.resize(inputs_.size(), false);
  accepted_[i] = true;
}

bool PlanContext::DTypeAccepted(int i) const {
  return i >= 0 && static_cast<size_t>(i) < accepted_.size() && accepted_[i];
}

void PlanContext::set_graph(const ResolvedGraph* graph) {
  if (!graph) return;
  set_threads(graph->threads);
  constants_ = graph->constants;
  subgraphs_ = &graph->subgraphs;
  limits_ = graph->limits;
}

ResolvedSubgraph* PlanContext::subgraph(const std::string& name) const {
  const Attribute* a = node_.attr(name);
  if (!a || !a->g || !subgraphs_) return nullptr;
  auto it = subgraphs_->find(a->g.get());
  return it == subgraphs_->end() ? nullptr : it->second.get();
}

}  // namespace webnx
