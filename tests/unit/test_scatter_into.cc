// TensorScatter and MaxUnpool (kernels/scatter_into.cc): hand-computed writes, circular
// wrapping, a larger output_shape, and coded errors for indices that do not fit.
#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Values(const Tensor& t) {
  return {t.ptr<float>(), t.ptr<float>() + t.numel()};
}

TEST(TensorScatter, LinearAndCircularWrites) {
  // Caches [2, 3, 1] (batch, seq, 1), one update row per batch item at its own position.
  const Tensor cache = MakeFloat({2, 3, 1}, {0, 0, 0, 0, 0, 0});
  const Tensor update = MakeFloat({2, 2, 1}, {1, 2, 3, 4});
  const Tensor at = MakeInt64({2}, {0, 2});
  std::vector<Tensor> out;
  // Linear: batch 1's two rows from position 2 do not fit in 3.
  EXPECT_EQ(RunOp("TensorScatter", 24, {{cache}, {update}, {at}}, {}, 1, &out).code(),
            ErrorCode::kInvalidInput);
  const Tensor circular =
      RunOk("TensorScatter", 24, {cache, update, at}, {{"mode", StringAttr("circular")}});
  EXPECT_EQ(Values(circular), (std::vector<float>{1, 2, 0, 4, 0, 3}));
  const Tensor linear = RunOk("TensorScatter", 24, {cache, update, MakeInt64({2}, {1, 0})}, {});
  EXPECT_EQ(Values(linear), (std::vector<float>{0, 1, 2, 3, 4, 0}));
}

TEST(MaxUnpool, ValuesBackAtTheirIndices) {
  const Tensor x = MakeFloat({1, 1, 1, 2}, {5, 7});
  const Tensor at = MakeInt64({1, 1, 1, 2}, {1, 2});  // in the inferred [1, 1, 2, 4]
  const Tensor y = RunOk("MaxUnpool", 11, {x, at},
                         {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}});
  EXPECT_EQ(y.shape, (Shape{1, 1, 2, 4}));
  EXPECT_EQ(Values(y), (std::vector<float>{0, 5, 7, 0, 0, 0, 0, 0}));
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("MaxUnpool", 11, {{x}, {MakeInt64({1, 1, 1, 2}, {1, 9})}},
                  {{"kernel_shape", IntsAttr({2, 2})}, {"strides", IntsAttr({2, 2})}}, 1, &out)
                .code(),
            ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace webnx::testing
