#include "kernels/subgraph_runner.h"

#include <cstring>

namespace webnx {

Status SubgraphRunner::Plan(ResolvedSubgraph& sub, const std::vector<PlannedValue>& inputs,
                            const std::string& where) {
  where_ = where;
  const Graph& graph = sub.rg.graph;
  if (inputs.size() != graph.inputs.size()) {
    return Status(ErrorCode::kMalformedModel,
                  where + " takes " + std::to_string(graph.inputs.size()) +
                      " inputs; the node gives it " + std::to_string(inputs.size()));
  }
  std::vector<Tensor> shapes(inputs.size());
  std::vector<const Tensor*> tensors;
  std::vector<bool> specialize;
  for (size_t j = 0; j < inputs.size(); ++j) {
    const PlannedValue& pv = inputs[j];
    const DType declared = graph.inputs[j].dtype;
    if (declared != DType::kUndefined && declared != pv.dtype) {
      return Status(ErrorCode::kMalformedModel, where + " declares input '" + graph.inputs[j].name +
                                                    "' " + DTypeName(declared) + " but is given " +
                                                    DTypeName(pv.dtype));
    }
    shapes[j] = Tensor::Borrow(pv.dtype, pv.shape, nullptr);
    tensors.push_back(pv.value ? pv.value : &shapes[j]);
    specialize.push_back(pv.value != nullptr);
  }
  Status s = webnx::Plan::Build(sub.rg, OpRegistry::Default(), tensors, specialize, {}, &plan_);
  if (!s.ok()) return Status(s.code(), where + ": " + s.message());
  if (plan_->outputs_follow_data()) {
    return Status(ErrorCode::kUnsupportedOperator,
                  where +
                      ": a node's output shapes follow its data (NonZero, Unique...), and "
                      "webnx plans a subgraph's outputs when it plans the node");
  }
  inputs_.assign(inputs.size(), nullptr);
  results_.assign(graph.outputs.size(), nullptr);
  return Status::Ok();
}

Status SubgraphRunner::Run() {
  Status s = plan_->Run(inputs_, &results_);
  if (!s.ok()) return Status(s.code(), where_ + ": " + s.message());
  return Status::Ok();
}

Status CapturedInputPositions(const PlanContext& ctx, const ResolvedSubgraph& sub, size_t first,
                              std::vector<int>* positions) {
  const Node& node = ctx.node();
  const int own = static_cast<int>(node.inputs.size()) - node.captured_inputs;
  positions->clear();
  for (size_t j = first; j < sub.rg.graph.inputs.size(); ++j) {
    const std::string& name = sub.rg.graph.inputs[j].name;
    int found = -1;
    for (int i = own; i < static_cast<int>(node.inputs.size()) && found < 0; ++i)
      if (node.inputs[i] == name) found = i;
    if (found < 0) {
      return ctx.Error(ErrorCode::kInternal,
                       "a subgraph reads '" + name + "', which the node does not capture");
    }
    positions->push_back(found);
  }
  return Status::Ok();
}

PlannedValue PlannedInput(const PlanContext& ctx, int i) {
  return PlannedValue{ctx.dtype(i), ctx.shape(i), ctx.constant(i)};
}

void CopyTensor(const Tensor& from, Tensor& to) {
  if (from.data != to.data && to.nbytes() > 0) std::memcpy(to.data, from.data, to.nbytes());
}

}  // namespace webnx
