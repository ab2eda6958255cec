#include "core/passes/fold_channel_affine.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/exclusive_initializers.h"
#include "core/graph_index.h"

namespace webnx {
namespace {

const Tensor* FloatInput(const std::vector<const Tensor*>& constants, int i) {
  const Tensor* t = i >= 0 && i < static_cast<int>(constants.size()) ? constants[i] : nullptr;
  return t && t->dtype == DType::kFloat32 ? t : nullptr;
}

// An affine node and the node it folds into, as the kernels declared them.
struct Fold {
  ChannelAffine affine;
  int producer = -1;
  AffineAbsorber absorber;
  const Tensor* bias = nullptr;
};

bool IsAffine(const ResolvedGraph& rg, const OpRegistry& registry, size_t a, Fold* fold) {
  const Node& node = rg.graph.nodes[a];
  std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
  if (!kernel || node.inputs.empty() || node.outputs.empty() || node.outputs[0].empty())
    return false;
  FormContext ctx(node, rg.since_versions[a], ConstantInputs(rg.graph, node));
  return kernel->IsChannelAffine(ctx, &fold->affine);
}

// The node whose only output `value` is, when it absorbs an affine with constant parameters.
bool FindAbsorber(const ResolvedGraph& rg, const OpRegistry& registry, const GraphIndex& index,
                  const std::string& value, Fold* fold) {
  const int p = index.Producer(value);
  if (p < 0 || index.Readers(value) != 1) return false;
  const Node& node = rg.graph.nodes[p];
  std::unique_ptr<Kernel> kernel = registry.Create(node.domain, node.op_type);
  const std::vector<const Tensor*> constants = ConstantInputs(rg.graph, node);
  FormContext ctx(node, rg.since_versions[p], constants);
  AffineAbsorber& absorber = fold->absorber;
  if (!kernel || node.outputs.size() != 1 || !kernel->AbsorbsChannelAffine(ctx, &absorber) ||
      absorber.bias_input < 1 || !FloatInput(constants, absorber.weight_input)) {
    return false;
  }
  const bool has_bias = absorber.bias_input < static_cast<int>(node.inputs.size()) &&
                        !node.inputs[absorber.bias_input].empty();
  fold->bias = has_bias ? FloatInput(constants, absorber.bias_input) : nullptr;
  fold->producer = p;
  return !has_bias || fold->bias;
}

// The folded weights and bias, or false (shapes that do not match, out of memory).
bool FoldedParameters(const Fold& fold, Tensor* w_entry, bool w_exclusive, Tensor* new_w,
                      Tensor* new_b) {
  const ChannelAffine& affine = fold.affine;
  const Tensor* bias = fold.bias;
  const int64_t channels = static_cast<int64_t>(affine.scale.size());
  if (w_entry->shape.empty() || w_entry->shape[0] != channels || w_entry->numel() == 0)
    return false;
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != channels)) return false;
  if (!Tensor::AllocateUninitialized(DType::kFloat32, {channels}, new_b).ok()) return false;
  const float* w_data = w_entry->ptr<float>();
  if (w_exclusive) {
    *new_w = std::move(*w_entry);  // scaled in place: no second copy (fresh pages fault)
  } else if (!Tensor::AllocateUninitialized(DType::kFloat32, w_entry->shape, new_w).ok()) {
    return false;  // out of memory: the unfolded graph still runs
  }
  const int64_t per_channel = new_w->numel() / channels;
  for (int64_t c = 0; c < channels; ++c) {
    const float s = affine.scale[c];
    const float* src = w_data + c * per_channel;
    float* dst = new_w->ptr<float>() + c * per_channel;
    for (int64_t i = 0; i < per_channel; ++i) dst[i] = src[i] * s;
    const float b0 = bias ? bias->ptr<float>()[c] : 0.f;
    new_b->ptr<float>()[c] = (b0 - affine.center[c]) * s + affine.shift[c];
  }
  return true;
}

// Points the producer at its folded parameters and the affine's output; the old parameters
// lose a reader each.
void Rewire(Graph* graph, GraphIndex* index, const Fold& fold, const Node& affine_node,
            std::set<std::string>* names, Tensor new_w, Tensor new_b,
            std::set<std::string>* maybe_unread) {
  Node& producer = graph->nodes[fold.producer];
  for (size_t i = 1; i < producer.inputs.size(); ++i) {
    maybe_unread->insert(producer.inputs[i]);
    index->AddReaders(producer.inputs[i], -1);
  }
  for (size_t i = 1; i < affine_node.inputs.size(); ++i) {
    maybe_unread->insert(affine_node.inputs[i]);
    index->AddReaders(affine_node.inputs[i], -1);
  }
  const std::string& y = affine_node.outputs[0];
  const std::string w_name = FreshName(names, y + "/folded_W");
  const std::string b_name = FreshName(names, y + "/folded_B");
  graph->initializers[w_name] = std::move(new_w);
  graph->initializers[b_name] = std::move(new_b);
  const size_t bias_input = static_cast<size_t>(fold.absorber.bias_input);
  if (producer.inputs.size() <= bias_input) producer.inputs.resize(bias_input + 1);
  producer.inputs[fold.absorber.weight_input] = w_name;
  producer.inputs[bias_input] = b_name;
  producer.outputs[0] = y;
  index->SetProducer(y, fold.producer);
}

}  // namespace

int FoldChannelAffines(ResolvedGraph* rg, const OpRegistry& registry) {
  Graph& graph = rg->graph;
  GraphIndex index(graph);
  const InitializerSet exclusive = ExclusiveInitializers(graph);
  std::set<std::string> names = ValueNames(graph);
  std::vector<bool> removed(graph.nodes.size(), false);
  std::set<std::string> maybe_unread;  // initializers that may have no reader left
  int folded = 0;
  for (size_t a = 0; a < graph.nodes.size(); ++a) {
    Fold fold;
    const Node& affine_node = graph.nodes[a];
    if (!IsAffine(*rg, registry, a, &fold) ||
        !FindAbsorber(*rg, registry, index, affine_node.inputs[0], &fold)) {
      continue;
    }
    const Node& producer = graph.nodes[fold.producer];
    Tensor& w_entry = graph.initializers[producer.inputs[fold.absorber.weight_input]];
    Tensor new_w, new_b;
    if (!FoldedParameters(fold, &w_entry, exclusive.count(&w_entry) > 0, &new_w, &new_b)) continue;
    Rewire(&graph, &index, fold, affine_node, &names, std::move(new_w), std::move(new_b),
           &maybe_unread);
    removed[a] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  rg->RemoveNodes(removed);
  for (const auto& name : maybe_unread)
    if (index.Readers(name) <= 0) graph.initializers.erase(name);
  return folded;
}

}  // namespace webnx
