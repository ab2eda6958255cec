// GridSample (kernels/grid_sample.cc): hand-computed samples for every mode and padding, an
// identity grid that gives the input back, 3-D volumes, and coded errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Sample(const Tensor& x, const Tensor& grid, const std::string& mode,
                          const std::string& padding, int align_corners, int opset = 20) {
  const Tensor y = RunOk("GridSample", opset, {x, grid},
                         {{"mode", StringAttr(mode)},
                          {"padding_mode", StringAttr(padding)},
                          {"align_corners", IntAttr(align_corners)}});
  return std::vector<float>(y.ptr<float>(), y.ptr<float>() + y.numel());
}

TEST(GridSample, HandComputedModesAndPadding) {
  const Tensor x = MakeFloat({1, 1, 2, 2}, {1, 2, 3, 4});
  // The centre, and a point left of the image in its top row (x = -2).
  const Tensor grid = MakeFloat({1, 1, 2, 2}, {0.f, 0.f, -2.f, -1.f});
  // Centre: the mean of the four pixels. Outside (x = -1.5 unnormalized, y = -0.5): zeros reads
  // 0, border the top-left pixel, and reflection at -0.5 brings x to 0.5 (then y clips to 0).
  EXPECT_EQ(Sample(x, grid, "linear", "zeros", 0), (std::vector<float>{2.5f, 0.f}));
  EXPECT_EQ(Sample(x, grid, "linear", "border", 0), (std::vector<float>{2.5f, 1.f}));
  EXPECT_EQ(Sample(x, grid, "linear", "reflection", 0), (std::vector<float>{2.5f, 1.5f}));
  // Nearest rounds half to even: 0.5 -> 0.
  EXPECT_EQ(Sample(x, grid, "nearest", "zeros", 0), (std::vector<float>{1.f, 0.f}));
  // Opset 16 spells the modes bilinear and bicubic.
  EXPECT_EQ(Sample(x, grid, "bilinear", "border", 0, 16), (std::vector<float>{2.5f, 1.f}));
}

TEST(GridSample, IdentityGridGivesTheInputBack) {
  const Tensor x = RandomFloat({2, 3, 4, 5}, 7);
  std::vector<float> g;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 5; ++j) {
        g.push_back(-1.f + 2.f * j / 4.f);
        g.push_back(-1.f + 2.f * i / 3.f);
      }
  const Tensor grid = MakeFloat({2, 4, 5, 2}, g);
  for (const char* mode : {"linear", "nearest", "cubic"}) {
    const std::vector<float> y = Sample(x, grid, mode, "border", 1);
    ASSERT_EQ(y.size(), static_cast<size_t>(x.numel()));
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], x.ptr<float>()[i], 1e-5f) << mode;
  }
}

TEST(GridSample, VolumesInterpolateTrilinearly) {
  // A 2x2x2 volume holding its own coordinates' sum z + y + x: trilinear at any inside point is
  // the sum of its unnormalized coordinates.
  std::vector<float> v;
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) v.push_back(static_cast<float>(z + y + x));
  const Tensor x = MakeFloat({1, 1, 2, 2, 2}, v);
  const Tensor grid = MakeFloat({1, 1, 1, 1, 3}, {0.5f, -0.5f, 0.f});  // x, y, z
  const std::vector<float> y = Sample(x, grid, "linear", "zeros", 1);
  EXPECT_NEAR(y[0], 0.75f + 0.25f + 0.5f, 1e-6f);
}

TEST(GridSample, Errors) {
  std::vector<Tensor> out;
  const Tensor x = RandomFloat({1, 1, 3, 3}, 1);
  EXPECT_EQ(RunOp("GridSample", 20, {{x}, {RandomFloat({1, 2, 2, 3}, 2)}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("GridSample", 20, {{x}, {RandomFloat({1, 2, 2, 2}, 2)}},
                  {{"mode", StringAttr("bilinear")}}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("GridSample", 20,
                  {{RandomFloat({1, 1, 2, 2, 2}, 3)}, {RandomFloat({1, 1, 1, 1, 3}, 4)}},
                  {{"mode", StringAttr("cubic")}}, 1, &out)
                .code(),
            ErrorCode::kUnsupportedOperator);
}

}  // namespace
}  // namespace webnx::testing
