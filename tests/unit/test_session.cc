// Session::CreateFromOnnx / Run (core/session.cc, core/plan_builder.cc) end to end on models
// assembled with ModelBuilder: results against naive computations, planner statistics (fusion,
// views, folding), the plan cache and input validation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/unit/model_builder.h"
#include "tests/unit/op_runner.h"

namespace webnx::testing {
namespace {

bool HasSubstr(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

size_t Padded(size_t bytes) {
  return std::max<size_t>(64, (bytes + 63) / 64 * 64);
}

NamedTensor Feed(const std::string& name, Tensor t) {
  NamedTensor nt;
  nt.name = name;
  nt.tensor = std::move(t);
  return nt;
}

std::vector<float> FloatValues(const Tensor& t) {
  return std::vector<float>(t.ptr<float>(), t.ptr<float>() + t.numel());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want,
                const std::string& label) {
  ASSERT_EQ(got.size(), want.size()) << label;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4f * (1.f + std::fabs(want[i]))) << label << " at " << i;
  }
}

// ---- Conv -> Relu -> Reshape -> Gemm

constexpr int64_t kC = 2, kH = 5, kW = 5, kM = 3, kK = 3, kOut = 4;
constexpr int64_t kFlat = kM * kH * kW;  // 'same' padding keeps 5x5

struct ConvNet {
  std::vector<float> w = RandomFloats(kM * kC * kK * kK, 1);
  std::vector<float> bias = {0.1f, -0.3f, 0.05f};
  std::vector<float> gemm_w = RandomFloats(kOut * kFlat, 2, -0.5f, 0.5f);  // [kOut, kFlat]
  std::vector<float> gemm_c = {0.5f, -1.f, 0.f, 2.f};

  // X [N, 2, 5, 5] -> Conv (pads 1) -> Relu -> Reshape [0, -1] -> Gemm(transB) -> Y [N, 4].
  // The Gemm's B is an Identity of an initializer and its C a Constant node: both constant
  // subgraphs the session folds at load.
  std::string Bytes() const {
    ModelBuilder b;
    b.Input("X", kOnnxFloat, {"N", kC, kH, kW});
    b.FloatInit("conv_w", {kM, kC, kK, kK}, w, /*raw=*/true);
    b.FloatInit("conv_b", {kM}, bias, /*raw=*/false);
    b.Int64Init("flat_shape", {2}, {0, -1});
    b.FloatInit("gemm_w_stored", {kOut, kFlat}, gemm_w);
    b.Node("Conv", {"X", "conv_w", "conv_b"}, {"conv"}, "conv")
        .Ints("pads", {1, 1, 1, 1})
        .Ints("kernel_shape", {kK, kK})
        .Ints("strides", {1, 1});
    b.Node("Relu", {"conv"}, {"relu"}, "relu");
    b.Node("Reshape", {"relu", "flat_shape"}, {"flat"}, "reshape");
    b.Node("Identity", {"gemm_w_stored"}, {"gemm_w"}, "weight_identity");
    b.Node("Constant", {}, {"gemm_c"}, "bias_constant")
        .TensorAttr("value", FloatTensor({kOut}, gemm_c));
    b.Node("Gemm", {"flat", "gemm_w", "gemm_c"}, {"Y"}, "gemm").Int("transB", 1);
    b.Output("Y", kOnnxFloat, {"N", kOut});
    return b.Bytes();
  }

  std::vector<float> Reference(const std::vector<float>& x, int64_t n) const {
    std::vector<float> flat(n * kFlat);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t m = 0; m < kM; ++m) {
        for (int64_t y = 0; y < kH; ++y) {
          for (int64_t xx = 0; xx < kW; ++xx) {
            double acc = bias[m];
            for (int64_t c = 0; c < kC; ++c) {
              for (int64_t ky = 0; ky < kK; ++ky) {
                for (int64_t kx = 0; kx < kK; ++kx) {
                  const int64_t iy = y + ky - 1, ix = xx + kx - 1;
                  if (iy < 0 || iy >= kH || ix < 0 || ix >= kW) continue;
                  acc += static_cast<double>(x[((b * kC + c) * kH + iy) * kW + ix]) *
                         w[((m * kC + c) * kK + ky) * kK + kx];
                }
              }
            }
            flat[b * kFlat + (m * kH + y) * kW + xx] = static_cast<float>(std::max(acc, 0.0));
          }
        }
      }
    }
    std::vector<float> out(n * kOut);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t j = 0; j < kOut; ++j) {
        double acc = gemm_c[j];
        for (int64_t k = 0; k < kFlat; ++k)
          acc += static_cast<double>(flat[b * kFlat + k]) * gemm_w[j * kFlat + k];
        out[b * kOut + j] = static_cast<float>(acc);
      }
    }
    return out;
  }
};

// Runs the conv net at batch n and checks the output against the reference.
void RunConvNet(Session* session, const ConvNet& net, int64_t n, uint32_t seed) {
  std::vector<float> x = RandomFloats(n * kC * kH * kW, seed, -2.f, 2.f);
  std::vector<const Tensor*> outputs;
  Status s = session->Run({Feed("X", MakeFloat({n, kC, kH, kW}, x))}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0]->shape, (Shape{n, kOut}));
  ExpectNear(FloatValues(*outputs[0]), net.Reference(x, n), "batch " + std::to_string(n));
}

TEST(Session, ConvReluReshapeGemmMatchesNaive) {
  ConvNet net;
  std::unique_ptr<Session> session;
  Status s = CreateSession(net.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(session->inputs().size(), 1u);
  EXPECT_EQ(session->inputs()[0].name, "X");
  ASSERT_EQ(session->outputs().size(), 1u);
  EXPECT_EQ(session->outputs()[0].name, "Y");
  for (int64_t n : {1, 2, 3}) RunConvNet(session.get(), net, n, 100 + static_cast<uint32_t>(n));
}

TEST(Session, ConvNetStats) {
  ConvNet net;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(net.Bytes(), &session).ok());
  // Constant and Identity(initializer) are folded at load.
  EXPECT_EQ(session->stats().loaded_nodes, 6u);
  EXPECT_EQ(session->stats().graph_nodes, 4u);
  EXPECT_GT(session->stats().loaded_nodes, session->stats().graph_nodes);

  for (int64_t n : {1, 4}) {
    RunConvNet(session.get(), net, n, 7);
    const PlanStats& plan = session->stats().last_plan;
    EXPECT_EQ(plan.graph_nodes, 4u);
    EXPECT_EQ(plan.fused_nodes, 1u);  // the Relu, into the Conv
    EXPECT_EQ(plan.folded_nodes, 0u);
    EXPECT_EQ(plan.run_steps, 3u);  // Conv(+Relu), Reshape (a view), Gemm
    EXPECT_EQ(plan.shape_steps, 0u);
    // Intermediates: conv, relu, flat (each N*75 floats) and Y (N*4 floats).
    const size_t conv_bytes = n * kFlat * sizeof(float);
    const size_t y_bytes = n * kOut * sizeof(float);
    const size_t sum_of_intermediates = 3 * conv_bytes + y_bytes;
    EXPECT_LT(plan.activation_bytes, sum_of_intermediates);
    // Relu shares the Conv's buffer and the Reshape is a view of it: one buffer plus Y.
    EXPECT_LE(plan.activation_bytes, Padded(conv_bytes) + Padded(y_bytes)) << "batch " << n;
  }
}

