// The op registry: (domain, op_type, since_version) -> kernel factory. The core resolves a node
// to the newest registered version not above the model's opset for the node's domain.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx {

// A plain function rather than std::function: registering ~150 ops then runs no per-op code
// (in wasm, each std::function type brought its own functions to compile on first use).
using KernelFactory = std::unique_ptr<Kernel> (*)();

// The factory of a kernel class with a default constructor.
template <typename K>
std::unique_ptr<Kernel> MakeKernel() {
  return std::make_unique<K>();
}

// Input and output counts the spec allows for one op version (positions, "" included).
struct OpArity {
  static constexpr int kVariadic = 2147483647;
  int min_inputs = 0;
  int max_inputs = kVariadic;
  int min_outputs = 0;
  int max_outputs = kVariadic;
};

class OpRegistry {
 public:
  // Registers one implementation for every listed since-version of the op (the versions in
  // which the ONNX spec changed it). The kernel reads the resolved one from PlanContext.
  void Register(const std::string& domain, const std::string& op_type,
                std::vector<int> since_versions, KernelFactory factory);

  bool Knows(const std::string& domain, const std::string& op_type) const;
  // Newest registered since-version <= opset, or 0 when the op is unknown or only newer
  // versions are registered.
  int Resolve(const std::string& domain, const std::string& op_type, int64_t opset) const;
  // Registered since-versions of an op, ascending (empty when unknown).
  std::vector<int> Versions(const std::string& domain, const std::string& op_type) const;
  std::unique_ptr<Kernel> Create(const std::string& domain, const std::string& op_type) const;
  // The counts of one since-version, checked at load; ops without one are checked by their
  // kernel at plan time.
  void SetArity(const std::string& domain, const std::string& op_type, int since_version,
                OpArity arity);
  // MalformedModel naming the node when its input or output count is outside the arity
  // registered for `since_version`.
  Status CheckArity(const Node& node, int since_version) const;
  // "op_type" for the default domain, "domain:op_type" otherwise; sorted.
  std::vector<std::string> OpNames() const;

  // The registry with every kernel in kernels/ registered.
  static const OpRegistry& Default();

 private:
  struct Entry {
    std::vector<int> versions;
    KernelFactory factory;
  };
  std::map<std::pair<std::string, std::string>, Entry> ops_;
  std::map<std::pair<std::string, std::string>, std::map<int, OpArity>> arities_;
};

// Defined in kernels/: registers every built-in op.
void RegisterBuiltinKernels(OpRegistry& registry);

}  // namespace webnx
