// GatherND, ScatterND and ScatterElements (kernels/scatter_gather.cc): slices and elements by hand,
// batch_dims, negative indices, the combining reductions (repeated indices add up), and an index
// out of range as a coded run error that leaves the output unwritten.
#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

TEST(GatherND, ElementsSlicesAndBatches) {
  const Tensor data = MakeFloat({2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // Full tuples pick elements; a negative index counts from the end.
  const Tensor elems = RunOk("GatherND", 13, {data, MakeInt64({2, 3}, {1, 0, 2, -2, -1, 0})});
  EXPECT_EQ(elems.shape, (Shape{2}));
  EXPECT_EQ(Floats(elems), (std::vector<float>{8, 3}));
  // One index per tuple picks [2, 3] slices.
  const Tensor slices = RunOk("GatherND", 13, {data, MakeInt64({1, 1}, {1})});
  EXPECT_EQ(slices.shape, (Shape{1, 2, 3}));
  EXPECT_EQ(Floats(slices), (std::vector<float>{6, 7, 8, 9, 10, 11}));
  // batch_dims 1: batch b reads its own [2, 3] block with tuples of two.
  const Tensor batched = RunOk("GatherND", 13, {data, MakeInt64({2, 1, 2}, {1, 2, 0, 1})},
                               {{"batch_dims", IntAttr(1)}});
  EXPECT_EQ(batched.shape, (Shape{2, 1}));
  EXPECT_EQ(Floats(batched), (std::vector<float>{5, 7}));
}

TEST(ScatterND, WritesOverACopyAndCombines) {
  const Tensor data = MakeFloat({4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  const Tensor indices = MakeInt64({3, 1}, {2, 0, 2});
  const Tensor updates = MakeFloat({3, 2}, {10, 20, 30, 40, 50, 60});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("ScatterND", 18, {{data}, {indices}, {updates}},
                    {{"reduction", StringAttr("add")}}, 1, &out)
                  .ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{31, 41, 2, 2, 63, 83, 4, 4}));
  ASSERT_TRUE(RunOp("ScatterND", 18, {{data}, {MakeInt64({1, 2}, {-1, 0})}, {MakeFloat({1}, {9})}},
                    {{"reduction", StringAttr("max")}}, 1, &out)
                  .ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 1, 2, 2, 3, 3, 9, 4}));
  // max needs version 18.
  EXPECT_EQ(RunOp("ScatterND", 16, {{data}, {indices}, {updates}},
                  {{"reduction", StringAttr("max")}}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);
}

TEST(ScatterND, AnIndexOutOfRangeFailsTheRun) {
  std::vector<Tensor> out;
  const Tensor data = MakeFloat({3}, {1, 2, 3});
  const Status s =
      RunOp("ScatterND", 13, {{data}, {MakeInt64({2, 1}, {0, 3})}, {MakeFloat({2}, {7, 8})}}, {}, 1,
            &out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput);
  EXPECT_NE(s.message().find("ScatterND"), std::string::npos) << s.message();
  EXPECT_EQ(RunOp("GatherND", 13, {{data}, {MakeInt64({1, 1}, {-4})}}, {}, 1, &out).code(),
            ErrorCode::kInvalidInput);
}

TEST(ScatterElements, AlongEitherAxisWithRepeatsCombined) {
  const Tensor zeros = MakeFloat({3, 3}, std::vector<float>(9, 0.f));
  const Tensor updates = MakeFloat({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f});
  const Tensor down =
      RunOk("ScatterElements", 18, {zeros, MakeInt64({2, 3}, {1, 0, 2, 0, 2, 1}), updates});
  EXPECT_EQ(Floats(down), (std::vector<float>{2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
  const Tensor row = MakeFloat({1, 5}, {1, 2, 3, 4, 5});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("ScatterElements", 18,
                    {{row}, {MakeInt64({1, 3}, {1, -2, 1})}, {MakeFloat({1, 3}, {3, 5, 7})}},
                    {{"axis", IntAttr(1)}, {"reduction", StringAttr("mul")}}, 1, &out)
                  .ok());
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 42, 3, 20, 5}));
  const Status s =
      RunOp("ScatterElements", 13, {{row}, {MakeInt64({1, 1}, {5})}, {MakeFloat({1, 1}, {0})}},
            {{"axis", IntAttr(1)}}, 1, &out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidInput) << s.ToString();
}

}  // namespace
}  // namespace webnx::testing
