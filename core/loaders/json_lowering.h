// What the webnx-graph op lowering rules write into: the Graph under construction, unique names
// for the values they add, load-time re-layout of constant weights, and the NHWC<->NCHW
// bookkeeping that keeps chains of NHWC ops in NCHW inside.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/loaders/json_loader.h"

namespace webnx {
namespace jsonl {

// Same elements, dims permuted: out dim i is in dim perm[i].
Status PermuteTensor(const Tensor& in, const std::vector<int64_t>& perm, Tensor* out);

class Lowering {
 public:
  // `taken` holds every name the document uses, so added names never collide with them.
  Lowering(Graph* graph, const JsonExternalFiles& files, std::set<std::string> taken);

  Graph& graph() { return *graph_; }
  const JsonExternalFiles& files() const { return files_; }
  int64_t opset() const;

  // The value's contents when it is an initializer (a tensor or a Constant node), else nullptr.
  const Tensor* Constant(const std::string& value) const;
  // A name not used so far, derived from `hint` ("conv1#nchw", "conv1#nchw_2", ...).
  std::string FreshName(const std::string& hint);
  std::string AddInitializer(const std::string& hint, Tensor t);
  std::string AddInt64s(const std::string& hint, const std::vector<int64_t>& values);
  std::string AddScalarFloat(const std::string& hint, float value);
  void Emit(Node node);
  // Emits a default-domain node with the given attributes.
  void Emit(const std::string& op, const std::string& label, std::vector<std::string> inputs,
            std::vector<std::string> outputs, std::map<std::string, Attribute> attrs = {});

  // `value` with dims permuted: constants now (a new initializer), others by a Transpose node.
  std::string Permuted(const std::string& value, const std::vector<int64_t>& perm,
                       const std::string& label);

  // The NCHW form of a 4-D NHWC value: its recorded twin, else a Transpose(0,3,1,2) made once.
  std::string ToNchw(const std::string& nhwc);
  // Defines NHWC `nhwc` as Transpose(0,2,3,1) of `nchw` and records them as twins; the
  // transpose disappears at the end if only NHWC-aware ops read `nhwc`.
  void FromNchw(const std::string& nchw, const std::string& nhwc, const std::string& label);
  // The NCHW twin of a value, or nullptr.
  const std::string* TwinOf(const std::string& nhwc) const;

 private:
  Graph* graph_;
  const JsonExternalFiles& files_;
  std::set<std::string> taken_;
  std::map<std::string, std::string> twins_;  // NHWC value -> NCHW value
};

Attribute IntsAttribute(std::vector<int64_t> v);
Attribute IntAttribute(int64_t v);
Attribute FloatAttribute(float v);

}  // namespace jsonl
}  // namespace webnx