TEST(Session, ProfileRecordsEveryStep) {
  ConvNet net;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(net.Bytes(), &session).ok());
  std::vector<StepTiming> profile;
  std::vector<const Tensor*> outputs;
  Status s = session->Run({Feed("X", RandomFloat({2, kC, kH, kW}, 3))}, &outputs, &profile);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(profile.size(), session->stats().last_plan.run_steps);
  EXPECT_EQ(profile[0].op_type, "Conv");
  EXPECT_EQ(profile[0].output_shape, (Shape{2, kM, kH, kW}));
  EXPECT_EQ(profile.back().op_type, "Gemm");
  for (const StepTiming& t : profile) EXPECT_GE(t.ms, 0.0);
}

// A clamp must not be fused when someone else reads the unclamped values.
TEST(Session, ReluNotFusedWhenTheProducerHasOtherReaders) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, 3});
  std::vector<float> w = {1, -1, 0.5f, -2, 3, -0.25f};  // [3, 2]
  b.FloatInit("W", {3, 2}, w);
  b.FloatInit("C", {2}, {-0.5f, 0.25f});
  b.Node("Gemm", {"X", "W", "C"}, {"g"}, "gemm");
  b.Node("Relu", {"g"}, {"relu"}, "relu");
  b.Node("Neg", {"g"}, {"neg"}, "neg");  // a second reader of the Gemm output
  b.Node("Gemm", {"X", "W", "C"}, {"g2"}, "gemm2");
  b.Node("Relu", {"g2"}, {"relu2"}, "relu2");  // sole reader: fused into gemm2
  b.Output("relu", kOnnxFloat, {2, 2});
  b.Output("neg", kOnnxFloat, {2, 2});
  b.Output("relu2", kOnnxFloat, {2, 2});
  b.Output("g", kOnnxFloat, {2, 2});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<float> x = {1, 2, 3, -1, -2, 4};
  std::vector<const Tensor*> outputs;
  Status s = session->Run({Feed("X", MakeFloat({2, 3}, x))}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<float> g(4), relu(4), neg(4);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      float acc = (j == 0 ? -0.5f : 0.25f);
      for (int k = 0; k < 3; ++k) acc += x[i * 3 + k] * w[k * 2 + j];
      g[i * 2 + j] = acc;
      relu[i * 2 + j] = std::max(acc, 0.f);
      neg[i * 2 + j] = -acc;
    }
  }
  ASSERT_EQ(outputs.size(), 4u);
  ExpectNear(FloatValues(*outputs[0]), relu, "relu");
  ExpectNear(FloatValues(*outputs[1]), neg, "neg of the unclamped values");
  ExpectNear(FloatValues(*outputs[2]), relu, "relu2");
  ExpectNear(FloatValues(*outputs[3]), g, "g (unclamped)");
  // Only the second Relu (sole reader of gemm2's output) is fused.
  EXPECT_EQ(session->stats().last_plan.fused_nodes, 1u);
}

// A sum is fused into its earlier input's step only when the other input is written before that
// step runs. Here the other input comes from a step after the Conv's: a Split's second output, a
// view (Reshape) and a Slice view. Fused, the Conv would add what the buffer held before: the
// last run's values (so two runs would differ), or nothing on the first.
TEST(Session, SumsAreNotFusedIntoAStepBeforeTheirOtherInput) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, 2, 2, 2});
  b.Input("Z", kOnnxFloat, {1, 6, 2, 2});
  b.Input("V", kOnnxFloat, {1, 5, 2, 2});
  const std::vector<float> w = {1, -1, 0.5f, -2, 3, -0.25f};  // [3, 2, 1, 1]
  b.FloatInit("W", {3, 2, 1, 1}, w);
  b.Int64Init("split", {2}, {3, 3});
  b.Int64Init("shape", {4}, {1, 3, 2, 2});
  b.Int64Init("starts", {1}, {2});
  b.Int64Init("ends", {1}, {5});
  b.Int64Init("axes", {1}, {1});
  b.Node("Conv", {"X", "W"}, {"g1"}, "conv1");
  b.Node("Split", {"Z", "split"}, {"z0", "z1"}, "split").Int("axis", 1);
  b.Node("Add", {"g1", "z1"}, {"Y1"}, "add_second_output");
  b.Node("Conv", {"X", "W"}, {"g2"}, "conv2");
  b.Node("Neg", {"V"}, {"nv"}, "neg");
  b.Node("Slice", {"nv", "starts", "ends", "axes"}, {"s"}, "slice_view");
  b.Node("Add", {"s", "g2"}, {"Y2"}, "add_slice_view");
  b.Node("Conv", {"X", "W"}, {"g3"}, "conv3");
  b.Node("Reshape", {"z0", "shape"}, {"r"}, "reshape_view");
  b.Node("Add", {"g3", "r"}, {"Y3"}, "add_reshape_view");
  b.Output("Y1", kOnnxFloat, {1, 3, 2, 2});
  b.Output("Y2", kOnnxFloat, {1, 3, 2, 2});
  b.Output("Y3", kOnnxFloat, {1, 3, 2, 2});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  for (int run = 0; run < 3; ++run) {
    const std::vector<float> x = RandomFloats(8, 20 + run), z = RandomFloats(24, 30 + run),
                             v = RandomFloats(20, 40 + run);
    std::vector<const Tensor*> outputs;
    Status s =
        session->Run({Feed("X", MakeFloat({1, 2, 2, 2}, x)), Feed("Z", MakeFloat({1, 6, 2, 2}, z)),
                      Feed("V", MakeFloat({1, 5, 2, 2}, v))},
                     &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<float> y1(12), y2(12), y3(12);
    for (int m = 0; m < 3; ++m) {
      for (int p = 0; p < 4; ++p) {
        const float g = w[m * 2] * x[p] + w[m * 2 + 1] * x[4 + p];
        y1[m * 4 + p] = g + z[12 + m * 4 + p];
        y2[m * 4 + p] = g - v[8 + m * 4 + p];
        y3[m * 4 + p] = g + z[m * 4 + p];
      }
    }
    const std::string when = ", run " + std::to_string(run);
    ExpectNear(FloatValues(*outputs[0]), y1, "Split's second output" + when);
    ExpectNear(FloatValues(*outputs[1]), y2, "a Slice view" + when);
    ExpectNear(FloatValues(*outputs[2]), y3, "a Reshape view" + when);
  }
}

// A view keeps its source's buffer alive: later steps must not reuse those bytes.
TEST(Session, ViewsKeepTheirSourceAlive) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {4, 8});
  b.Int64Init("flat", {1}, {-1});
  b.Node("Neg", {"X"}, {"a"}, "neg_a");
  b.Node("Reshape", {"a", "flat"}, {"va"}, "view_a");  // a view of a's buffer
  b.Node("Abs", {"X"}, {"c"}, "abs_c");
  b.Node("Neg", {"c"}, {"d"}, "neg_d");  // could take a's bytes if views were ignored
  b.Node("Sigmoid", {"d"}, {"e"}, "sigmoid_e");
  b.Node("Reshape", {"e", "flat"}, {"ve"}, "view_e");
  b.Node("Add", {"va", "ve"}, {"Y"}, "add");
  b.Output("Y", kOnnxFloat, {32});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<float> x = RandomFloats(32, 5, -3.f, 3.f);
  std::vector<const Tensor*> outputs;
  for (int run = 0; run < 2; ++run) {
    Status s = session->Run({Feed("X", MakeFloat({4, 8}, x))}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<float> want(32);
    for (int i = 0; i < 32; ++i) want[i] = -x[i] + 1.f / (1.f + std::exp(std::fabs(x[i])));
    ExpectNear(FloatValues(*outputs[0]), want, "run " + std::to_string(run));
  }
}

