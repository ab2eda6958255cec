// Transpose (kernels/transpose.cc): every permutation of small odd shapes against a naive loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

// Naive: out[c] = in[c permuted back].
template <typename T>
std::vector<T> NaiveTranspose(const Tensor& x, const std::vector<int64_t>& perm) {
  const Shape& in = x.shape;
  const size_t rank = in.size();
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) out[i] = in[perm[i]];
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
  std::vector<T> result(x.numel());
  for (int64_t flat = 0; flat < x.numel(); ++flat) {
    int64_t rest = flat, src = 0;
    for (size_t k = rank; k-- > 0;) {
      const int64_t coord = rest % out[k];
      rest /= out[k];
      src += coord * in_strides[perm[k]];
    }
    result[flat] = x.ptr<T>()[src];
  }
  return result;
}

Status RunTranspose(const Tensor& x, const std::vector<int64_t>* perm, int opset,
                    std::vector<Tensor>* out) {
  std::map<std::string, Attribute> attrs;
  if (perm) attrs["perm"] = IntsAttr(*perm);
  return RunOp("Transpose", opset, {OpInput{x}}, attrs, 1, out);
}

TEST(Transpose, DefaultReversesDims) {
  Tensor x = MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out;
  ASSERT_TRUE(RunTranspose(x, nullptr, 13, &out).ok());
  EXPECT_EQ(out[0].shape, (Shape{3, 2}));
  EXPECT_EQ(std::vector<float>(out[0].ptr<float>(), out[0].ptr<float>() + 6),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Transpose, AllPermutationsUpToRank5MatchNaive) {
  const std::vector<Shape> shapes = {{5},          {3, 7},       {2, 1, 5},       {3, 4, 5},
                                     {2, 3, 1, 5}, {2, 3, 4, 5}, {2, 1, 3, 2, 3}, {1, 2, 3, 1, 2}};
  for (const Shape& shape : shapes) {
    Tensor x = RandomFloat(shape, 3);
    std::vector<int64_t> perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      std::vector<Tensor> out;
      ASSERT_TRUE(RunTranspose(x, &perm, 21, &out).ok());
      const std::vector<float> want = NaiveTranspose<float>(x, perm);
      ASSERT_EQ(std::vector<float>(out[0].ptr<float>(), out[0].ptr<float>() + x.numel()), want)
          << ShapeToString(shape) << " perm " << ShapeToString(perm);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(Transpose, Rank6AndLargeNchwToNhwc) {
  Tensor x = RandomFloat({2, 3, 2, 1, 3, 2}, 5);
  std::vector<int64_t> perm = {5, 3, 1, 0, 4, 2};
  std::vector<Tensor> out;
  ASSERT_TRUE(RunTranspose(x, &perm, 13, &out).ok());
  EXPECT_EQ(std::vector<float>(out[0].ptr<float>(), out[0].ptr<float>() + x.numel()),
            NaiveTranspose<float>(x, perm));
  // NCHW -> NHWC and back with sizes that are not multiples of the tile.
  Tensor img = RandomFloat({2, 19, 7, 9}, 6);
  for (std::vector<int64_t> p : {std::vector<int64_t>{0, 2, 3, 1}, {0, 3, 1, 2}, {1, 0, 2, 3}}) {
    ASSERT_TRUE(RunTranspose(img, &p, 13, &out).ok());
    EXPECT_EQ(std::vector<float>(out[0].ptr<float>(), out[0].ptr<float>() + img.numel()),
              NaiveTranspose<float>(img, p));
  }
}

TEST(Transpose, IntegerBoolAndEmpty) {
  Tensor x = MakeInt64({2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  std::vector<int64_t> perm = {2, 0, 1};
  std::vector<Tensor> out;
  ASSERT_TRUE(RunTranspose(x, &perm, 13, &out).ok());
  // Same values as floats through the naive loop.
  Tensor as_float = MakeFloat({2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const std::vector<float> want = NaiveTranspose<float>(as_float, perm);
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(out[0].ptr<int64_t>()[i], static_cast<int64_t>(want[i]));
  Tensor b;
  ASSERT_TRUE(Tensor::Allocate(DType::kBool, {3, 2}, &b).ok());
  b.ptr<bool>()[1] = true;
  ASSERT_TRUE(RunTranspose(b, nullptr, 1, &out).ok());
  EXPECT_TRUE(out[0].ptr<bool>()[3]);
  Tensor empty = MakeFloat({0, 3}, {});
  ASSERT_TRUE(RunTranspose(empty, nullptr, 13, &out).ok());
  EXPECT_EQ(out[0].shape, (Shape{3, 0}));
  Tensor scalar = MakeFloat({}, {4});
  ASSERT_TRUE(RunTranspose(scalar, nullptr, 13, &out).ok());
  EXPECT_EQ(out[0].ptr<float>()[0], 4.f);
}

TEST(Transpose, BadPermIsMalformed) {
  Tensor x = RandomFloat({2, 3}, 1);
  std::vector<Tensor> out;
  for (std::vector<int64_t> perm : {std::vector<int64_t>{0}, {0, 0}, {0, 2}, {-1, 0}, {0, 1, 2}}) {
    EXPECT_EQ(RunTranspose(x, &perm, 13, &out).code(), ErrorCode::kMalformedModel)
        << ShapeToString(perm);
  }
}

}  // namespace
}  // namespace webnx::testing
