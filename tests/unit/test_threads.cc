// The thread pool, and the promise built on it: any thread count gives bit-identical outputs.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "core/session.h"
#include "core/thread_pool.h"
#include "tests/unit/model_builder.h"

namespace webnx {
namespace {

TEST(ThreadPool, RunsEveryTaskOnceWithSlotsInRange) {
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t tasks : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, int64_t{1000}}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(tasks));
      std::atomic<bool> bad_slot{false};
      const int allowed = std::min(threads, ThreadPool::MaxThreads());
      ThreadPool::Global().Run(threads, tasks, [&](int64_t task, int slot) {
        hits[task]++;
        if (slot < 0 || slot >= allowed) bad_slot = true;
      });
      for (int64_t t = 0; t < tasks; ++t) EXPECT_EQ(hits[t].load(), 1) << t;
      EXPECT_FALSE(bad_slot);
    }
  }
}

TEST(ThreadPool, NestedAndConcurrentRunsComplete) {
  // The single-threaded wasm build cannot start a std::thread at all.
  if (ThreadPool::MaxThreads() == 1) GTEST_SKIP() << "this build has no threads";
  std::atomic<int64_t> sum{0};
  auto job = [&] {
    ThreadPool::Global().Run(3, 50, [&](int64_t task, int) {
      ThreadPool::Global().Run(3, 4, [&](int64_t inner, int) { sum += task * 4 + inner; });
    });
  };
  std::thread other(job);
  job();
  other.join();
  EXPECT_EQ(sum.load(), 2 * (200 * 199 / 2));
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs the model on x with 1-4 threads: every output must be the same bits.
void ExpectBitIdenticalForAnyThreadCount(const std::string& bytes, const Tensor& x) {
  std::vector<float> reference;
  for (int threads : {1, 2, 3, 4}) {
    SessionOptions options;
    options.num_threads = threads;
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::CreateFromOnnx(reinterpret_cast<const uint8_t*>(bytes.data()),
                                        bytes.size(), options, &session)
                    .ok());
    std::vector<const Tensor*> outputs;
    Status s = session->Run({NamedTensor{session->inputs()[0].name, x}}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const float* y = outputs[0]->ptr<float>();
    std::vector<float> got(y, y + outputs[0]->numel());
    if (reference.empty()) {
      reference = got;
    } else {
      ASSERT_EQ(0, std::memcmp(got.data(), reference.data(), got.size() * sizeof(float)))
          << threads << " threads";
    }
  }
}

TEST(Threads, DigitsModelIsBitIdenticalForAnyThreadCount) {
  const std::string bytes =
      ReadFile(std::string(WEBNX_SOURCE_DIR) + "/examples/digits/digits_mobilenet.onnx");
  ASSERT_FALSE(bytes.empty());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {5, 1, 8, 8}, &x).ok());
  for (int64_t i = 0; i < x.numel(); ++i) x.ptr<float>()[i] = dist(rng);
  ExpectBitIdenticalForAnyThreadCount(bytes, x);
}

// Small planes split their output channels over threads (GEMM row chunks; Winograd channel
// chunks): a Winograd conv on 7x7 planes with 20 output channels (a partial chunk), a 1x1 and a
// depthwise conv after it, bit-identical for any thread count.
TEST(Threads, SmallPlaneChannelSplitsAreBitIdentical) {
  using testing::kOnnxFloat;
  testing::ModelBuilder b;
  b.Input("X", kOnnxFloat, {1, 24, 7, 7});
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-0.3f, 0.3f);
  auto values = [&](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  };
  b.FloatInit("W", {20, 24, 3, 3}, values(20 * 24 * 9));
  b.FloatInit("B", {20}, values(20));
  b.FloatInit("P", {36, 20, 1, 1}, values(36 * 20));
  b.FloatInit("D", {36, 1, 3, 3}, values(36 * 9));
  b.Node("Conv", {"X", "W", "B"}, {"a"}, "winograd").Ints("pads", {1, 1, 1, 1});
  b.Node("Relu", {"a"}, {"r"});
  b.Node("Conv", {"r", "P"}, {"p"}, "pointwise");
  b.Node("Conv", {"p", "D"}, {"Y"}, "depthwise").Ints("pads", {1, 1, 1, 1}).Int("group", 36);
  b.Output("Y", kOnnxFloat, {1, 36, 7, 7});
  const std::string bytes = b.Bytes();
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {1, 24, 7, 7}, &x).ok());
  for (int64_t i = 0; i < x.numel(); ++i) x.ptr<float>()[i] = dist(rng);
  ExpectBitIdenticalForAnyThreadCount(bytes, x);
}

}  // namespace
}  // namespace webnx