// A Slice that takes a range of channels of one image is a view at an offset into its source:
// the source's bytes stay reserved while the view is read, and a view that is a graph output
// reads its own range.
TEST(Session, SliceViewsKeepTheirSourceAlive) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, 6, 5});
  b.Int64Init("starts", {1}, {2});
  b.Int64Init("ends", {1}, {5});
  b.Int64Init("axes", {1}, {1});
  b.Node("Neg", {"X"}, {"a"}, "neg_a");
  b.Node("Slice", {"a", "starts", "ends", "axes"}, {"sa"}, "slice_a");  // a view into a
  b.Node("Abs", {"X"}, {"c"}, "abs_c");
  b.Node("Neg", {"c"}, {"d"}, "neg_d");  // could take a's bytes if the view were ignored
  b.Node("Sigmoid", {"d"}, {"e"}, "sigmoid_e");
  b.Node("Slice", {"e", "starts", "ends", "axes"}, {"se"}, "slice_e");
  b.Node("Add", {"sa", "se"}, {"Y"}, "add");
  b.Output("Y", kOnnxFloat, {1, 3, 5});
  b.Output("sa", kOnnxFloat, {1, 3, 5});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<float> x = RandomFloats(30, 5, -3.f, 3.f);
  std::vector<const Tensor*> outputs;
  for (int run = 0; run < 2; ++run) {
    Status s = session->Run({Feed("X", MakeFloat({1, 6, 5}, x))}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::vector<float> want(15), slice(15);
    for (int i = 0; i < 15; ++i) {
      const float v = x[10 + i];
      slice[i] = -v;
      want[i] = -v + 1.f / (1.f + std::exp(std::fabs(v)));
    }
    ExpectNear(FloatValues(*outputs[0]), want, "Y, run " + std::to_string(run));
    ExpectNear(FloatValues(*outputs[1]), slice, "sa, run " + std::to_string(run));
  }
}

// Graph outputs may be graph inputs, views of them, constants or plan-time values.
TEST(Session, OutputsThatAreInputsConstantsAndFoldedValues) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {"N", 3});
  b.FloatInit("K", {2}, {4.f, 5.f});
  b.Node("Identity", {"X"}, {"x_view"}, "x_identity");
  b.Node("Constant", {}, {"const_out"}, "c").TensorAttr("value", Int64Tensor({3}, {7, 8, 9}));
  b.Node("Shape", {"X"}, {"x_shape"}, "shape");
  b.Node("Identity", {"K"}, {"k_view"}, "k_identity");
  b.Output("X", kOnnxFloat, {"N", 3});
  b.Output("x_view", kOnnxFloat, {"N", 3});
  b.Output("const_out", kOnnxInt64, {3});
  b.Output("x_shape", kOnnxInt64, {2});
  b.Output("K", kOnnxFloat, {2});
  b.Output("k_view", kOnnxFloat, {2});
  std::unique_ptr<Session> session;
  Status s = CreateSession(b.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int64_t n : {2, 1}) {
    std::vector<float> x = RandomFloats(n * 3, 11);
    std::vector<const Tensor*> outputs;
    // The feeds outlive the reads below: outputs 0 and 1 alias X's storage (see
    // OutputsAliasingAnInputOutliveTheFeeds for what happens otherwise).
    const std::vector<NamedTensor> feeds = {Feed("X", MakeFloat({n, 3}, x))};
    s = session->Run(feeds, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(outputs.size(), 6u);
    EXPECT_EQ(FloatValues(*outputs[0]), x);
    EXPECT_EQ(FloatValues(*outputs[1]), x);
    EXPECT_EQ(outputs[1]->shape, (Shape{n, 3}));
    ASSERT_EQ(outputs[2]->dtype, DType::kInt64);
    EXPECT_EQ(std::vector<int64_t>(outputs[2]->ptr<int64_t>(), outputs[2]->ptr<int64_t>() + 3),
              (std::vector<int64_t>{7, 8, 9}));
    ASSERT_EQ(outputs[3]->dtype, DType::kInt64);
    ASSERT_EQ(outputs[3]->numel(), 2);
    EXPECT_EQ(outputs[3]->ptr<int64_t>()[0], n);
    EXPECT_EQ(outputs[3]->ptr<int64_t>()[1], 3);
    EXPECT_EQ(FloatValues(*outputs[4]), (std::vector<float>{4.f, 5.f}));
    EXPECT_EQ(FloatValues(*outputs[5]), (std::vector<float>{4.f, 5.f}));
  }
}

// Outputs that are a graph input, or a view of one, point at the caller's feed storage; the
// session keeps that storage alive until the next Run (wasm/bindings.cc frees its feeds as soon
// as Session::Run returns and JS reads the outputs afterwards). The feed's holder poisons the
// storage when the last reference goes, so a use-after-free would show as sentinels.
TEST(Session, OutputsAliasingAnInputOutliveTheFeeds) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, 3});
  b.Int64Init("flat", {1}, {-1});
  b.Node("Identity", {"X"}, {"x_identity"}, "x_identity");
  b.Node("Reshape", {"X", "flat"}, {"x_flat"}, "x_flat");
  b.Output("X", kOnnxFloat, {2, 3});
  b.Output("x_identity", kOnnxFloat, {2, 3});
  b.Output("x_flat", kOnnxFloat, {6});
  // Declared before the session, so they outlive it: its holder may only go when it does.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> storage = x;
  bool released = false;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<const Tensor*> outputs;
  {
    Tensor t = Tensor::Borrow(DType::kFloat32, {2, 3}, storage.data());
    t.holder = std::shared_ptr<void>(storage.data(), [&storage, &released](void*) {
      std::fill(storage.begin(), storage.end(), -12345.f);  // what a reused heap block holds
      released = true;
    });
    std::vector<NamedTensor> feeds = {Feed("X", std::move(t))};
    Status s = session->Run(feeds, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }  // the caller drops its feeds, as WasmSession::run() does
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_FALSE(released) << "the session let go of storage its outputs still point at";
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(FloatValues(*outputs[i]), x) << "output " << i;
  }
}

// ---- Shape -> Gather -> Unsqueeze -> Concat -> Reshape on a dynamic batch

