// DeformConv (kernels/deform_conv.cc): with zero offsets it is the regular Conv, a mask scales
// each tap, a whole-pixel offset shifts the sampling, and shapes that disagree are coded errors.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

void ExpectNear(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape, want.shape);
  for (int64_t i = 0; i < want.numel(); ++i)
    EXPECT_NEAR(got.ptr<float>()[i], want.ptr<float>()[i], 1e-4f) << i;
}

TEST(DeformConv, ZeroOffsetsAreTheRegularConv) {
  const Tensor x = RandomFloat({2, 4, 6, 7}, 1);
  const Tensor w = RandomFloat({6, 2, 3, 3}, 2);  // 2 groups
  const Tensor b = RandomFloat({6}, 3);
  const std::map<std::string, Attribute> attrs = {
      {"group", IntAttr(2)}, {"pads", IntsAttr({1, 0, 1, 2})}, {"strides", IntsAttr({2, 1})}};
  const Tensor conv = RunOk("Conv", 11, {x, w, b}, attrs);
  const Tensor zeros = MakeFloat({2, 18, conv.shape[2], conv.shape[3]},
                                 std::vector<float>(2 * 18 * conv.shape[2] * conv.shape[3], 0.f));
  ExpectNear(RunOk("DeformConv", 19, {x, w, zeros, b}, attrs), conv);
}

TEST(DeformConv, MaskAndWholePixelOffsets) {
  const Tensor x = MakeFloat({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = MakeFloat({1, 1, 1, 1}, {1});
  // Each output samples one pixel to its right (x + 1), masked by 0.5: the last column reads
  // outside the image, 0.
  const Tensor offset = MakeFloat({1, 2, 2, 3}, {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  const Tensor mask = MakeFloat({1, 1, 2, 3}, std::vector<float>(6, 0.5f));
  const Tensor empty_bias = MakeFloat({1}, {0});
  const Tensor y = RunOk("DeformConv", 19, {x, w, offset, empty_bias, mask}, {});
  EXPECT_EQ(std::vector<float>(y.ptr<float>(), y.ptr<float>() + 6),
            (std::vector<float>{1, 1.5f, 0, 2.5f, 3, 0}));
}

TEST(DeformConv, Errors) {
  std::vector<Tensor> out;
  const Tensor x = RandomFloat({1, 2, 4, 4}, 1);
  const Tensor w = RandomFloat({3, 2, 3, 3}, 2);
  EXPECT_EQ(
      RunOp("DeformConv", 19, {{x}, {w}, {RandomFloat({1, 17, 2, 2}, 3)}}, {}, 1, &out).code(),
      ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("DeformConv", 19,
                  {{RandomFloat({1, 2, 4, 4, 4}, 1)},
                   {RandomFloat({3, 2, 3, 3, 3}, 2)},
                   {RandomFloat({1, 54, 2, 2, 2}, 3)}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kUnsupportedOperator);
}

}  // namespace
}  // namespace webnx::testing
