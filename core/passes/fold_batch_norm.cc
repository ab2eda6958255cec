// Matches the ops Conv and BatchNormalization (default domain); see fold_batch_norm.h.
#include "core/passes/fold_batch_norm.h"

#include <cmath>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/attrs.h"
#include "core/exclusive_initializers.h"

namespace webnx {
namespace {

// A float32 initializer, or null.
const Tensor* FloatConstant(const Graph& graph, const std::string& name) {
  auto it = graph.initializers.find(name);
  if (it == graph.initializers.end() || it->second.dtype != DType::kFloat32) return nullptr;
  return &it->second;
}

bool IsVectorOf(const Tensor* t, int64_t n) {
  return t && t->shape.size() == 1 && t->shape[0] == n;
}

// The inference form with one statistic per channel: what the fold can express.
bool FoldableBatchNorm(const Node& bn, int since_version, float* epsilon) {
  if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() != 5) {
    return false;
  }
  for (const auto& name : bn.inputs)
    if (name.empty()) return false;
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (!bn.outputs[i].empty()) return false;  // training outputs
  Attrs attrs(bn);
  *epsilon = attrs.Float("epsilon", 1e-5f);
  const bool training = attrs.Int("training_mode", 0) != 0;
  const bool spatial = since_version >= 9 || attrs.Int("spatial", 1) != 0;
  return attrs.status().ok() && !training && spatial && !bn.outputs.empty() &&
         !bn.outputs[0].empty();
}

// A name no value or initializer of the graph uses.
std::string FreshName(const std::set<std::string>& used, const std::string& base) {
  std::string name = base;
  for (int i = 1; used.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

}  // namespace

int FoldBatchNormIntoConv(ResolvedGraph* rg) {
  Graph& graph = rg->graph;
  std::unordered_map<std::string, int> readers;  // graph outputs count as readers
  std::unordered_map<std::string, int> producer;
  std::set<std::string> names;
  for (const auto& kv : graph.initializers) names.insert(kv.first);
  for (const auto& in : graph.inputs) names.insert(in.name);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const auto& name : graph.nodes[n].inputs) ++readers[name];
    for (const auto& name : graph.nodes[n].outputs) {
      producer[name] = static_cast<int>(n);
      names.insert(name);
    }
  }
  for (const auto& out : graph.outputs) ++readers[out.name];
  const InitializerSet exclusive = ExclusiveInitializers(graph);

  std::vector<bool> removed(graph.nodes.size(), false);
  std::set<std::string> replaced;  // initializers that may have no reader left
  int folded = 0;
  for (size_t b = 0; b < graph.nodes.size(); ++b) {
    const Node& bn = graph.nodes[b];
    float epsilon = 0;
    if (!FoldableBatchNorm(bn, rg->since_versions[b], &epsilon)) continue;
    auto from = producer.find(bn.inputs[0]);
    if (from == producer.end() || readers[bn.inputs[0]] != 1) continue;
    Node& conv = graph.nodes[from->second];
    if (conv.op_type != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 ||
        conv.inputs.size() < 2) {
      continue;
    }
    const Tensor* w = FloatConstant(graph, conv.inputs[1]);
    if (!w || w->shape.size() < 3) continue;
    const int64_t channels = w->shape[0];
    if (channels <= 0 || w->numel() == 0) continue;
    const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    const Tensor* bias = has_bias ? FloatConstant(graph, conv.inputs[2]) : nullptr;
    const Tensor* scale = FloatConstant(graph, bn.inputs[1]);
    const Tensor* beta = FloatConstant(graph, bn.inputs[2]);
    const Tensor* mean = FloatConstant(graph, bn.inputs[3]);
    const Tensor* var = FloatConstant(graph, bn.inputs[4]);
    if ((has_bias && !IsVectorOf(bias, channels)) || !IsVectorOf(scale, channels) ||
        !IsVectorOf(beta, channels) || !IsVectorOf(mean, channels) || !IsVectorOf(var, channels)) {
      continue;
    }
    Tensor new_w, new_b;
    if (!Tensor::AllocateUninitialized(DType::kFloat32, {channels}, &new_b).ok()) continue;
    // Weights only this conv can see are scaled in place: the fold then needs no second copy of
    // them (fresh pages cost a page fault each).
    const float* w_data = w->ptr<float>();
    Tensor& w_entry = graph.initializers[conv.inputs[1]];
    if (exclusive.count(&w_entry)) {
      new_w = std::move(w_entry);
    } else if (!Tensor::AllocateUninitialized(DType::kFloat32, w->shape, &new_w).ok()) {
      continue;  // out of memory: the unfolded graph still runs
    }
    const int64_t per_channel = new_w.numel() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      const float s = scale->ptr<float>()[c] / std::sqrt(var->ptr<float>()[c] + epsilon);
      const float* src = w_data + c * per_channel;
      float* dst = new_w.ptr<float>() + c * per_channel;
      for (int64_t i = 0; i < per_channel; ++i) dst[i] = src[i] * s;
      const float b0 = has_bias ? bias->ptr<float>()[c] : 0.f;
      new_b.ptr<float>()[c] = (b0 - mean->ptr<float>()[c]) * s + beta->ptr<float>()[c];
    }
    for (size_t i = 1; i < conv.inputs.size(); ++i) replaced.insert(conv.inputs[i]);
    for (size_t i = 1; i < bn.inputs.size(); ++i) replaced.insert(bn.inputs[i]);
    const std::string w_name = FreshName(names, bn.outputs[0] + "/folded_W");
    names.insert(w_name);
    const std::string b_name = FreshName(names, bn.outputs[0] + "/folded_B");
    names.insert(b_name);
    graph.initializers[w_name] = std::move(new_w);
    graph.initializers[b_name] = std::move(new_b);
    for (size_t i = 1; i < conv.inputs.size(); ++i) --readers[conv.inputs[i]];
    for (size_t i = 1; i < bn.inputs.size(); ++i) --readers[bn.inputs[i]];
    conv.inputs.resize(3);
    conv.inputs[1] = w_name;
    conv.inputs[2] = b_name;
    conv.outputs[0] = bn.outputs[0];
    producer[bn.outputs[0]] = from->second;
    removed[b] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  std::vector<Node> kept;
  std::vector<int> kept_versions;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (removed[n]) continue;
    kept.push_back(std::move(graph.nodes[n]));
    kept_versions.push_back(rg->since_versions[n]);
  }
  graph.nodes = std::move(kept);
  rg->since_versions = std::move(kept_versions);
  for (const auto& name : replaced)
    if (readers[name] <= 0) graph.initializers.erase(name);
  return folded;
}

}  // namespace webnx
