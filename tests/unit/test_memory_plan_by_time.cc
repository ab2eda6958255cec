// PlaceBuffersByTime (core/memory_plan_by_time.cc), the placement of plans with more than
// kMaxBuffersPlacedBySize buffers: never overlapping, deterministic, and fast on huge chains.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <random>

#include "core/memory_plan.h"

namespace webnx {
namespace {

size_t Padded(size_t bytes) {
  return std::max<size_t>(64, (bytes + 63) / 64 * 64);
}

void ExpectNoOverlap(const std::vector<BufferLifetime>& b, const std::vector<size_t>& offsets,
                     size_t arena) {
  ASSERT_EQ(offsets.size(), b.size());
  size_t sum = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(offsets[i] % 64, 0u);
    EXPECT_LE(offsets[i] + Padded(b[i].bytes), arena);
    sum += Padded(b[i].bytes);
    for (size_t j = i + 1; j < b.size(); ++j) {
      const bool together = b[i].first_step <= b[j].last_step && b[j].first_step <= b[i].last_step;
      const bool apart = offsets[i] + Padded(b[i].bytes) <= offsets[j] ||
                         offsets[j] + Padded(b[j].bytes) <= offsets[i];
      if (together && !apart) {
        ADD_FAILURE() << "buffers " << i << " and " << j << " overlap";
        return;
      }
    }
  }
  EXPECT_LE(arena, sum);
}

TEST(MemoryPlanByTime, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    const int steps = 1 + static_cast<int>(rng() % 40);
    std::vector<BufferLifetime> buffers(rng() % 120);
    for (auto& b : buffers) {
      b.bytes = rng() % 3 == 0 ? rng() % 100 : 1 + rng() % 20000;
      b.first_step = static_cast<int>(rng() % steps);
      b.last_step = rng() % 8 == 0
                        ? INT_MAX
                        : b.first_step + static_cast<int>(rng() % (steps - b.first_step));
    }
    size_t arena = 0, again = 0;
    const std::vector<size_t> offsets = PlaceBuffersByTime(buffers, &arena);
    ExpectNoOverlap(buffers, offsets, arena);
    EXPECT_EQ(PlaceBuffersByTime(buffers, &again), offsets);
    EXPECT_EQ(again, arena);
    if (::testing::Test::HasFailure()) break;
  }
}

// A 200,000-node chain: the plan of a hostile (but within-limits) model must not take hours.
TEST(MemoryPlanByTime, HugeChainIsFastAndReusesMemory) {
  std::vector<BufferLifetime> chain;
  for (int i = 0; i < 200000; ++i) chain.push_back({1000, i, i + 1});
  const auto start = std::chrono::steady_clock::now();
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers(chain, &arena);  // dispatches here
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(arena, 2 * Padded(1000));
  EXPECT_LT(seconds, 20.0);  // generous for sanitizer builds; the quadratic search took hours
  for (size_t i = 0; i + 1 < chain.size(); ++i) EXPECT_NE(offsets[i], offsets[i + 1]);
}

}  // namespace
}  // namespace webnx