// X [N, 3, 4] -> Reshape(X, Concat(Unsqueeze(Gather(Shape(X), 0)), [-1])) -> [N, 12]
// -> MatMul W [12, 5] -> Y [N, 5].
std::string ShapeChainModel(const std::vector<float>& w) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {"N", 3, 4});
  b.Int64Init("zero", {}, {0});
  b.Int64Init("axes0", {1}, {0});
  b.Int64Init("minus_one", {1}, {-1});
  b.FloatInit("W", {12, 5}, w);
  b.Node("Shape", {"X"}, {"shape"}, "shape");
  b.Node("Gather", {"shape", "zero"}, {"batch"}, "gather").Int("axis", 0);
  b.Node("Unsqueeze", {"batch", "axes0"}, {"batch1"}, "unsqueeze");
  b.Node("Concat", {"batch1", "minus_one"}, {"target"}, "concat").Int("axis", 0);
  b.Node("Reshape", {"X", "target"}, {"flat"}, "reshape");
  b.Node("MatMul", {"flat", "W"}, {"Y"}, "matmul");
  b.Output("Y", kOnnxFloat, {"N", 5});
  return b.Bytes();
}

std::vector<float> MatMulReference(const std::vector<float>& x, const std::vector<float>& w,
                                   int64_t rows, int64_t inner, int64_t cols) {
  std::vector<float> y(rows * cols);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < inner; ++k)
        acc += static_cast<double>(x[i * inner + k]) * w[k * cols + j];
      y[i * cols + j] = static_cast<float>(acc);
    }
  }
  return y;
}

void RunShapeChain(Session* session, const std::vector<float>& w, int64_t n) {
  std::vector<float> x = RandomFloats(n * 12, 40 + static_cast<uint32_t>(n));
  std::vector<const Tensor*> outputs;
  Status s = session->Run({Feed("X", MakeFloat({n, 3, 4}, x))}, &outputs);
  ASSERT_TRUE(s.ok()) << "N=" << n << ": " << s.ToString();
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0]->shape, (Shape{n, 5}));
  ExpectNear(FloatValues(*outputs[0]), MatMulReference(x, w, n, 12, 5), "N=" + std::to_string(n));
}

TEST(Session, ShapeChainIsEvaluatedAtPlanTime) {
  const std::vector<float> w = RandomFloats(60, 9);
  std::unique_ptr<Session> session;
  Status s = CreateSession(ShapeChainModel(w), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(session->stats().graph_nodes, 6u);  // nothing is constant before shapes are known
  for (int64_t n : {1, 2, 3}) {
    RunShapeChain(session.get(), w, n);
    const PlanStats& plan = session->stats().last_plan;
    EXPECT_GE(plan.folded_nodes, 4u) << "N=" << n;  // Shape, Gather, Unsqueeze, Concat
    EXPECT_EQ(plan.shape_steps, 0u) << "N=" << n;
    EXPECT_EQ(plan.run_steps, 2u) << "N=" << n;  // Reshape (a view) and MatMul
  }
}

TEST(Session, PlanCacheKeyedByShapes) {
  const std::vector<float> w = RandomFloats(60, 10);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(ShapeChainModel(w), &session).ok());
  for (int64_t n : {1, 2, 1, 3, 2}) RunShapeChain(session.get(), w, n);
  EXPECT_EQ(session->stats().plans_built, 3u);
  EXPECT_EQ(session->stats().plan_cache_hits, 2u);
}

TEST(Session, PlanCacheEvictsWithOneSlot) {
  const std::vector<float> w = RandomFloats(60, 11);
  SessionOptions options;
  options.max_cached_plans = 1;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(ShapeChainModel(w), &session, options).ok());
  for (int64_t n : {1, 2, 1}) RunShapeChain(session.get(), w, n);
  EXPECT_EQ(session->stats().plans_built, 3u);  // N=1 was evicted by N=2 and rebuilt
  EXPECT_EQ(session->stats().plan_cache_hits, 0u);
  RunShapeChain(session.get(), w, 1);
  EXPECT_EQ(session->stats().plans_built, 3u);
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);
}

TEST(Session, PlanCacheEvictsLeastRecentlyUsed) {
  const std::vector<float> w = RandomFloats(60, 12);
  SessionOptions options;
  options.max_cached_plans = 2;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(ShapeChainModel(w), &session, options).ok());
  // 1: build [1]; 2: build [2,1]; 1: hit [1,2]; 3: build, evicts 2 [3,1]; 2: build [2,3];
  // 1: build (evicted by 2) [1,2]; 2: hit.
  for (int64_t n : {1, 2, 1, 3, 2, 1, 2}) RunShapeChain(session.get(), w, n);
  EXPECT_EQ(session->stats().plans_built, 5u);
  EXPECT_EQ(session->stats().plan_cache_hits, 2u);
}

TEST(Session, ZeroCachedPlansMeansOne) {
  const std::vector<float> w = RandomFloats(60, 13);
  SessionOptions options;
  options.max_cached_plans = 0;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(ShapeChainModel(w), &session, options).ok());
  for (int64_t n : {2, 2, 3}) RunShapeChain(session.get(), w, n);
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);
}

// A model whose float inputs all have fixed shapes can only run at those: create() plans it.
TEST(Session, FixedShapeModelIsPlannedWhileLoading) {
  const std::vector<float> w = RandomFloats(120, 14);
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, 40});
  b.FloatInit("W", {40, 3}, w);
  b.Node("MatMul", {"X", "W"}, {"Y"}, "matmul");
  b.Output("Y", kOnnxFloat, {2, 3});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 1u);
  Tensor x = RandomFloat({2, 40}, 15);
  std::vector<const Tensor*> outputs;
  Status s = session->Run({Feed("X", x)}, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(session->stats().plans_built, 1u);
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);
  ASSERT_EQ(outputs[0]->shape, (Shape{2, 3}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      double want = 0;
      for (int64_t k = 0; k < 40; ++k) want += double{x.ptr<float>()[i * 40 + k]} * w[k * 3 + j];
      EXPECT_NEAR(outputs[0]->ptr<float>()[i * 3 + j], want, 1e-5 * (1 + std::fabs(want)));
    }
  }
}

// Symbolic dims: planned by the first run. (A small input a plan specialises on, too:
// test_plan_time_inputs.cc.)
TEST(Session, ModelsWithoutOneFixedShapeArePlannedByTheirFirstRun) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {"N", 40});
  b.Node("Relu", {"X"}, {"Y"}, "relu");
  b.Output("Y", kOnnxFloat, {D("N"), D(40)});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 0u);
}

// The load-time plan fails on the model's own shapes: create() still succeeds, and every run
// reports the failing node, as it would have without planning at load.
TEST(Session, APlanThatFailsWhileLoadingFailsInRun) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, 40});
  b.Int64Init("shape", {2}, {7, 7});
  b.Node("Reshape", {"X", "shape"}, {"Y"}, "bad_reshape");
  b.Output("Y", kOnnxFloat, {7, 7});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 0u);
  for (int i = 0; i < 2; ++i) {
    std::vector<const Tensor*> outputs;
    Status s = session->Run({Feed("X", RandomFloat({2, 40}, 16))}, &outputs);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(HasSubstr(s.message(), "bad_reshape")) << s.message();
  }
}

// ---- Input validation

