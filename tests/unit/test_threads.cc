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

TEST(Threads, DigitsModelIsBitIdenticalForAnyThreadCount) {
  const std::string bytes =
      ReadFile(std::string(WEBNX_SOURCE_DIR) + "/examples/digits/digits_mobilenet.onnx");
  ASSERT_FALSE(bytes.empty());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(0.f, 1.f);
  Tensor x;
  ASSERT_TRUE(Tensor::Allocate(DType::kFloat32, {5, 1, 8, 8}, &x).ok());
  for (int64_t i = 0; i < x.numel(); ++i) x.ptr<float>()[i] = dist(rng);
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

}  // namespace
}  // namespace webnx
