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

const OpRegistry& OpRegistry::Default() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinKernels(*r);
    return r;
  }();
  return *registry;
}

}  // namespace webnx
