// LpPool (kernels/lp_pool.cc): hand-computed norms over windows with padding, p = 1, 2 and 3
// (version 1's float p too), ceil_mode and dilations (18), and coded errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Values(const Tensor& t) {
  return {t.ptr<float>(), t.ptr<float>() + t.numel()};
}

TEST(LpPool, HandComputedNorms) {
  const Tensor x = MakeFloat({1, 1, 2, 3}, {3, -4, 0, 1, 2, -2});
  // 2x2 windows, stride 1: [3,-4,1,2] and [-4,0,2,-2].
  const Tensor l2 = RunOk("LpPool", 18, {x}, {{"kernel_shape", IntsAttr({2, 2})}});
  EXPECT_EQ(l2.shape, (Shape{1, 1, 1, 2}));
  EXPECT_NEAR(Values(l2)[0], std::sqrt(30.f), 1e-5f);
  EXPECT_NEAR(Values(l2)[1], std::sqrt(24.f), 1e-5f);
  const Tensor l1 =
      RunOk("LpPool", 11, {x}, {{"kernel_shape", IntsAttr({2, 2})}, {"p", IntAttr(1)}});
  EXPECT_EQ(Values(l1), (std::vector<float>{10.f, 8.f}));
  const Tensor l3 =
      RunOk("LpPool", 1, {x}, {{"kernel_shape", IntsAttr({1, 3})}, {"p", FloatAttr(3.f)}});
  EXPECT_NEAR(Values(l3)[0], std::cbrt(91.f), 1e-4f);
  EXPECT_NEAR(Values(l3)[1], std::cbrt(17.f), 1e-4f);
}

TEST(LpPool, PaddingCeilModeAndDilations) {
  const Tensor x = MakeFloat({1, 1, 5}, {1, 2, 3, 4, 5});
  // Kernel 2, stride 2, ceil_mode: windows [1,2] [3,4] [5]; pads read zeros.
  const Tensor ceil = RunOk("LpPool", 18, {x},
                            {{"kernel_shape", IntsAttr({2})},
                             {"strides", IntsAttr({2})},
                             {"ceil_mode", IntAttr(1)},
                             {"p", IntAttr(1)}});
  EXPECT_EQ(Values(ceil), (std::vector<float>{3.f, 7.f, 5.f}));
  const Tensor dilated = RunOk("LpPool", 18, {x},
                               {{"kernel_shape", IntsAttr({2})},
                                {"dilations", IntsAttr({2})},
                                {"pads", IntsAttr({1, 0})},
                                {"p", IntAttr(1)}});
  EXPECT_EQ(Values(dilated), (std::vector<float>{2.f, 4.f, 6.f, 8.f}));
}

TEST(LpPool, Errors) {
  std::vector<Tensor> out;
  const Tensor x = RandomFloat({1, 1, 4, 4}, 1);
  EXPECT_EQ(RunOp("LpPool", 18, {{x}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(
      RunOp("LpPool", 18, {{x}}, {{"kernel_shape", IntsAttr({2, 2})}, {"p", IntAttr(0)}}, 1, &out)
          .code(),
      ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("LpPool", 18, {{x}}, {{"kernel_shape", IntsAttr({5, 5})}}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
}

}  // namespace
}  // namespace webnx::testing
