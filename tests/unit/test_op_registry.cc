// OpRegistry (core/op_registry.h): each registered op version carries the input/output counts
// declared at its registration; CheckArity holds nodes to them and never passes a version the
// registry does not have.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/op_registry.h"

namespace webnx::testing {
namespace {

Kernel* NoKernel() {
  return nullptr;
}

Node MakeNode(const std::string& op_type, int inputs, int outputs) {
  Node node;
  node.name = "n";
  node.op_type = op_type;
  for (int i = 0; i < inputs; ++i) node.inputs.push_back("in" + std::to_string(i));
  for (int i = 0; i < outputs; ++i) node.outputs.push_back("out" + std::to_string(i));
  return node;
}

// Every registered version of the default registry has counts the spec could mean, and a
// node with exactly the fewest inputs and outputs it takes passes while one fewer fails.
TEST(OpRegistry, EveryRegisteredOpVersionHasAnArity) {
  const OpRegistry& registry = OpRegistry::Default();
  std::set<std::string> with_schemas;
  size_t versions = 0;
  for (const OpSchema& s : registry.Schemas()) {
    const std::string name = s.op_type + "-" + std::to_string(s.since_version);
    with_schemas.insert(s.domain.empty() ? s.op_type : s.domain + ":" + s.op_type);
    const OpArity& a = s.arity;
    EXPECT_GE(a.min_inputs, 0) << name;
    EXPECT_LE(a.min_inputs, a.max_inputs) << name;
    // The recurrent ops' outputs are all optional: a node may leave Y unnamed ("").
    const bool all_optional = s.op_type == "RNN" || s.op_type == "GRU" || s.op_type == "LSTM";
    EXPECT_GE(a.min_outputs, all_optional ? 0 : 1) << name;
    EXPECT_LE(a.min_outputs, a.max_outputs) << name;
    Node node = MakeNode(s.op_type, a.min_inputs, a.min_outputs);
    node.domain = s.domain;
    EXPECT_TRUE(registry.CheckArity(node, s.since_version).ok()) << name;
    if (a.min_outputs > 0) {
      node.outputs.pop_back();
      EXPECT_EQ(registry.CheckArity(node, s.since_version).code(), ErrorCode::kMalformedModel)
          << name;
    }
    ++versions;
  }
  // Schemas() lists every op and every version Resolve can return.
  const std::vector<std::string> names = registry.OpNames();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), with_schemas);
  size_t listed = 0;
  for (const std::string& name : names) {
    const size_t colon = name.find(':');
    listed += colon == std::string::npos
                  ? registry.Versions("", name).size()
                  : registry.Versions(name.substr(0, colon), name.substr(colon + 1)).size();
  }
  EXPECT_EQ(versions, listed);
}

