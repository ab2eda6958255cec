// PlaceBuffers (core/memory_plan.cc): the static arena placement of a plan's activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>

#include "core/memory_plan.h"

namespace webnx {
namespace {

constexpr size_t kAlign = 64;

size_t Padded(size_t bytes) {
  return std::max(kAlign, (bytes + kAlign - 1) / kAlign * kAlign);
}

bool LifetimesOverlap(const BufferLifetime& a, const BufferLifetime& b) {
  return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// Checks every property a placement must have; returns the number of violations.
void CheckPlacement(const std::vector<BufferLifetime>& buffers, const std::vector<size_t>& offsets,
                    size_t arena, const std::string& label) {
  ASSERT_EQ(offsets.size(), buffers.size()) << label;
  size_t sum = 0;
  size_t peak_live = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    sum += Padded(buffers[i].bytes);
    EXPECT_EQ(offsets[i] % kAlign, 0u) << label << ": buffer " << i << " at " << offsets[i];
    EXPECT_LE(offsets[i] + buffers[i].bytes, arena) << label << ": buffer " << i;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      if (!LifetimesOverlap(buffers[i], buffers[j])) continue;
      if (buffers[i].bytes == 0 || buffers[j].bytes == 0) continue;  // no bytes to share
      const bool disjoint = offsets[i] + buffers[i].bytes <= offsets[j] ||
                            offsets[j] + buffers[j].bytes <= offsets[i];
      EXPECT_TRUE(disjoint) << label << ": buffers " << i << " [" << offsets[i] << ", +"
                            << buffers[i].bytes << ") steps [" << buffers[i].first_step << ", "
                            << buffers[i].last_step << "] and " << j << " [" << offsets[j] << ", +"
                            << buffers[j].bytes << ") steps [" << buffers[j].first_step << ", "
                            << buffers[j].last_step << "] overlap";
    }
  }
  // Whatever is alive at one step must fit side by side.
  std::vector<int> steps;
  for (const auto& b : buffers) steps.push_back(b.first_step);
  for (int s : steps) {
    size_t live = 0;
    for (const auto& b : buffers)
      if (b.first_step <= s && s <= b.last_step) live += b.bytes;
    peak_live = std::max(peak_live, live);
  }
  EXPECT_GE(arena, peak_live) << label;
  EXPECT_LE(arena, sum) << label;
}

TEST(MemoryPlan, EmptyPlanHasAnEmptyArena) {
  size_t arena = 123;
  std::vector<size_t> offsets = PlaceBuffers({}, &arena);
  EXPECT_TRUE(offsets.empty());
  EXPECT_EQ(arena, 0u);
}

TEST(MemoryPlan, SingleBufferIsPaddedToTheAlignment) {
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers({BufferLifetime{100, 0, 0}}, &arena);
  ASSERT_EQ(offsets.size(), 1u);
  EXPECT_EQ(offsets[0], 0u);
  EXPECT_EQ(arena, 128u);
  offsets = PlaceBuffers({BufferLifetime{0, 0, 3}}, &arena);
  EXPECT_EQ(arena, 64u);  // even an empty tensor gets a distinct, aligned address
}

TEST(MemoryPlan, ChainReusesMemory) {
  // A -> B -> C -> D: each buffer is read by the next step only, so C can take A's bytes and
  // D can take B's; the arena holds two buffers, not four.
  const std::vector<BufferLifetime> buffers = {
      {1000, 0, 1},
      {1000, 1, 2},
      {1000, 2, 3},
      {1000, 3, INT_MAX},  // a graph output: alive after the run
  };
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers, &arena);
  CheckPlacement(buffers, offsets, arena, "chain");
  EXPECT_EQ(arena, 2 * Padded(1000));
  EXPECT_EQ(offsets[0], offsets[2]);
  EXPECT_EQ(offsets[1], offsets[3]);
  EXPECT_NE(offsets[0], offsets[1]);
}

TEST(MemoryPlan, SmallBufferFillsAGap) {
  // Two big buffers alive at once, then a small one alive together with only the second:
  // it must go into the first's bytes, not past the end.
  const std::vector<BufferLifetime> buffers = {
      {4096, 0, 1},
      {4096, 0, 3},
      {64, 2, 3},
  };
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers, &arena);
  CheckPlacement(buffers, offsets, arena, "gap");
  EXPECT_EQ(arena, 2 * 4096u);
}

TEST(MemoryPlan, EverythingAliveNeedsTheSum) {
  std::vector<BufferLifetime> buffers;
  size_t sum = 0;
  for (int i = 0; i < 10; ++i) {
    buffers.push_back({static_cast<size_t>(1 + 37 * i), 0, INT_MAX});
    sum += Padded(1 + 37 * i);
  }
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers, &arena);
  CheckPlacement(buffers, offsets, arena, "all alive");
  EXPECT_EQ(arena, sum);
}

TEST(MemoryPlan, DisjointLifetimesShareOneBuffer) {
  std::vector<BufferLifetime> buffers;
  for (int i = 0; i < 8; ++i) buffers.push_back({static_cast<size_t>(100 * (i + 1)), i, i});
  size_t arena = 0;
  std::vector<size_t> offsets = PlaceBuffers(buffers, &arena);
  CheckPlacement(buffers, offsets, arena, "disjoint");
  EXPECT_EQ(arena, Padded(800));
  for (size_t off : offsets) EXPECT_EQ(off, 0u);
}

TEST(MemoryPlan, RandomLifetimesNeverOverlap) {
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 2000; ++trial) {
    const int steps = 1 + static_cast<int>(rng() % 30);
    const int count = static_cast<int>(rng() % 40);
    std::vector<BufferLifetime> buffers;
    for (int i = 0; i < count; ++i) {
      BufferLifetime b;
      switch (rng() % 4) {  // a mix of tiny, aligned, odd and large sizes
        case 0:
          b.bytes = rng() % 70;
          break;
        case 1:
          b.bytes = 64 * (1 + rng() % 16);
          break;
        case 2:
          b.bytes = 1 + rng() % 5000;
          break;
        default:
          b.bytes = 1 + rng() % (1 << 20);
          break;
      }
      b.first_step = static_cast<int>(rng() % steps);
      b.last_step = rng() % 8 == 0
                        ? INT_MAX
                        : b.first_step + static_cast<int>(rng() % (steps - b.first_step));
      buffers.push_back(b);
    }
    size_t arena = 0;
    std::vector<size_t> offsets = PlaceBuffers(buffers, &arena);
    CheckPlacement(buffers, offsets, arena, "trial " + std::to_string(trial));
    if (::testing::Test::HasFailure()) break;  // one failing trial is enough output
  }
}

TEST(MemoryPlan, PlacementIsDeterministic) {
  std::mt19937 rng(7);
  std::vector<BufferLifetime> buffers;
  for (int i = 0; i < 50; ++i) {
    const int first = static_cast<int>(rng() % 20);
    buffers.push_back({1 + rng() % 10000, first, first + static_cast<int>(rng() % 5)});
  }
  size_t a1 = 0, a2 = 0;
  EXPECT_EQ(PlaceBuffers(buffers, &a1), PlaceBuffers(buffers, &a2));
  EXPECT_EQ(a1, a2);
}

}  // namespace
}  // namespace webnx
