// ReverseSequence, Det, Swish, the Bitwise ops, CenterCropPad and Einsum: hand-computed values,
// Einsum against a naive evaluator written here (every label assignment visited), and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}
template <typename T>
std::vector<T> Ints(const Tensor& t) {
  return std::vector<T>(t.ptr<T>(), t.ptr<T>() + t.numel());
}
Tensor MakeInt32(const Shape& shape, const std::vector<int32_t>& values) {
  Tensor t;
  EXPECT_TRUE(Tensor::Allocate(DType::kInt32, shape, &t).ok());
  std::copy(values.begin(), values.end(), t.ptr<int32_t>());
  return t;
}
std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(ReverseSequence, SpecExamples) {
  const Tensor x = MakeFloat({4, 4}, Iota(16));
  // Example 1 stores element (t, b) = 4 b + t; this input is its transpose.
  const Tensor x1 = MakeFloat({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15});
  EXPECT_EQ(Values(RunOk("ReverseSequence", 10, {x1, MakeInt64({4}, {4, 3, 2, 1})})),
            (std::vector<float>{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  EXPECT_EQ(Values(RunOk("ReverseSequence", 10, {x, MakeInt64({4}, {1, 2, 3, 4})},
                         {{"time_axis", IntAttr(1)}, {"batch_axis", IntAttr(0)}})),
            (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
}

TEST(ReverseSequence, BlocksOfTrailingDimsAndErrors) {
  // [time 3, batch 2, 2]: batch 0 reverses all 3 steps, batch 1 none.
  const Tensor x = MakeInt64({3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor y = RunOk("ReverseSequence", 10, {x, MakeInt64({2}, {3, 0})});
  EXPECT_EQ(Ints<int64_t>(y), (std::vector<int64_t>{8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11}));
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("ReverseSequence", 10, {{x}, {MakeInt64({2}, {4, 0})}}, {}, 1, &out).code(),
            ErrorCode::kInvalidInput);
  EXPECT_EQ(RunOp("ReverseSequence", 10, {{x}, {MakeInt64({3}, {1, 1, 1})}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("ReverseSequence", 10, {{x}, {MakeInt64({2}, {1, 1})}},
                  {{"time_axis", IntAttr(1)}, {"batch_axis", IntAttr(1)}}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);
}

TEST(Det, ByHand) {
  EXPECT_EQ(Values(RunOk("Det", 11, {MakeFloat({2, 2}, {1, 2, 3, 4})})), (std::vector<float>{-2}));
  // Needs a row swap, then a singular matrix, then a 3 x 3.
  const Tensor batch = MakeFloat({3, 3, 3}, {0, 1,  0, 1, 0, 0, 0, 0, 1,  //
                                             1, 2,  3, 2, 4, 6, 7, 8, 9,  //
                                             2, -1, 0, 1, 3, 4, 0, 5, -2});
  const Tensor y = RunOk("Det", 22, {batch});
  EXPECT_EQ(y.shape, (Shape{3}));
  const auto got = Values(y);
  EXPECT_NEAR(got[0], -1, 1e-6);
  EXPECT_NEAR(got[1], 0, 1e-6);
  EXPECT_NEAR(got[2], -54, 1e-5);  // 2 (-6 - 20) + 1 (-2 - 0)
  EXPECT_EQ(Values(RunOk("Det", 22, {MakeFloat({0, 0}, {})})), (std::vector<float>{1}));
  std::vector<Tensor> out;
  EXPECT_EQ(RunOp("Det", 22, {{MakeFloat({2, 3}, Iota(6))}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
}

TEST(Swish, MatchesXTimesSigmoidOfAlphaX) {
  const std::vector<float> xs = {-100, -3, -0.5f, 0, 0.25f, 2, 50};
  for (float alpha : {1.f, 2.5f, -0.5f}) {
    const Tensor y = RunOk("Swish", 24, {MakeFloat({7}, xs)}, {{"alpha", FloatAttr(alpha)}});
    const auto got = Values(y);
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = xs[i] / (1 + std::exp(-static_cast<double>(alpha) * xs[i]));
      EXPECT_NEAR(got[i], want, 1e-5 * (1 + std::fabs(want))) << alpha << " " << xs[i];
    }
  }
}

TEST(Bitwise, Int32AndInt64WithBroadcasting) {
  const Tensor a = MakeInt32({2, 2}, {0x0F, -1, 6, 5});
  const Tensor b = MakeInt32({2}, {0x3C, 3});
  EXPECT_EQ(Ints<int32_t>(RunOk("BitwiseAnd", 18, {a, b})), (std::vector<int32_t>{0x0C, 3, 4, 1}));
  EXPECT_EQ(Ints<int32_t>(RunOk("BitwiseOr", 18, {a, b})),
            (std::vector<int32_t>{0x3F, -1, 0x3E, 7}));
  EXPECT_EQ(Ints<int32_t>(RunOk("BitwiseXor", 18, {a, b})),
            (std::vector<int32_t>{0x33, -4, 0x3A, 6}));
  EXPECT_EQ(Ints<int32_t>(RunOk("BitwiseNot", 18, {a})), (std::vector<int32_t>{-16, 0, -7, -6}));
  const Tensor big = MakeInt64({2}, {INT64_MIN, 0x100000000});
  EXPECT_EQ(Ints<int64_t>(RunOk("BitwiseNot", 18, {big})),
            (std::vector<int64_t>{INT64_MAX, ~int64_t{0x100000000}}));
  EXPECT_EQ(Ints<int64_t>(RunOk("BitwiseXor", 18, {big, MakeInt64({}, {-1})})),
            (std::vector<int64_t>{INT64_MAX, ~int64_t{0x100000000}}));
  std::vector<Tensor> out;
  EXPECT_EQ(
      RunOp("BitwiseAnd", 18, {{MakeFloat({1}, {1})}, {MakeFloat({1}, {1})}}, {}, 1, &out).code(),
      ErrorCode::kUnsupportedDtype);
  EXPECT_EQ(RunOp("BitwiseOr", 18, {{a}, {big}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
}

TEST(CenterCropPad, CropsAndPadsAroundTheCenter) {
  // [3, 5]: axis 0 padded to 6 (1 before, 2 after), axis 1 cropped to 2 (from column 1).
  const Tensor x = MakeFloat({3, 5}, Iota(15));
  std::vector<Tensor> out;
  ASSERT_TRUE(RunOp("CenterCropPad", 18, {{x}, {MakeInt64({2}, {6, 2}), true}}, {}, 1, &out).ok());
  EXPECT_EQ(out[0].shape, (Shape{6, 2}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0, 0, 1, 2, 6, 7, 11, 12, 0, 0, 0, 0}));
  // Only axis -1, as int32 target.
  ASSERT_TRUE(RunOp("CenterCropPad", 18, {{x}, {MakeInt32({1}, {8}), true}},
                    {{"axes", IntsAttr({-1})}}, 1, &out)
                  .ok());
  EXPECT_EQ(out[0].shape, (Shape{3, 8}));
  EXPECT_EQ(Values(out[0]), (std::vector<float>{0, 0, 1, 2, 3, 4,  0,  0,  0,  5,  6, 7,
                                                8, 9, 0, 0, 0, 10, 11, 12, 13, 14, 0, 0}));
  EXPECT_EQ(RunOp("CenterCropPad", 18, {{x}, {MakeInt64({2}, {6, 2})}}, {}, 1, &out).code(),
            ErrorCode::kMalformedModel);  // not known when planned
  EXPECT_EQ(RunOp("CenterCropPad", 18, {{x}, {MakeInt64({1}, {6}), true}}, {}, 1, &out).code(),
            ErrorCode::kShapeMismatch);
  EXPECT_EQ(RunOp("CenterCropPad", 18, {{x}, {MakeInt64({2}, {1, 1}), true}},
                  {{"axes", IntsAttr({1, -1})}}, 1, &out)
                .code(),
            ErrorCode::kMalformedModel);
}

// A letters-only explicit equation evaluated by visiting every assignment of every label.
std::vector<double> NaiveEinsum(const std::string& equation, const std::vector<Tensor>& inputs,
                                Shape* out_shape) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms(1);
  for (char c : equation.substr(0, arrow)) {
    if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back().push_back(c);
    }
  }
  const std::string out_term = equation.substr(arrow + 2);
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t d = 0; d < terms[i].size(); ++d) extent[terms[i][d]] = inputs[i].shape[d];
  }
  std::vector<char> labels;
  for (auto& [label, size] : extent) labels.push_back(label);
  out_shape->clear();
  for (char c : out_term) out_shape->push_back(extent[c]);
  int64_t out_numel = 1;
  for (int64_t d : *out_shape) out_numel *= d;
  std::vector<double> out(static_cast<size_t>(out_numel), 0);
  for (auto& [label, size] : extent) {
    if (size == 0) return out;  // nothing to visit
  }
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  auto index = [&](const std::string& term, const Shape& shape) {
    int64_t i = 0;
    for (size_t d = 0; d < term.size(); ++d) i = i * shape[d] + at[term[d]];
    return i;
  };
  for (;;) {
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      const int64_t k = index(terms[i], inputs[i].shape);
      product *= inputs[i].dtype == DType::kFloat32 ? inputs[i].ptr<float>()[k]
                                                    : inputs[i].ptr<int64_t>()[k];
    }
    out[index(out_term, *out_shape)] += product;
    size_t d = labels.size();
    while (d > 0 && ++at[labels[d - 1]] == extent[labels[d - 1]]) at[labels[--d]] = 0;
    if (d == 0) break;
  }
  return out;
}

void ExpectEinsum(const std::string& equation, const std::vector<Shape>& shapes,
                  const std::string& reference = "", int threads = 1) {
  std::vector<OpInput> inputs;
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < shapes.size(); ++i) {
    tensors.push_back(RandomFloat(shapes[i], static_cast<uint32_t>(17 + i)));
    inputs.push_back({tensors.back()});
  }
  std::vector<Tensor> out;
  const Status s =
      RunOp("Einsum", 12, inputs, {{"equation", StringAttr(equation)}}, 1, &out, threads);
  ASSERT_TRUE(s.ok()) << equation << ": " << s.message();
  Shape want_shape;
  const auto want = NaiveEinsum(reference.empty() ? equation : reference, tensors, &want_shape);
  ASSERT_EQ(out[0].shape, want_shape) << equation;
  const auto got = Values(out[0]);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << equation << " at " << i;
}

TEST(Einsum, MatchesANaiveReference) {
  ExpectEinsum("ij,jk->ik", {{5, 7}, {7, 9}});
  ExpectEinsum("ij,jk->ik", {{33, 40}, {40, 50}});  // the packed GEMM
  ExpectEinsum("ij,jk->ik", {{33, 40}, {40, 50}}, "", 2);
  ExpectEinsum("bij,bjk->bik", {{3, 20, 30}, {3, 30, 25}});
  ExpectEinsum("ij,kj->ik", {{20, 30}, {25, 30}});  // B stored transposed
  ExpectEinsum("ji,jk->ik", {{30, 20}, {30, 25}});  // A stored transposed
  ExpectEinsum("ij,jk->ki", {{20, 30}, {30, 25}});  // operands swapped
  ExpectEinsum("bij,bkj->kbi", {{2, 9, 30}, {2, 17, 30}});
  ExpectEinsum("ij->ji", {{4, 6}});
  ExpectEinsum("ii->", {{5, 5}});
  ExpectEinsum("ii->i", {{5, 5}});
  ExpectEinsum("ij->i", {{4, 6}});
  ExpectEinsum("ij->", {{4, 6}});
  ExpectEinsum("i,j->ij", {{4}, {6}});
  ExpectEinsum("ij,ij->ij", {{4, 6}, {4, 6}});
  ExpectEinsum("ij,ij->", {{4, 6}, {4, 6}});
  ExpectEinsum("ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 6}});
  ExpectEinsum("bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}});
  ExpectEinsum("iij,jk->ik", {{3, 3, 4}, {4, 2}});  // a diagonal inside a product
  ExpectEinsum("ijk,jl->l", {{2, 3, 4}, {3, 5}});   // i, k summed before the product
  // Implicit outputs, ellipses and spaces against equivalent explicit equations.
  ExpectEinsum("ij,jk", {{3, 4}, {4, 5}}, "ij,jk->ik");
  ExpectEinsum("ii", {{4, 4}}, "ii->");
  ExpectEinsum("...ij,...jk->...ik", {{2, 3, 4}, {2, 4, 5}}, "aij,ajk->aik");
  ExpectEinsum("... ii -> ... i", {{2, 3, 3, 3}}, "abii->abi");
  ExpectEinsum("...i,i", {{2, 3, 4}, {4}}, "abi,i->ab");
  ExpectEinsum("i...->i", {{3, 2, 2}}, "iab->i");
  ExpectEinsum("ij,jk->", {{0, 3}, {3, 2}});
  ExpectEinsum("ij,jk->ik", {{2, 0}, {0, 3}});
}

TEST(Einsum, BroadcastsEllipsisAndRefusesIntegers) {
  // [2, 1, 3] and [4, 3]: the ellipses broadcast to [2, 4].
  const Tensor a = MakeFloat({2, 1, 3}, Iota(6));
  const Tensor b = MakeFloat({4, 3}, Iota(12));
  const Tensor y = RunOk("Einsum", 12, {a, b}, {{"equation", StringAttr("...i,...i->...")}});
  ASSERT_EQ(y.shape, (Shape{2, 4}));
  EXPECT_EQ(Values(y), (std::vector<float>{5, 14, 23, 32, 14, 50, 86, 122}));
  const Tensor ia = MakeInt64({2, 2}, {1, 2, 3, 4});
  const Tensor ib = MakeInt64({2, 2}, {5, 6, 7, 8});
  std::vector<Tensor> out;
  EXPECT_NE(
      RunOp("Einsum", 12, {{ia}, {ib}}, {{"equation", StringAttr("ij,jk->ik")}}, 1, &out).code(),
      ErrorCode::kOk);
}

// float64 multiplies and sums in double: 1/3 products no float holds, a transpose and a trace.
TEST(Einsum, Float64InDouble) {
  Tensor a, b;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat64, {2, 3}, &a).ok());
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat64, {3, 2}, &b).ok());
  for (int i = 0; i < 6; ++i)
    a.ptr<double>()[i] = (i + 1) / 3.0, b.ptr<double>()[i] = 1.0 / (i + 7);
  const Tensor y = RunOk("Einsum", 12, {a, b}, {{"equation", StringAttr("ij,jk->ki")}});
  ASSERT_EQ(y.dtype, DType::kFloat64);
  ASSERT_EQ(y.shape, (Shape{2, 2}));
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 2; ++i) {
      double want = 0;
      for (int j = 0; j < 3; ++j) want += a.ptr<double>()[i * 3 + j] * b.ptr<double>()[j * 2 + k];
      EXPECT_EQ(y.ptr<double>()[k * 2 + i], want);
    }
  }
}

TEST(Einsum, Errors) {
  const Tensor m = RandomFloat({3, 4}, 1);
  std::vector<Tensor> out;
  auto code = [&](const std::string& equation, const std::vector<OpInput>& in) {
    return RunOp("Einsum", 12, in, {{"equation", StringAttr(equation)}}, 1, &out).code();
  };
  EXPECT_EQ(code("i1->i", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("i..j.->ij", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("......->", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("ij->k", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("ij->ii", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("ij->i->j", {{m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("ijk->i", {{m}}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code("ii->i", {{m}}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code("ij,ij->i", {{m}, {RandomFloat({3, 5}, 2)}}), ErrorCode::kShapeMismatch);
  EXPECT_EQ(code("ij->i", {{m}, {m}}), ErrorCode::kMalformedModel);
  EXPECT_EQ(code("ij,jk->ik", {{m}, {MakeInt64({4, 1}, {1, 2, 3, 4})}}),
            ErrorCode::kMalformedModel);
  EXPECT_EQ(RunOp("Einsum", 12, {{m}}, {}, 1, &out).code(), ErrorCode::kMalformedModel);
}

}  // namespace
}  // namespace webnx::testing