TEST(OpRegistry, CheckArityHoldsNodesToTheCountsOfTheirVersion) {
  OpRegistry r;
  r.Register("test", "Clamp",
             {{{6}, Inputs(1), Outputs(1)}, {{11, 13}, Inputs(1, 3), Outputs(1, 2)}}, NoKernel);
  r.Register("test", "Join", {{4}, Inputs::AtLeast(2), Outputs(1)}, NoKernel);
  EXPECT_EQ(r.Versions("test", "Clamp"), (std::vector<int>{6, 11, 13}));
  EXPECT_EQ(r.Resolve("test", "Clamp", 12), 11);

  auto check = [&](const char* op, int ins, int outs, int version) {
    Node node = MakeNode(op, ins, outs);
    node.domain = "test";
    return r.CheckArity(node, version);
  };
  EXPECT_TRUE(check("Clamp", 1, 1, 6).ok());
  EXPECT_TRUE(check("Clamp", 3, 2, 11).ok());
  EXPECT_TRUE(check("Clamp", 2, 1, 13).ok());
  const Status too_many = check("Clamp", 2, 1, 6);
  EXPECT_EQ(too_many.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(too_many.message().find("has 2 inputs; Clamp-6 takes 1"), std::string::npos)
      << too_many.ToString();
  EXPECT_EQ(check("Clamp", 4, 1, 11).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(check("Clamp", 0, 1, 11).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(check("Clamp", 1, 0, 13).code(), ErrorCode::kMalformedModel);
  const Status too_many_outputs = check("Clamp", 1, 3, 13);
  EXPECT_EQ(too_many_outputs.code(), ErrorCode::kMalformedModel);
  EXPECT_NE(too_many_outputs.message().find("has 3 outputs; Clamp-13 produces 1 to 2"),
            std::string::npos)
      << too_many_outputs.ToString();
  EXPECT_TRUE(check("Join", 200, 1, 4).ok());
  const Status too_few = check("Join", 1, 1, 4);
  EXPECT_NE(too_few.message().find("takes 2 or more"), std::string::npos) << too_few.ToString();
  EXPECT_EQ(check("Join", 2, 2, 4).code(), ErrorCode::kMalformedModel);

  // A version the registry does not have is an error, never a pass.
  EXPECT_EQ(check("Clamp", 1, 1, 12).code(), ErrorCode::kInternal);
  EXPECT_EQ(check("Clamp", 1, 1, 0).code(), ErrorCode::kInternal);
  EXPECT_EQ(check("Missing", 1, 1, 1).code(), ErrorCode::kInternal);
}

TEST(OpRegistry, SchemasListEveryVersionInOrder) {
  OpRegistry r;
  r.Register("", "B", {{{9, 1}, Inputs(1), Outputs(1)}, {{5}, Inputs(0, 2), Outputs(1)}}, NoKernel);
  r.Register("", "A", {{3}, Inputs(2), Outputs::AtLeast(1)}, NoKernel);
  const std::vector<OpSchema> s = r.Schemas();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].op_type, "A");
  EXPECT_EQ(s[0].arity.max_outputs, OpArity::kVariadic);
  std::vector<int> b_versions;
  for (size_t i = 1; i < s.size(); ++i) b_versions.push_back(s[i].since_version);
  EXPECT_EQ(b_versions, (std::vector<int>{1, 5, 9}));
  EXPECT_EQ(s[2].arity.min_inputs, 0);
  EXPECT_EQ(s[2].arity.max_inputs, 2);
}

// A registration the API can still spell wrong aborts at once, naming the op.
TEST(OpRegistryDeathTest, MalformedRegistrationsAbort) {
  OpRegistry r;
  EXPECT_DEATH_IF_SUPPORTED(
      r.Register("", "Twice", {{{1, 7}, Inputs(1), Outputs(1)}, {{7}, Inputs(2), Outputs(1)}},
                 NoKernel),
      "Twice lists a since-version twice");
  EXPECT_DEATH_IF_SUPPORTED(r.Register("", "Empty", {{}, Inputs(1), Outputs(1)}, NoKernel),
                            "Empty has a group of counts with no versions");
  EXPECT_DEATH_IF_SUPPORTED(r.Register("", "None", std::initializer_list<OpVersions>{}, NoKernel),
                            "None lists no versions");
  EXPECT_DEATH_IF_SUPPORTED(r.Register("", "Upside", {{1}, Inputs(3, 2), Outputs(1)}, NoKernel),
                            "Upside declares impossible counts for version 1");
  EXPECT_DEATH_IF_SUPPORTED(r.Register("", "Zero", {{0}, Inputs(1), Outputs(1)}, NoKernel),
                            "Zero lists since-version 0");
  EXPECT_DEATH_IF_SUPPORTED(r.Register("", "Null", {{1}, Inputs(1), Outputs(1)}, nullptr),
                            "Null has no kernel factory");
  EXPECT_FALSE(r.Knows("", "Twice"));
}

}  // namespace
}  // namespace webnx::testing
