#include "core/op_registry.h"

#include <algorithm>

namespace webnx {

void OpRegistry::Register(const std::string& domain, const std::string& op_type,
                          std::vector<int> since_versions, KernelFactory factory) {
  std::sort(since_versions.begin(), since_versions.end());
  ops_[{domain, op_type}] = Entry{std::move(since_versions), std::move(factory)};
}

bool OpRegistry::Knows(const std::string& domain, const std::string& op_type) const {
  return ops_.count({domain, op_type}) != 0;
}

int OpRegistry::Resolve(const std::string& domain, const std::string& op_type,
                        int64_t opset) const {
  auto it = ops_.find({domain, op_type});
  if (it == ops_.end()) return 0;
  int best = 0;
  for (int v : it->second.versions)
    if (v <= opset) best = v;
  return best;
}

std::vector<int> OpRegistry::Versions(const std::string& domain, const std::string& op_type) const {
  auto it = ops_.find({domain, op_type});
  return it == ops_.end() ? std::vector<int>{} : it->second.versions;
}

std::unique_ptr<Kernel> OpRegistry::Create(const std::string& domain,
                                           const std::string& op_type) const {
  auto it = ops_.find({domain, op_type});
  return it == ops_.end() ? nullptr : it->second.factory();
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  for (const auto& kv : ops_) {
    names.push_back(kv.first.first.empty() ? kv.first.second
                                           : kv.first.first + ":" + kv.first.second);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void OpRegistry::SetArity(const std::string& domain, const std::string& op_type, int since_version,
                          OpArity arity) {
  arities_[{domain, op_type}][since_version] = arity;
}

Status OpRegistry::CheckArity(const Node& node, int since_version) const {
  auto op = arities_.find({node.domain, node.op_type});
  if (op == arities_.end()) return Status::Ok();
  auto it = op->second.find(since_version);
  if (it == op->second.end()) return Status::Ok();
  const OpArity& a = it->second;
  auto range = [](int lo, int hi) {
    if (hi == OpArity::kVariadic) return std::to_string(lo) + " or more";
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  };
  const int ins = static_cast<int>(node.inputs.size());
  const int outs = static_cast<int>(node.outputs.size());
  const std::string op_version = node.op_type + "-" + std::to_string(since_version);
  if (ins < a.min_inputs || ins > a.max_inputs) {
    return Status(ErrorCode::kMalformedModel, node.Describe() + " has " + std::to_string(ins) +
                                                  " inputs; " + op_version + " takes " +
                                                  range(a.min_inputs, a.max_inputs));
  }
  if (outs < a.min_outputs || outs > a.max_outputs) {
    return Status(ErrorCode::kMalformedModel, node.Describe() + " has " + std::to_string(outs) +
                                                  " outputs; " + op_version + " produces " +
                                                  range(a.min_outputs, a.max_outputs));
  }
  // Kernels write their required outputs unconditionally: those must be named. (Required
  // inputs may be "": Resize-11 takes "" for the scales it does not use.)
  for (int i = 0; i < a.min_outputs; ++i) {
    if (node.outputs[i].empty()) {
      return Status(ErrorCode::kMalformedModel, node.Describe() + " leaves its required output " +
                                                    std::to_string(i) + " unnamed");
    }
  }
  return Status::Ok();
}

const OpRegistry& OpRegistry::Default() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinKernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace webnx
