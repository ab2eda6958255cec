// DepthToSpace and SpaceToDepth (kernels/depth_space.cc): the channel order of both modes by
// hand, and each op undoing the other on odd shapes in every dtype width.
#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

TEST(DepthSpace, ChannelOrderOfBothModes) {
  const Tensor x = MakeFloat({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor dcr = RunOk("DepthToSpace", 13, {x}, {{"blocksize", IntAttr(2)}});
  EXPECT_EQ(dcr.shape, (Shape{1, 2, 2, 2}));
  EXPECT_EQ(Floats(dcr), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  const Tensor crd =
      RunOk("DepthToSpace", 13, {x}, {{"blocksize", IntAttr(2)}, {"mode", StringAttr("CRD")}});
  EXPECT_EQ(Floats(crd), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(Floats(RunOk("SpaceToDepth", 13, {dcr}, {{"blocksize", IntAttr(2)}})), Floats(x));
}

TEST(DepthSpace, EachUndoesTheOtherOnOddShapes) {
  const Tensor x = RandomFloat({2, 5, 9, 6}, 3);  // blocksize 3: 2 x 5 x 3 x 2 blocks
  const Tensor depth = RunOk("SpaceToDepth", 13, {x}, {{"blocksize", IntAttr(3)}});
  EXPECT_EQ(depth.shape, (Shape{2, 45, 3, 2}));
  const Tensor back = RunOk("DepthToSpace", 13, {depth}, {{"blocksize", IntAttr(3)}});
  EXPECT_EQ(Floats(back), Floats(x));
  // int64 elements take the same path with 8-byte copies.
  std::vector<int64_t> ints(2 * 18 * 1 * 3);
  for (size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<int64_t>(i) * 1000003;
  const Tensor xi = MakeInt64({2, 18, 1, 3}, ints);
  const Tensor space =
      RunOk("DepthToSpace", 13, {xi}, {{"blocksize", IntAttr(3)}, {"mode", StringAttr("CRD")}});
  EXPECT_EQ(space.shape, (Shape{2, 2, 3, 9}));
  // CRD: output (n, c, h*3+i, w*3+j) is input channel c*9 + i*3 + j.
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t w = 0; w < 3; ++w)
          for (int64_t j = 0; j < 3; ++j)
            ASSERT_EQ(space.ptr<int64_t>()[((n * 2 + c) * 3 + i) * 9 + w * 3 + j],
                      ints[((n * 18 + c * 9 + i * 3 + j) * 1) * 3 + w]);
}

TEST(DepthSpace, BadBlocksAreCodedErrors) {
  std::vector<Tensor> out;
  const Tensor x = RandomFloat({1, 6, 4, 4}, 1);
  EXPECT_EQ(RunOp("DepthToSpace", 13, {{x}}, {{"blocksize", IntAttr(2)}}, 1, &out).code(),
            ErrorCode::kShapeMismatch);  // 6 channels, blocks of 4
  EXPECT_EQ(RunOp("SpaceToDepth", 13, {{x}}, {{"blocksize", IntAttr(3)}}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("SpaceToDepth", 13, {{x}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("DepthToSpace", 13, {{x}}, {{"blocksize", IntAttr(2)}, {"mode", StringAttr("X")}},
                  1, &out)
                .code(),
            ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
