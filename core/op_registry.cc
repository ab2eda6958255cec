#include "core/op_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace webnx {
namespace {

// Why a registration is malformed, or "" when it is not.
std::string RegistrationError(std::initializer_list<OpVersions> groups,
                              const std::map<int, OpArity>& versions) {
  if (groups.size() == 0) return "lists no versions";
  size_t listed = 0;
  for (const OpVersions& group : groups) {
    if (group.since.size() == 0) return "has a group of counts with no versions";
    for (int v : group.since) {
      if (v < 1) return "lists since-version " + std::to_string(v);
    }
    listed += group.since.size();
    const OpArity a = group.arity();
    if (a.min_inputs < 0 || a.min_inputs > a.max_inputs || a.min_outputs < 0 ||
        a.min_outputs > a.max_outputs) {
      return "declares impossible counts for version " + std::to_string(*group.since.begin());
    }
  }
  if (listed != versions.size()) return "lists a since-version twice";
  return "";
}

}  // namespace

void OpRegistry::Register(const char* domain, const char* op_type,
                          std::initializer_list<OpVersions> groups, KernelFactory factory) {
  Entry entry{{}, factory};
  for (const OpVersions& group : groups) {
    for (int v : group.since) entry.versions[v] = group.arity();
  }
  const std::string error = RegistrationError(groups, entry.versions);
  if (!error.empty() || factory == nullptr) {
    std::fprintf(stderr, "webnx: the registration of %s%s%s %s\n", domain, *domain ? ":" : "",
                 op_type, error.empty() ? "has no kernel factory" : error.c_str());
    std::abort();
  }
  ops_[{domain, op_type}] = std::move(entry);
}

void OpRegistry::Register(const char* domain, const char* op_type, OpVersions versions,
                          KernelFactory factory) {
  Register(domain, op_type, {versions}, factory);
}

bool OpRegistry::Knows(const std::string& domain, const std::string& op_type) const {
  return ops_.count({domain, op_type}) != 0;
}

int OpRegistry::Resolve(const std::string& domain, const std::string& op_type,
                        int64_t opset) const {
  auto it = ops_.find({domain, op_type});
  if (it == ops_.end()) return 0;
  int best = 0;
  for (const auto& version : it->second.versions)
    if (version.first <= opset) best = version.first;
  return best;
}

std::vector<int> OpRegistry::Versions(const std::string& domain, const std::string& op_type) const {
  std::vector<int> versions;
  auto it = ops_.find({domain, op_type});
  if (it == ops_.end()) return versions;
  for (const auto& version : it->second.versions) versions.push_back(version.first);
  return versions;
}

std::unique_ptr<Kernel> OpRegistry::Create(const std::string& domain,
                                           const std::string& op_type) const {
  auto it = ops_.find({domain, op_type});
  return std::unique_ptr<Kernel>(it == ops_.end() ? nullptr : it->second.factory());
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

std::vector<OpSchema> OpRegistry::Schemas() const {
  std::vector<OpSchema> schemas;  // ops_ and each op's versions are already in order
  for (const auto& op : ops_) {
    for (const auto& version : op.second.versions)
      schemas.push_back(OpSchema{op.first.first, op.first.second, version.first, version.second});
  }
  return schemas;
}

Status OpRegistry::CheckArity(const Node& node, int since_version) const {
  auto op = ops_.find({node.domain, node.op_type});
  const std::string op_version = node.op_type + "-" + std::to_string(since_version);
  if (op == ops_.end() || op->second.versions.count(since_version) == 0) {
    return Status(ErrorCode::kInternal,
                  node.Describe() + " checked against " + op_version + ", which is not registered");
  }
  const OpArity& a = op->second.versions.at(since_version);
  auto range = [](int lo, int hi) {
    if (hi == OpArity::kVariadic) return std::to_string(lo) + " or more";
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  };
  // Inputs the node's subgraphs read from this graph are not the op's own (CaptureOuterScope).
  const int ins = static_cast<int>(node.inputs.size()) - node.captured_inputs;
  const int outs = static_cast<int>(node.outputs.size());
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