TEST(Session, SymbolBoundToTwoSizesNamesBothInputs) {
  ModelBuilder b;
  b.Input("left", kOnnxFloat, {"N", 3});
  b.Input("right", kOnnxFloat, {"N", 3});
  b.Node("Add", {"left", "right"}, {"Y"}, "add");
  b.Output("Y", kOnnxFloat, {"N", 3});
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(b.Bytes(), &session).ok());
  std::vector<const Tensor*> outputs;
  Status s = session->Run(
      {Feed("left", RandomFloat({2, 3}, 1)), Feed("right", RandomFloat({3, 3}, 2))}, &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "'left'")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "'right'")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "'N'")) << s.message();
  EXPECT_EQ(session->stats().plans_built, 0u);

  // Bound consistently it runs (feeds in any order).
  s = session->Run({Feed("right", MakeFloat({2, 3}, {1, 2, 3, 4, 5, 6})),
                    Feed("left", MakeFloat({2, 3}, {6, 5, 4, 3, 2, 1}))},
                   &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(FloatValues(*outputs[0]), std::vector<float>(6, 7.f));
}

TEST(Session, BadFeedsAreReportedAndTheSessionStillWorks) {
  ConvNet net;
  std::unique_ptr<Session> session;
  ASSERT_TRUE(CreateSession(net.Bytes(), &session).ok());
  RunConvNet(session.get(), net, 2, 1);

  struct Case {
    const char* what;
    std::vector<NamedTensor> feeds;
    ErrorCode code;
    const char* mentions;
  };
  std::vector<Case> cases;
  cases.push_back({"wrong name",
                   {Feed("x", RandomFloat({1, kC, kH, kW}, 1))},
                   ErrorCode::kInvalidInput,
                   "'x'"});
  {
    Tensor t;
    EXPECT_TRUE(Tensor::Allocate(DType::kInt64, {1, kC, kH, kW}, &t).ok());
    cases.push_back({"wrong dtype", {Feed("X", t)}, ErrorCode::kInvalidInput, "int64"});
  }
  cases.push_back({"missing", {}, ErrorCode::kInvalidInput, "'X'"});
  cases.push_back(
      {"twice",
       {Feed("X", RandomFloat({1, kC, kH, kW}, 1)), Feed("X", RandomFloat({1, kC, kH, kW}, 2))},
       ErrorCode::kInvalidInput,
       "twice"});
  cases.push_back(
      {"wrong rank", {Feed("X", RandomFloat({kC, kH, kW}, 1))}, ErrorCode::kShapeMismatch, "'X'"});
  cases.push_back({"rank too high",
                   {Feed("X", RandomFloat({1, 1, kC, kH, kW}, 1))},
                   ErrorCode::kShapeMismatch,
                   "'X'"});
  cases.push_back({"wrong fixed dim",
                   {Feed("X", RandomFloat({1, kC + 1, kH, kW}, 1))},
                   ErrorCode::kShapeMismatch,
                   "dimension 1"});
  cases.push_back({"wrong last dim",
                   {Feed("X", RandomFloat({1, kC, kH, kW - 1}, 1))},
                   ErrorCode::kShapeMismatch,
                   "dimension 3"});
  cases.push_back({"no data",
                   {Feed("X", Tensor::Borrow(DType::kFloat32, {1, kC, kH, kW}, nullptr))},
                   ErrorCode::kInvalidInput,
                   "no data"});
  cases.push_back({"negative dim",
                   {Feed("X", Tensor::Borrow(DType::kFloat32, {-1, kC, kH, kW}, nullptr))},
                   ErrorCode::kInvalidInput,
                   "'X'"});
  const size_t built_before = session->stats().plans_built;
  uint32_t seed = 50;
  for (const Case& c : cases) {
    std::vector<const Tensor*> outputs;
    Status s = session->Run(c.feeds, &outputs);
    EXPECT_EQ(s.code(), c.code) << c.what << ": " << s.ToString();
    EXPECT_TRUE(HasSubstr(s.message(), c.mentions)) << c.what << ": " << s.message();
    // A good run afterwards still gives the right answer.
    RunConvNet(session.get(), net, 1 + seed % 3, seed);
    ++seed;
  }
  EXPECT_LE(session->stats().plans_built, built_before + 2);  // batches 1 and 3 at most
}

// ---- Unsupported operators

TEST(Session, AllUnsupportedOperatorsInOneError) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2});
  b.Node("FancyOp", {"X"}, {"a"}, "fancy_1");
  b.Node("Relu", {"a"}, {"r"}, "relu");
  b.Node("WeirdOp", {"r"}, {"w"}, "weird_1");
  b.Node("FancyOp", {"w"}, {"Y"}, "fancy_2");
  b.Output("Y", kOnnxFloat, {2});
  Graph g;
  ASSERT_TRUE(LoadBytes(b.Bytes(), &g).ok());  // the loader knows no operator
  std::unique_ptr<Session> session;
  Status s = CreateSession(b.Bytes(), &session);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOperator) << s.ToString();
  for (const char* part : {"FancyOp", "WeirdOp", "'fancy_1'", "'fancy_2'", "'weird_1'"}) {
    EXPECT_TRUE(HasSubstr(s.message(), part)) << part << " not in: " << s.message();
  }
  EXPECT_FALSE(HasSubstr(s.message(), "'relu'")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "2 unsupported operators")) << s.message();
  EXPECT_EQ(session, nullptr);
}

TEST(Session, OperatorOfAnUnimportedDomainIsUnsupported) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2});
  b.Node("Relu", {"X"}, {"Y"}, "custom_relu").Domain("com.example");
  b.Output("Y", kOnnxFloat, {2});
  std::unique_ptr<Session> session;
  Status s = CreateSession(b.Bytes(), &session);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupportedOperator) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "custom_relu")) << s.message();
  EXPECT_TRUE(HasSubstr(s.message(), "com.example")) << s.message();
}

// ---- Small integer inputs: plans specialise on their contents

TEST(Session, RuntimeReshapeTargetIsSpecialised) {
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, 6});
  b.Input("target", kOnnxInt64, {2});
  b.FloatInit("one", {}, {1.f});
  b.Node("Reshape", {"X", "target"}, {"r"}, "reshape");
  b.Node("Add", {"r", "one"}, {"Y"}, "add");
  b.Output("Y", kOnnxFloat, {D(), D()});
  std::unique_ptr<Session> session;
  Status s = CreateSession(b.Bytes(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();

  const std::vector<float> x = RandomFloats(12, 21);
  std::vector<float> want(12);
  for (int i = 0; i < 12; ++i) want[i] = x[i] + 1.f;
  auto run = [&](std::vector<int64_t> target, Shape expect_shape) {
    std::vector<const Tensor*> outputs;
    Status st = session->Run(
        {Feed("X", MakeFloat({2, 6}, x)), Feed("target", MakeInt64({2}, target))}, &outputs);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(outputs[0]->shape, expect_shape);
    EXPECT_EQ(FloatValues(*outputs[0]), want);
  };
  run({3, 4}, {3, 4});
  EXPECT_EQ(session->stats().plans_built, 1u);
  run({4, 3}, {4, 3});  // same shapes, new contents: a new plan
  EXPECT_EQ(session->stats().plans_built, 2u);
  run({3, 4}, {3, 4});
  EXPECT_EQ(session->stats().plans_built, 2u);
  EXPECT_EQ(session->stats().plan_cache_hits, 1u);

  // A target that does not fit fails when planning; the session keeps working.
  std::vector<const Tensor*> outputs;
  s = session->Run({Feed("X", MakeFloat({2, 6}, x)), Feed("target", MakeInt64({2}, {5, 5}))},
                   &outputs);
  EXPECT_EQ(s.code(), ErrorCode::kShapeMismatch) << s.ToString();
  EXPECT_TRUE(HasSubstr(s.message(), "reshape")) << s.message();
  run({-1, 2}, {6, 2});
  run({0, -1}, {2, 6});
  EXPECT_EQ(session->stats().plans_built, 4u);
  // The reshape target is known at plan time: no integer steps at run time.
  EXPECT_EQ(session->stats().last_plan.shape_steps, 0u);
}

TEST(Session, SessionFromGraphRunsTheSameModel) {
  const std::vector<float> w = RandomFloats(60, 14);
  Graph g;
  ASSERT_TRUE(LoadBytes(ShapeChainModel(w), &g).ok());
  std::unique_ptr<Session> session;
  Status s = Session::CreateFromGraph(std::move(g), SessionOptions(), &session);
  ASSERT_TRUE(s.ok()) << s.ToString();
  RunShapeChain(session.get(), w, 2);
}

}  // namespace
}  // namespace webnx::testing

