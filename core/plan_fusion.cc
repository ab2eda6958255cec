// Fusion while a plan is built: a node whose work an earlier step can do in its epilogue needs
// no step of its own. What may fuse is data the kernels declare (core/epilogue.h: each node's
// EpilogueStage, each producer's Epilogue) and Kernel::FuseConsumer; the core names no op.
#include <algorithm>

#include "core/plan_builder.h"

namespace webnx {

int Plan::Builder::Producer(const std::string& value) const {
  auto it = first_output_of_step_.find(value);
  return it == first_output_of_step_.end() ? -1 : it->second;
}

int Plan::Builder::WrittenAt(const std::string& value) const {
  const int producer = Producer(value);
  if (producer >= 0) return producer;
  auto it = other_output_of_step_.find(value);
  return it == other_output_of_step_.end() ? -1 : it->second;
}

int Plan::Builder::SoleReaderProducer(const std::string& value) const {
  return index_.Readers(value) == 1 ? Producer(value) : -1;
}

int Plan::Builder::ElementwiseProducer(const Node& node, const PlannedOutputs& outputs) const {
  if (node.inputs.empty() || node.outputs.size() != 1) return -1;
  const int producer = SoleReaderProducer(node.inputs[0]);
  if (producer < 0) return -1;
  const Tensor* produced = plan_->steps_[producer].outputs[0];
  if (produced->dtype != outputs[0].dtype || produced->shape != outputs[0].shape) return -1;
  return producer;
}

Epilogue* Plan::Builder::EpilogueOf(int step) const {
  return step < 0 ? nullptr : plan_->steps_[step].kernel->epilogue();
}

bool Plan::Builder::TryFuseClamp(const Node& node, const EpilogueStage& stage,
                                 const PlannedOutputs& outputs) {
  if (stage.kind != EpilogueStage::Kind::kClamp) return false;
  Epilogue* epilogue = EpilogueOf(ElementwiseProducer(node, outputs));
  return epilogue && epilogue->AddClamp(stage.lo, stage.hi);
}

int Plan::Builder::TryFuseSum(const Node& node, const EpilogueStage& stage,
                              const PlannedOutputs& outputs, const PlannedInputs& inputs,
                              int* addend_input) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 ||
      stage.kind != EpilogueStage::Kind::kSum) {
    return -1;
  }
  if (!inputs[0] || !inputs[1] || inputs[0]->shape != inputs[1]->shape ||
      inputs[0]->shape != outputs[0].shape) {
    return -1;
  }
  // The step to fuse into is the later producer of the two: the other input must exist by
  // the time it runs (written by an earlier step: a view, or another output of a step, counts
  // too), and its output must have no reader but this sum.
  int best = -1, addend = -1;
  for (int i = 0; i < 2; ++i) {
    const int producer = SoleReaderProducer(node.inputs[i]);
    if (producer > best) {
      best = producer;
      addend = 1 - i;
    }
  }
  if (best < 0 || WrittenAt(node.inputs[addend]) >= best) return -1;
  Step& step = plan_->steps_[best];
  const Tensor* produced = step.outputs[0];
  if (produced->dtype != DType::kFloat32 || produced->shape != outputs[0].shape) return -1;
  Epilogue* epilogue = step.kernel->epilogue();
  if (!epilogue || !epilogue->AddAddend()) return -1;
  const int slot = epilogue->addend_input;
  if (step.inputs.size() <= static_cast<size_t>(slot)) step.inputs.resize(slot + 1, nullptr);
  const PlannedValue* value = inputs[addend];
  step.inputs[slot] = value->value ? value->value : Slot(node.inputs[addend]);
  *addend_input = addend;
  return best;
}

bool Plan::Builder::TryFuseFunction(const Node& node, const EpilogueStage& stage,
                                    const PlannedOutputs& outputs) {
  if (node.inputs.size() != 1 || stage.kind != EpilogueStage::Kind::kFunction) return false;
  Epilogue* epilogue = EpilogueOf(ElementwiseProducer(node, outputs));
  return epilogue && epilogue->AddFunction(stage.function);
}

