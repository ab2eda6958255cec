// The op registry: (domain, op_type, since_version) -> kernel factory and the input/output
// counts the spec allows for that version. The core resolves a node to the newest registered
// version not above the model's opset for the node's domain.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel.h"

namespace webnx {

// A plain function rather than std::function: registering ~150 ops then runs no per-op code
// (in wasm, each std::function type brought its own functions to compile on first use). It
// returns a new kernel that the caller owns (OpRegistry::Create wraps it at once): a factory
// returning std::unique_ptr was twice the code, ~130 bytes for each of ~200 factories.
using KernelFactory = Kernel* (*)();

// The factory of a kernel class with a default constructor.
template <typename K>
Kernel* MakeKernel() {
  return new K();
}

// Input and output counts the spec allows for one op version (positions, "" included).
struct OpArity {
  static constexpr int kVariadic = 2147483647;
  int min_inputs = 0;
  int max_inputs = kVariadic;
  int min_outputs = 0;
  int max_outputs = kVariadic;
};

// How many inputs (or outputs) an op version takes, at a registration: Inputs(2),
// Inputs(1, 3) or Inputs::AtLeast(1). Two types, so the two counts cannot be swapped.
template <bool kInputs>
struct PositionCount {
  constexpr explicit PositionCount(int n) : min(n), max(n) {}
  constexpr PositionCount(int min_count, int max_count) : min(min_count), max(max_count) {}
  static constexpr PositionCount AtLeast(int n) { return {n, OpArity::kVariadic}; }
  int min;
  int max;
};
using Inputs = PositionCount<true>;
using Outputs = PositionCount<false>;

// Since-versions of an op that share one arity. An aggregate of lists, not vectors: a
// registration is then constant data, not code, and the lists live as long as the braced
// registration that holds them (they are read during the Register call only).
struct OpVersions {
  std::initializer_list<int> since;
  Inputs inputs;
  Outputs outputs;

  OpArity arity() const { return OpArity{inputs.min, inputs.max, outputs.min, outputs.max}; }
};

// One registered op version, for documentation and tests.
struct OpSchema {
  std::string domain;
  std::string op_type;
  int since_version = 0;
  OpArity arity;
};

class OpRegistry {
 public:
  // Registers one implementation for every listed since-version of the op (the versions in
  // which the ONNX spec changed it), each with the input/output counts the spec gives it:
  //   r.Register("", "Add", {{7, 13, 14}, Inputs(2), Outputs(1)}, MakeBinary<...>);
  //   r.Register("", "Clip", {{{6}, Inputs(1), Outputs(1)},
  //                           {{11, 12, 13}, Inputs(1, 3), Outputs(1)}}, MakeKernel<ClipKernel>);
  // The kernel reads the resolved version from PlanContext. No versions, a version listed
  // twice or an impossible count is a bug in the registration: Register aborts, naming it.
  // (const char*: the registration calls then build no strings of their own.)
  void Register(const char* domain, const char* op_type, std::initializer_list<OpVersions> versions,
                KernelFactory factory);
  void Register(const char* domain, const char* op_type, OpVersions versions,
                KernelFactory factory);

  bool Knows(const std::string& domain, const std::string& op_type) const;
  // Newest registered since-version <= opset, or 0 when the op is unknown or only newer
  // versions are registered.
  int Resolve(const std::string& domain, const std::string& op_type, int64_t opset) const;
  // Registered since-versions of an op, ascending (empty when unknown).
  std::vector<int> Versions(const std::string& domain, const std::string& op_type) const;
  std::unique_ptr<Kernel> Create(const std::string& domain, const std::string& op_type) const;
  // MalformedModel naming the node when its input or output count is outside the arity
  // registered for `since_version`; Internal when that version is not registered.
  Status CheckArity(const Node& node, int since_version) const;
  // "op_type" for the default domain, "domain:op_type" otherwise; sorted.
  std::vector<std::string> OpNames() const;
  // Every registered op version with its counts, sorted by domain, op_type, since_version.
  std::vector<OpSchema> Schemas() const;

  // The op that converts a value to another dtype, its int attribute `dtype_attribute` naming
  // the target as ONNX numbers dtypes: load-time passes that change a value's dtype insert it.
  struct Conversion {
    const char* domain = nullptr;
    const char* op_type = nullptr;
    const char* dtype_attribute = nullptr;
  };
  void RegisterConversion(const Conversion& conversion) { conversion_ = conversion; }
  const Conversion& conversion() const { return conversion_; }

  // The registry with every kernel in kernels/ registered.
  static const OpRegistry& Default();

 private:
  struct Entry {
    std::map<int, OpArity> versions;  // since-version -> counts
    KernelFactory factory;
  };
  std::map<std::pair<std::string, std::string>, Entry> ops_;
  Conversion conversion_;
};

// Defined in kernels/: registers every built-in op.
void RegisterBuiltinKernels(OpRegistry& registry);

}  // namespace webnx