namespace webnx::testing {
namespace {

// Runs a model built two ways on one input X: `fused_model` lets the planner fuse, `plain_model`
// forbids it (an intermediate is also a graph output). Returns both outputs and sessions.
struct BothWays {
  std::unique_ptr<Session> fused, plain;
  std::vector<float> got, want;
};

void RunBothWays(const std::string& fused_model, const std::string& plain_model,
                 const Shape& x_shape, uint32_t seed, float lo, float hi, BothWays* out) {
  ASSERT_TRUE(CreateSession(fused_model, &out->fused).ok());
  ASSERT_TRUE(CreateSession(plain_model, &out->plain).ok());
  int64_t n = 1;
  for (int64_t d : x_shape) n *= d;
  const Tensor x = MakeFloat(x_shape, RandomFloats(static_cast<size_t>(n), seed, lo, hi));
  std::vector<const Tensor*> got, want;
  ASSERT_TRUE(out->fused->Run({Feed("X", x)}, &got).ok());
  ASSERT_TRUE(out->plain->Run({Feed("X", x)}, &want).ok());
  out->got = FloatValues(*got[0]);
  out->want = FloatValues(*want[0]);
}

// A residual block: Conv3x3 -> Relu -> Conv1x1 (+X) -> Relu, the sum written either way round,
// and a second sum whose addend (Conv "late") is computed after the conv it could fuse into.
// With `observe` the 1x1 conv's own output is a graph output too, which forbids the fusion: the
// two plans must agree.
std::string ResidualModel(bool observe, bool addend_first) {
  const int64_t c = 5, h = 7, w = 9;
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, c, h, w});
  b.FloatInit("W3", {c, c, 3, 3}, RandomFloats(c * c * 9, 11, -0.5f, 0.5f));
  b.FloatInit("B3", {c}, RandomFloats(c, 12, -0.5f, 0.5f));
  b.FloatInit("W1", {c, c, 1, 1}, RandomFloats(c * c, 13, -0.5f, 0.5f));
  b.FloatInit("B1", {c}, RandomFloats(c, 14, -0.5f, 0.5f));
  b.Node("Conv", {"X", "W3", "B3"}, {"a"}, "conv3").Ints("pads", {1, 1, 1, 1});
  b.Node("Relu", {"a"}, {"r"}, "relu_a");
  b.Node("Conv", {"r", "W1", "B1"}, {"p"}, "project");
  b.Node("Add",
         addend_first ? std::vector<std::string>{"X", "p"} : std::vector<std::string>{"p", "X"},
         {"s"}, "residual");
  b.Node("Relu", {"s"}, {"y"}, "relu_s");
  b.Node("Conv", {"y", "W1"}, {"early"}, "early");
  b.Node("Conv", {"y", "W1", "B1"}, {"late"}, "late");
  b.Node("Add", {"early", "late"}, {"z"}, "sum_two_convs");  // fuses into "late"
  b.Output("z", kOnnxFloat, {2, c, h, w});
  if (observe) b.Output("p", kOnnxFloat, {2, c, h, w});
  return b.Bytes();
}

TEST(Session, ResidualAddFusedIntoTheConvEpilogue) {
  for (bool addend_first : {false, true}) {
    BothWays r;
    RunBothWays(ResidualModel(false, addend_first), ResidualModel(true, addend_first), {2, 5, 7, 9},
                15, -2.f, 2.f, &r);
    ExpectNear(r.got, r.want, "fused residual");
    // fused: relu_a into conv3; residual and relu_s into project; sum_two_convs into late.
    EXPECT_EQ(r.fused->stats().last_plan.fused_nodes, 4u);
    EXPECT_EQ(r.fused->stats().last_plan.run_steps, 4u);
    // plain: project's output is observed, so only relu_a and sum_two_convs fuse.
    EXPECT_EQ(r.plain->stats().last_plan.fused_nodes, 2u);
  }
}

// Activations after convs: SiLU (x * Sigmoid(x)) after an im2col conv, HardSigmoid(x) * x after
// a 1x1 conv, HardSwish after a depthwise conv, a plain Sigmoid after a 1x1 conv, and SiLU after
// a Winograd conv (which keeps its own steps). With `observe` every conv output is also a graph
// output, which forbids the fusions: both plans must agree bit for bit.
std::string ActivationModel(bool observe) {
  const int64_t c = 5, h = 7, w = 9, wide = 16;
  ModelBuilder b(14);
  b.Input("X", kOnnxFloat, {2, c, h, w});
  b.FloatInit("W3", {c, c, 3, 3}, RandomFloats(c * c * 9, 21, -0.5f, 0.5f));
  b.FloatInit("B3", {c}, RandomFloats(c, 22, -0.5f, 0.5f));
  b.FloatInit("W1", {c, c, 1, 1}, RandomFloats(c * c, 23, -0.5f, 0.5f));
  b.FloatInit("Wd", {c, 1, 3, 3}, RandomFloats(c * 9, 24, -0.5f, 0.5f));
  b.FloatInit("Wup", {wide, c, 1, 1}, RandomFloats(wide * c, 25, -0.5f, 0.5f));
  b.FloatInit("Wwin", {wide, wide, 3, 3}, RandomFloats(wide * wide * 9, 26, -0.2f, 0.2f));
  b.Node("Conv", {"X", "W3", "B3"}, {"a"}, "conv_a").Ints("pads", {1, 1, 1, 1});
  b.Node("Sigmoid", {"a"}, {"sa"}, "sigmoid_a");
  b.Node("Mul", {"a", "sa"}, {"silu"}, "silu");
  b.Node("Conv", {"silu", "W1"}, {"b"}, "conv_b");
  b.Node("HardSigmoid", {"b"}, {"hb"}, "hard_sigmoid_b").Float("alpha", 0.3f).Float("beta", 0.45f);
  b.Node("Mul", {"hb", "b"}, {"hsw"}, "gate_b");
  b.Node("Conv", {"hsw", "Wd"}, {"d"}, "depthwise").Ints("pads", {1, 1, 1, 1}).Int("group", c);
  b.Node("HardSwish", {"d"}, {"dsw"}, "hard_swish");
  b.Node("Conv", {"dsw", "W1"}, {"e"}, "conv_e");
  b.Node("Sigmoid", {"e"}, {"z"}, "sigmoid_e");
  b.Node("Conv", {"z", "Wup"}, {"u"}, "up");
  b.Node("Conv", {"u", "Wwin"}, {"v"}, "winograd").Ints("pads", {1, 1, 1, 1});
  b.Node("Sigmoid", {"v"}, {"sv"}, "sigmoid_v");
  b.Node("Mul", {"sv", "v"}, {"out"}, "silu_v");
  b.Output("out", kOnnxFloat, {2, wide, h, w});
  if (observe) {
    for (const char* name : {"a", "b", "d", "e", "v"}) b.Output(name, kOnnxFloat, {});
  }
  return b.Bytes();
}

