// AffineGrid and Col2Im (kernels/affine_grid_col2im.cc): hand-computed grids and images, and
// coded errors for shapes that are wrong or not known when planned.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Values(const Tensor& t) {
  return {t.ptr<float>(), t.ptr<float>() + t.numel()};
}

// Runs the op with its shape inputs (every input after the first) known when planned.
Tensor RunWithShapes(const std::string& op, int opset, const std::vector<Tensor>& inputs,
                     const std::map<std::string, Attribute>& attrs = {}) {
  std::vector<OpInput> in = {{inputs[0]}};
  for (size_t i = 1; i < inputs.size(); ++i) in.push_back({inputs[i], true});
  std::vector<Tensor> out;
  const Status s = RunOp(op, opset, in, attrs, 1, &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.empty() ? Tensor() : out[0];
}

TEST(AffineGrid, IdentityAndShift) {
  // Identity plus a shift of 0.5 in x, over a 2x3 image: x in (-2/3, 0, 2/3), y in (-0.5, 0.5).
  const Tensor theta = MakeFloat({1, 2, 3}, {1, 0, 0.5f, 0, 1, 0});
  const Tensor size = MakeInt64({4}, {1, 1, 2, 3});
  const Tensor grid = RunWithShapes("AffineGrid", 20, {theta, size});
  EXPECT_EQ(grid.shape, (Shape{1, 2, 3, 2}));
  const std::vector<float> want = {-2.f / 3 + 0.5f, -0.5f, 0.5f, -0.5f, 2.f / 3 + 0.5f, -0.5f,
                                   -2.f / 3 + 0.5f, 0.5f,  0.5f, 0.5f,  2.f / 3 + 0.5f, 0.5f};
  const std::vector<float> got = Values(grid);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << i;
  // align_corners: the corners are exactly -1 and 1.
  const Tensor corners =
      RunWithShapes("AffineGrid", 20, {MakeFloat({1, 2, 3}, {1, 0, 0, 0, 1, 0}), size},
                    {{"align_corners", IntAttr(1)}});
  EXPECT_EQ(Values(corners)[0], -1.f);
  EXPECT_EQ(Values(corners)[10], 1.f);
}

TEST(Col2Im, SumsOverlappingBlocks) {
  // A 1x3 image, blocks of 1x2 at stride 1: two blocks, (x0, x1) and (x1, x2).
  const Tensor columns = MakeFloat({1, 2, 2}, {1, 10, 2, 20});  // tap 0: 1, 10; tap 1: 2, 20
  const Tensor y =
      RunWithShapes("Col2Im", 18, {columns, MakeInt64({2}, {1, 3}), MakeInt64({2}, {1, 2})});
  EXPECT_EQ(y.shape, (Shape{1, 1, 1, 3}));
  EXPECT_EQ(Values(y), (std::vector<float>{1.f, 12.f, 20.f}));
}

TEST(AffineGridCol2Im, Errors) {
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("AffineGrid", 20, {{RandomFloat({1, 2, 3}, 1)}, {MakeInt64({4}, {1, 1, 2, 2})}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);  // size not known when planned
  EXPECT_EQ(RunOp("AffineGrid", 20,
                  {{RandomFloat({1, 2, 3}, 1)}, {MakeInt64({4}, {2, 1, 2, 2}), true}}, {}, 1, &out)
                .code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("Col2Im", 18,
                  {{RandomFloat({1, 4, 5}, 2)},
                   {MakeInt64({2}, {3, 3}), true},
                   {MakeInt64({2}, {2, 2}), true}},
                  {}, 1, &out)
                .code(),
            ErrorCode::kShapeMismatch);
}

}  // namespace
}  // namespace webnx::testing
