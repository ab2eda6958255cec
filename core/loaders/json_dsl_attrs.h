// Strict, defaulted reads of a DSL op's attributes (Conv2D, DepthwiseConv2D, BatchNorm, ...):
// each read names the attribute it knows, and Finish() rejects any other one, so a typo such
// as "stride" is an error at its pointer instead of a silently ignored setting.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/loaders/json_webnx.h"

namespace webnx {
namespace jsonl {

class DslAttrs {
 public:
  explicit DslAttrs(const DslNode& node) : node_(node) {}

  bool Has(const char* key) const;
  Status Int(const char* key, int64_t fallback, int64_t* out);
  Status Float(const char* key, float fallback, float* out);
  Status Bool(const char* key, bool fallback, bool* out);
  // Exactly `count` integers, each >= `min`.
  Status Ints(const char* key, size_t count, int64_t min, std::vector<int64_t> fallback,
              std::vector<int64_t>* out);
  // Any number of integers; *present tells whether the attribute was given.
  Status IntList(const char* key, std::vector<int64_t>* out, bool* present);
  // MalformedModel at the first attribute no read asked for.
  Status Finish() const;

 private:
  const Json* Get(const char* key);
  const DslNode& node_;
  std::set<std::string> known_;
};

}  // namespace jsonl
}  // namespace webnx