TEST(Session, ActivationsFusedIntoTheConvEpilogue) {
  BothWays r;
  RunBothWays(ActivationModel(false), ActivationModel(true), {2, 5, 7, 9}, 27, -3.f, 3.f, &r);
  EXPECT_EQ(r.got, r.want);
  // sigmoid_a + silu, hard_sigmoid_b + gate_b, hard_swish, sigmoid_e, and the depthwise conv
  // into conv_b (which reads the depthwise conv's input); the Winograd conv's Sigmoid and Mul stay
  // steps.
  EXPECT_EQ(r.fused->stats().last_plan.fused_nodes, 7u);
  EXPECT_EQ(r.fused->stats().last_plan.run_steps, 7u);
  EXPECT_EQ(r.plain->stats().last_plan.fused_nodes, 0u);
  EXPECT_EQ(r.plain->stats().last_plan.run_steps, 14u);
}

// Convs with one to three outputs (rows straight from X, conv::FewOutputs) take a residual, a
// clamp and a function into their epilogue like the GEMM: a 3x3 conv plus an earlier 1x1 conv's
// output, then Relu; a dilated 3x3 conv then SiLU. With `observe` the convs' outputs are graph
// outputs, which forbids the fusions: both plans must agree bit for bit.
std::string FewOutputsModel(bool observe) {
  const int64_t c = 5, h = 7, w = 21;
  ModelBuilder b(14);
  b.Input("X", kOnnxFloat, {2, c, h, w});
  b.FloatInit("W1", {2, c, 1, 1}, RandomFloats(2 * c, 51, -0.5f, 0.5f));
  b.FloatInit("W3", {2, c, 3, 3}, RandomFloats(2 * c * 9, 52, -0.5f, 0.5f));
  b.FloatInit("B3", {2}, RandomFloats(2, 53, -0.5f, 0.5f));
  b.FloatInit("Wd", {3, c, 3, 3}, RandomFloats(3 * c * 9, 54, -0.5f, 0.5f));
  b.Node("Conv", {"X", "W1"}, {"early"}, "early");
  b.Node("Conv", {"X", "W3", "B3"}, {"late"}, "late").Ints("pads", {1, 1, 1, 1});
  b.Node("Add", {"early", "late"}, {"sum"}, "sum");
  b.Node("Relu", {"sum"}, {"y"}, "relu");
  b.Node("Conv", {"X", "Wd"}, {"f"}, "dilated")
      .Ints("pads", {2, 2, 2, 2})
      .Ints("dilations", {2, 2});
  b.Node("Sigmoid", {"f"}, {"sf"}, "sigmoid");
  b.Node("Mul", {"f", "sf"}, {"z"}, "silu");
  b.Node("Concat", {"y", "z"}, {"out"}, "concat").Int("axis", 1);
  b.Output("out", kOnnxFloat, {2, 5, h, w});
  if (observe) {
    for (const char* name : {"late", "f"}) b.Output(name, kOnnxFloat, {});
  }
  return b.Bytes();
}

TEST(Session, FewOutputConvsFuseTheirEpilogue) {
  BothWays r;
  RunBothWays(FewOutputsModel(false), FewOutputsModel(true), {2, 5, 7, 21}, 55, -2.f, 2.f, &r);
  EXPECT_EQ(r.got, r.want);
  EXPECT_EQ(r.fused->stats().last_plan.fused_nodes, 4u);  // sum, relu; sigmoid, silu
  EXPECT_EQ(r.plain->stats().last_plan.fused_nodes, 0u);
}

// Two inverted-residual blocks as MobileNets have them: a 1x1 expand conv, its activation, a
// depthwise conv and its activation, a 1x1 project conv. Block 1: Clip(0, 6), depthwise 3x3
// stride 2 to 10 channels (a partial block of four); block 2: SiLU (x * Sigmoid(x)), depthwise
// 5x5 stride 1 dilation 1, HardSwish. Planes 11x13 (143 pixels: the GEMM's last panel is
// partial and panels cross image rows). With `observe` the convs' outputs are graph outputs,
// which forbids every fusion.
std::string ExpandDepthwiseModel(bool observe) {
  const int64_t c = 6, wide = 10, wide2 = 9, h = 11, w = 13;
  ModelBuilder b(14);
  b.Input("X", kOnnxFloat, {2, c, h, w});
  b.FloatInit("We", {wide, c, 1, 1}, RandomFloats(wide * c, 41, -0.6f, 0.6f));
  b.FloatInit("Be", {wide}, RandomFloats(wide, 42));
  b.FloatInit("Wd", {wide, 1, 3, 3}, RandomFloats(wide * 9, 43, -0.6f, 0.6f));
  b.FloatInit("Bd", {wide}, RandomFloats(wide, 44));
  b.FloatInit("Wp", {c, wide, 1, 1}, RandomFloats(c * wide, 45, -0.5f, 0.5f));
  b.FloatInit("We2", {wide2, c, 1, 1}, RandomFloats(wide2 * c, 46, -0.6f, 0.6f));
  b.FloatInit("Wd2", {wide2, 1, 5, 5}, RandomFloats(wide2 * 25, 47, -0.3f, 0.3f));
  b.FloatInit("Wp2", {c, wide2, 1, 1}, RandomFloats(c * wide2, 48, -0.5f, 0.5f));
  b.FloatInit("zero", {}, {0.f});
  b.FloatInit("six", {}, {6.f});
  b.Node("Conv", {"X", "We", "Be"}, {"e"}, "expand");
  b.Node("Clip", {"e", "zero", "six"}, {"e6"}, "relu6_e");
  b.Node("Conv", {"e6", "Wd", "Bd"}, {"d"}, "depthwise")
      .Ints("pads", {1, 1, 1, 1})
      .Ints("strides", {2, 2})
      .Int("group", wide);
  b.Node("Clip", {"d", "zero", "six"}, {"d6"}, "relu6_d");
  b.Node("Conv", {"d6", "Wp"}, {"p"}, "project");
  b.Node("Conv", {"p", "We2"}, {"f"}, "expand2");
  b.Node("Sigmoid", {"f"}, {"sf"}, "sigmoid_f");
  b.Node("Mul", {"f", "sf"}, {"silu"}, "silu_f");
  b.Node("Conv", {"silu", "Wd2"}, {"d2"}, "depthwise2")
      .Ints("pads", {2, 2, 2, 2})
      .Int("group", wide2);
  b.Node("HardSwish", {"d2"}, {"hd2"}, "hard_swish_d2");
  b.Node("Conv", {"hd2", "Wp2"}, {"y"}, "project2");
  b.Output("y", kOnnxFloat, {2, c, 6, 7});
  if (observe) {
    for (const char* name : {"e", "d", "f", "d2"}) b.Output(name, kOnnxFloat, {});
  }
  return b.Bytes();
}

