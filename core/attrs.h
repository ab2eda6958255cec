// Typed, defaulted attribute reads with a sticky error: kernels read every attribute they need
// and check status() once, which names the node, the attribute and what was wrong.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace webnx {

class Attrs {
 public:
  explicit Attrs(const Node& node) : node_(node) {}

  bool Has(const std::string& name) const { return node_.attr(name) != nullptr; }
  int64_t Int(const std::string& name, int64_t fallback);
  float Float(const std::string& name, float fallback);
  std::string String(const std::string& name, const std::string& fallback);
  std::vector<int64_t> Ints(const std::string& name, const std::vector<int64_t>& fallback = {});
  std::vector<float> Floats(const std::string& name, const std::vector<float>& fallback = {});
  const Tensor* TensorAttr(const std::string& name);

  // Records a validation failure found by the kernel itself (first one wins).
  void Fail(const std::string& what);
  const Status& status() const { return status_; }

 private:
  const Attribute* Find(const std::string& name, Attribute::Type want);
  const Node& node_;
  Status status_;
};

}  // namespace webnx
