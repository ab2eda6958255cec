// OneHot (kernels/one_hot.cc): the new axis at either end or inside, negative and out-of-range
// indices, float indices and depth, and a depth unknown when planned as a coded error.
#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.ptr<int64_t>(), t.ptr<int64_t>() + t.numel());
}

Tensor OneHot(const Tensor& indices, const Tensor& depth, int64_t axis) {
  std::vector<Tensor> out;
  const Status s = RunOp("OneHot", 11, {{indices}, {depth, true}, {MakeInt64({2}, {5, 9})}},
                         {{"axis", IntAttr(axis)}}, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return s.ok() ? out[0] : Tensor();
}

TEST(OneHot, AxesAndIndices) {
  const Tensor indices = MakeInt64({2, 2}, {0, -1, 3, 2});  // 3 is outside depth 3
  const Tensor last = OneHot(indices, MakeInt64({}, {3}), -1);
  EXPECT_EQ(last.shape, (Shape{2, 2, 3}));
  EXPECT_EQ(Ints(last), (std::vector<int64_t>{9, 5, 5, 5, 5, 9, 5, 5, 5, 5, 5, 9}));
  const Tensor middle = OneHot(indices, MakeInt64({1}, {3}), 1);
  EXPECT_EQ(middle.shape, (Shape{2, 3, 2}));
  // middle[n][d][i] is on where indices[n][i] == d.
  EXPECT_EQ(Ints(middle), (std::vector<int64_t>{9, 5, 5, 5, 5, 9, 5, 5, 5, 5, 5, 9}));
  const Tensor first = OneHot(MakeFloat({2}, {1.7f, -2.f}), MakeFloat({}, {2.f}), 0);
  EXPECT_EQ(first.shape, (Shape{2, 2}));
  EXPECT_EQ(Ints(first), (std::vector<int64_t>{5, 9, 9, 5}));
}

TEST(OneHot, DepthMustBeKnownAndPositive) {
  std::vector<Tensor> out;
  const Tensor indices = MakeInt64({1}, {0});
  const Tensor values = MakeInt64({2}, {0, 1});
  EXPECT_EQ(RunOp("OneHot", 11, {{indices}, {MakeInt64({}, {3})}, {values}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunOp("OneHot", 11, {{indices}, {MakeInt64({}, {0}), true}, {values}}, {}, 1, &out).code(),
      ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