TEST(Session, DepthwiseConvFusedIntoTheExpandConvBeforeIt) {
  BothWays r;
  RunBothWays(ExpandDepthwiseModel(false), ExpandDepthwiseModel(true), {2, 6, 11, 13}, 49, -2.f,
              2.f, &r);
  EXPECT_EQ(r.got, r.want);  // the same arithmetic for every output
  // Block 1: relu6_e, depthwise (into expand), relu6_d; block 2: sigmoid_f and silu_f,
  // depthwise2 (into expand2), hard_swish_d2.
  EXPECT_EQ(r.fused->stats().last_plan.fused_nodes, 7u);
  EXPECT_EQ(r.fused->stats().last_plan.run_steps, 4u);
  EXPECT_EQ(r.plain->stats().last_plan.fused_nodes, 0u);
  // The wide intermediates take no arena space.
  EXPECT_LT(r.fused->stats().last_plan.activation_bytes,
            r.plain->stats().last_plan.activation_bytes);
}

// Conv+bias -> BatchNormalization -> Relu, a bias-less Conv -> BatchNormalization, and a
// BatchNormalization after an Add (nothing to fold into). With `observe` the convs' outputs are
// graph outputs too, which keeps every BatchNormalization as a node of its own.
std::string BatchNormModel(bool observe) {
  const int64_t c = 6, h = 5, w = 7;
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {2, c, h, w});
  b.FloatInit("W", {c, c, 3, 3}, RandomFloats(c * c * 9, 31, -0.5f, 0.5f));
  b.FloatInit("B", {c}, RandomFloats(c, 32));
  b.FloatInit("Wd", {c, 1, 3, 3}, RandomFloats(c * 9, 33));
  const char* params[] = {"scale", "beta", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    b.FloatInit(params[i], {c}, RandomFloats(c, 34 + i, i == 3 ? 0.2f : -1.f, 2.f));
  }
  b.Node("Conv", {"X", "W", "B"}, {"a"}, "conv").Ints("pads", {1, 1, 1, 1});
  b.Node("BatchNormalization", {"a", "scale", "beta", "mean", "var"}, {"an"}, "bn_a")
      .Float("epsilon", 1e-3f);
  b.Node("Relu", {"an"}, {"r"}, "relu");
  b.Node("Conv", {"r", "Wd"}, {"d"}, "depthwise").Ints("pads", {1, 1, 1, 1}).Int("group", c);
  b.Node("BatchNormalization", {"d", "scale", "beta", "mean", "var"}, {"dn"}, "bn_d");
  b.Node("Add", {"dn", "X"}, {"s"}, "sum");
  b.Node("BatchNormalization", {"s", "scale", "beta", "mean", "var"}, {"y"}, "bn_sum");
  b.Output("y", kOnnxFloat, {2, c, h, w});
  if (observe) {
    b.Output("a", kOnnxFloat, {2, c, h, w});
    b.Output("d", kOnnxFloat, {2, c, h, w});
  }
  return b.Bytes();
}

TEST(Session, BatchNormFoldedIntoTheConvBeforeIt) {
  BothWays r;
  RunBothWays(BatchNormModel(false), BatchNormModel(true), {2, 6, 5, 7}, 38, -2.f, 2.f, &r);
  ExpectNear(r.got, r.want, "folded batch norm");
  EXPECT_EQ(r.fused->stats().loaded_nodes, 7u);
  EXPECT_EQ(r.fused->stats().graph_nodes, 5u);  // bn_a and bn_d folded; bn_sum stays
  EXPECT_EQ(r.plain->stats().graph_nodes, 7u);
}

// Two convs sharing one weight, each before a BatchNormalization with its own statistics: a
// fold must not scale the other conv's weights (weights only one conv reads are scaled in
// place).
std::string SharedWeightBatchNormModel(bool observe) {
  const int64_t c = 5, h = 6, w = 4;
  ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, c, h, w});
  b.FloatInit("W", {c, c, 1, 1}, RandomFloats(c * c, 41, -0.5f, 0.5f));
  for (int k = 0; k < 2; ++k) {
    const std::string n = std::to_string(k);
    const char* params[] = {"scale", "beta", "mean", "var"};
    for (int i = 0; i < 4; ++i) {
      b.FloatInit(params[i] + n, {c}, RandomFloats(c, 42 + 4 * k + i, i == 3 ? 0.2f : -1.f, 2.f));
    }
    b.Node("Conv", {k ? "b0" : "X", "W"}, {"a" + n}, "conv" + n);
    b.Node("BatchNormalization", {"a" + n, "scale" + n, "beta" + n, "mean" + n, "var" + n},
           {"b" + n}, "bn" + n);
  }
  b.Output("b1", kOnnxFloat, {1, c, h, w});
  if (observe) b.Output("a1", kOnnxFloat, {1, c, h, w});
  return b.Bytes();
}

// freeDimensionOverrides: a symbol given a size is declared fixed in the inputs and outputs; the
// model is then planned while it loads, and feeds of another size are refused.
TEST(Session, FixedSymbolicDimsArePlannedAtLoadAndChecked) {
  ModelBuilder b;
  b.Input("x", kOnnxFloat, {"N", "C"});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y", kOnnxFloat, {"N", "C"});
  const std::string bytes = b.Bytes();
  Graph graph;
  ASSERT_TRUE(Session::LoadOnnx(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                SessionOptions(), &graph)
                  .ok());
  FixSymbolicDims({{"N", 2}, {"other", 7}}, &graph);
  ASSERT_EQ(graph.inputs[0].dims.size(), 2u);
  EXPECT_EQ(graph.inputs[0].dims[0].value, 2);
  EXPECT_TRUE(graph.inputs[0].dims[0].symbol.empty());
  EXPECT_EQ(graph.inputs[0].dims[1].symbol, "C");  // not given: still symbolic
  EXPECT_EQ(graph.outputs[0].dims[0].value, 2);
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::CreateFromGraph(graph, SessionOptions(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 0u);  // C is still open
  FixSymbolicDims({{"C", 3}}, &graph);
  ASSERT_TRUE(Session::CreateFromGraph(graph, SessionOptions(), &session).ok());
  EXPECT_EQ(session->stats().plans_built, 1u);  // every input fixed: planned while loading
  std::vector<const Tensor*> out;
  EXPECT_TRUE(session->Run({{"x", RandomFloat({2, 3}, 1)}}, &out).ok());
  EXPECT_EQ(session->stats().plans_built, 1u);
  EXPECT_EQ(session->Run({{"x", RandomFloat({1, 3}, 1)}}, &out).code(), ErrorCode::kShapeMismatch);
}

TEST(Session, BatchNormFoldLeavesASharedWeightAlone) {
  BothWays r;
  RunBothWays(SharedWeightBatchNormModel(false), SharedWeightBatchNormModel(true), {1, 5, 6, 4}, 48,
              -2.f, 2.f, &r);
  ExpectNear(r.got, r.want, "batch norms folded into convs sharing a weight");
  EXPECT_EQ(r.fused->stats().graph_nodes, 2u);  // both folded
  EXPECT_EQ(r.plain->stats().graph_nodes, 3u);  // bn1 kept: conv1's output is observed
}

}  // namespace
}  // namespace webnx::testing
