// Mod (kernels/mod.cc): Python's and C's remainders by hand, broadcasting, and the integer
// edge cases (by zero, INT64_MIN by -1) that must give a value, not a trap.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.ptr<int64_t>(), t.ptr<int64_t>() + t.numel());
}

TEST(Mod, IntegerRemaindersTakeTheSignTheModeSays) {
  const Tensor a = MakeInt64({6}, {-4, 7, 5, 4, -7, 8});
  const Tensor b = MakeInt64({6}, {2, -3, 8, -2, 3, 5});
  EXPECT_EQ(Ints(RunOk("Mod", 13, {a, b})), (std::vector<int64_t>{0, -2, 5, 0, 2, 3}));
  EXPECT_EQ(Ints(RunOk("Mod", 13, {a, b}, {{"fmod", IntAttr(1)}})),
            (std::vector<int64_t>{0, 1, 5, 0, -1, 3}));
}

TEST(Mod, IntegerEdgeCasesGiveZero) {
  const Tensor a = MakeInt64({3}, {5, INT64_MIN, -9});
  const Tensor b = MakeInt64({3}, {0, -1, 0});
  EXPECT_EQ(Ints(RunOk("Mod", 13, {a, b})), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(Ints(RunOk("Mod", 13, {a, b}, {{"fmod", IntAttr(1)}})),
            (std::vector<int64_t>{0, 0, 0}));
}

TEST(Mod, FloatsUseFmodAndBroadcast) {
  const Tensor a = MakeFloat({3, 1}, {-4.5f, 7.5f, 5.f});
  const Tensor b = MakeFloat({1, 2}, {2.f, -3.f});
  const Tensor y = RunOk("Mod", 13, {a, b}, {{"fmod", IntAttr(1)}});
  EXPECT_EQ(y.shape, (Shape{3, 2}));
  const std::vector<float> want = {-0.5f, -1.5f, 1.5f, 1.5f, 1.f, 2.f};
  EXPECT_EQ(std::vector<float>(y.ptr<float>(), y.ptr<float>() + 6), want);
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("Mod", 13, {{a}, {b}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