int Plan::Builder::TryFuseGated(const Node& node, const EpilogueStage& stage,
                                const PlannedOutputs& outputs, std::string* gate_output) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 ||
      stage.kind != EpilogueStage::Kind::kProduct || plan_->steps_.empty()) {
    return -1;
  }
  const Step& gate = plan_->steps_.back();
  const EpilogueStage gate_stage = gate.kernel->AsEpilogueStage();
  EpilogueFunction f = gate_stage.function;
  if (gate.node->inputs.size() != 1 || gate.node->outputs.size() != 1 ||
      gate_stage.kind != EpilogueStage::Kind::kFunction || f.gated) {
    return -1;
  }
  const std::string& x = gate.node->inputs[0];
  const std::string& fx = gate.node->outputs[0];
  int x_input = -1;
  if (node.inputs[0] == x && node.inputs[1] == fx) x_input = 0;
  if (node.inputs[1] == x && node.inputs[0] == fx) x_input = 1;
  // x is read by f and the product only, f(x) by the product only.
  if (x_input < 0 || index_.Readers(x) != 2 || index_.Readers(fx) != 1) return -1;
  const int producer = Producer(x);
  if (producer < 0) return -1;
  Step& step = plan_->steps_[producer];
  const Tensor* produced = step.outputs[0];
  if (produced->dtype != DType::kFloat32 || produced->shape != outputs[0].shape) return -1;
  f.gated = true;
  Epilogue* epilogue = step.kernel->epilogue();
  if (!epilogue || !epilogue->AddFunction(f)) return -1;
  *gate_output = fx;
  plan_->steps_.pop_back();
  return x_input;
}

int Plan::Builder::TryFuseConsumer(const Node& node, std::unique_ptr<Kernel>& kernel,
                                   const PlannedInputs& inputs) {
  if (node.inputs.empty() || node.inputs[0].empty() || node.outputs.size() != 1) return -1;
  for (size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i] && !inputs[i]->is_constant()) return -1;
  const int producer = SoleReaderProducer(node.inputs[0]);
  if (producer < 0 || plan_->steps_[producer].outputs.size() != 1) return -1;
  return plan_->steps_[producer].kernel->FuseConsumer(kernel) ? producer : -1;
}

bool Plan::Builder::TryFuse(const Node& node, std::unique_ptr<Kernel>& kernel,
                            const PlannedInputs& in_planned, const PlannedOutputs& out_planned) {
  const EpilogueStage stage = kernel->AsEpilogueStage();
  if (TryFuseClamp(node, stage, out_planned)) {
    OutputIsBufferOf(node, out_planned[0], node.inputs[0]);  // clamped in the producer's epilogue
    return true;
  }
  if (TryFuseFunction(node, stage, out_planned)) {
    OutputIsBufferOf(node, out_planned[0], node.inputs[0]);
    return true;
  }
  std::string gate_output;
  const int gated_input = TryFuseGated(node, stage, out_planned, &gate_output);
  if (gated_input >= 0) {
    buffers_.Drop(gate_output);  // the dropped gate step's output
    first_output_of_step_.erase(gate_output);
    ++plan_->stats_.fused_nodes;
    OutputIsBufferOf(node, out_planned[0], node.inputs[gated_input]);
    return true;
  }

  int addend_input = -1;
  const int sum_into = TryFuseSum(node, stage, out_planned, in_planned, &addend_input);
  if (sum_into >= 0) {
    // The step adds the other input in its epilogue: this node's output is its buffer, and
    // the other input's buffer must live until that step.
    buffers_.ReadAt(node.inputs[addend_input], sum_into);
    OutputIsBufferOf(node, out_planned[0], node.inputs[1 - addend_input]);
    first_output_of_step_[node.outputs[0]] = sum_into;  // a clamp after the sum can fuse too
    return true;
  }

  const int consumed_by = TryFuseConsumer(node, kernel, in_planned);
  if (consumed_by >= 0) {
    // That step now writes this node's output; the value between them is never stored.
    buffers_.Drop(node.inputs[0]);
    first_output_of_step_.erase(node.inputs[0]);
    Tensor& slot = DeclareOutput(node.outputs[0], out_planned[0]);
    plan_->steps_[consumed_by].outputs[0] = &slot;
    first_output_of_step_[node.outputs[0]] = consumed_by;
    buffers_.Add(node.outputs[0], &slot, consumed_by);
    ++plan_->stats_.fused_nodes;
    return true;
  }
  return false;
}

void Plan::Builder::OutputIsBufferOf(const Node& node, const PlannedValue& planned,
                                     const std::string& source) {
  Tensor& slot = DeclareOutput(node.outputs[0], planned);
  buffers_.Share(node.outputs[0], source, &slot);
  // Later fusions see the step as this node's producer.
  auto producer = first_output_of_step_.find(source);
  if (producer != first_output_of_step_.end())
    first_output_of_step_[node.outputs[0]] = producer->second;
  ++plan_->stats_.fused_nodes;
}

}  // namespace webnx
