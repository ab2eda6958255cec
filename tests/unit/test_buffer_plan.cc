// BufferPlan (core/buffer_plan.cc): buffers placed inside others (a Concat's inputs written where
// its output holds them) share their host's bytes, and the host keeps them from every buffer
// alive while any of them is.
#include <gtest/gtest.h>

#include <climits>
#include <deque>
#include <random>
#include <string>

#include "core/buffer_plan.h"

namespace webnx {
namespace {

// Slots for a plan's values; a deque so that their addresses stay put.
struct Values {
  std::deque<Tensor> slots;
  Tensor* New(size_t bytes) {
    slots.push_back(Tensor::Borrow(DType::kUint8, {static_cast<int64_t>(bytes)}, nullptr));
    return &slots.back();
  }
};

TEST(BufferPlan, APlacedBufferIsItsHostsBytesAtItsOffset) {
  BufferPlan plan;
  Values v;
  Tensor* a = v.New(100);
  Tensor* b = v.New(60);
  Tensor* c = v.New(160);
  Tensor* d = v.New(160);  // written while a and b are alive: must not touch c's bytes
  Tensor* outer = v.New(400);
  plan.Add("a", a, 0);
  plan.Add("d", d, 0);
  plan.Add("b", b, 1);
  plan.ReadAt("d", 2);
  plan.Add("c", c, 2);
  plan.ReadAt("a", 2);
  plan.ReadAt("b", 2);
  ASSERT_TRUE(plan.PlaceInside("a", "c", 0, 100));
  ASSERT_TRUE(plan.PlaceInside("b", "c", 100, 60));
  plan.Add("outer", outer, 3);
  plan.ReadAt("c", 3);
  ASSERT_TRUE(plan.PlaceInside("c", "outer", 240, 160));  // a Concat of a Concat
  const size_t arena = plan.Layout();
  std::vector<uint8_t> bytes(arena);
  plan.Bind(bytes.data());
  const uint8_t* base = static_cast<const uint8_t*>(outer->data);
  EXPECT_EQ(c->data, base + 240);
  EXPECT_EQ(a->data, base + 240);
  EXPECT_EQ(b->data, base + 340);
  // d lives from step 0 to 2, as a does inside outer: their bytes are apart.
  const uint8_t* dp = static_cast<const uint8_t*>(d->data);
  EXPECT_TRUE(dp + 160 <= base || base + 400 <= dp);
  EXPECT_GE(arena, 560u);
}

TEST(BufferPlan, PlaceInsideRefusesWhatItCannotPlace) {
  BufferPlan plan;
  Values v;
  plan.Add("x", v.New(64), 0);
  plan.Add("y", v.New(32), 1);
  plan.Add("host", v.New(96), 2);
  plan.Add("other", v.New(96), 3);
  EXPECT_FALSE(plan.PlaceInside("input", "host", 0, 64));  // no buffer (a graph input)
  EXPECT_FALSE(plan.PlaceInside("x", "constant", 0, 64));
  EXPECT_FALSE(plan.PlaceInside("x", "x", 0, 64));
  EXPECT_FALSE(plan.PlaceInside("x", "host", 0, 63));   // the buffer holds more than that
  EXPECT_FALSE(plan.PlaceInside("x", "host", 40, 64));  // past the host's end
  ASSERT_TRUE(plan.Share("x_view", "x", nullptr));
  ASSERT_TRUE(plan.PlaceInside("x_view", "host", 0, 64));  // a whole view: x's buffer itself
  EXPECT_FALSE(plan.PlaceInside("x", "other", 0, 64));     // placed already
  ASSERT_TRUE(plan.PlaceInside("host", "other", 0, 96));
  EXPECT_FALSE(plan.PlaceInside("other", "x", 0, 64));  // x is inside other already
}

// Random plans: values written at a step and read later, some placed inside others at
// disjoint offsets (as Concat does). Any two buffers alive at one step whose bytes overlap must
// be one inside the other.
TEST(BufferPlan, RandomPlacementsNeverOverlapWhatIsAlive) {
  std::mt19937 rng(20261130);
  for (int trial = 0; trial < 500; ++trial) {
    BufferPlan plan;
    Values v;
    const int count = 2 + static_cast<int>(rng() % 30);
    std::vector<Tensor*> slot;
    std::vector<int> first, last, host(count, -1);
    std::vector<size_t> used(count, 0);  // bytes of each buffer given to placed ones
    for (int i = 0; i < count; ++i) {
      const std::string name = "v" + std::to_string(i);
      slot.push_back(v.New(1 + rng() % 3000));
      first.push_back(i);
      last.push_back(rng() % 9 == 0 ? INT_MAX : i + static_cast<int>(rng() % 6));
      plan.Add(name, slot[i], i);
      plan.ReadAt(name, last[i]);
      // Earlier values read at this step may be placed inside it, one after the other.
      for (int j = 0; j < i; ++j) {
        if (host[j] >= 0 || last[j] < i || rng() % 3 != 0) continue;
        const size_t bytes = slot[j]->nbytes();
        if (slot[i]->nbytes() - used[i] < bytes) continue;
        ASSERT_TRUE(plan.PlaceInside("v" + std::to_string(j), name, used[i], bytes));
        host[j] = i;
        used[i] += bytes;
      }
    }
    std::vector<uint8_t> arena(plan.Layout() + 1);
    plan.Bind(arena.data());
    auto inside = [&](int a, int b) {  // a within b's chain of hosts
      for (int h = host[a]; h >= 0; h = host[h])
        if (h == b) return true;
      return false;
    };
    for (int i = 0; i < count; ++i) {
      const uint8_t* pi = static_cast<const uint8_t*>(slot[i]->data);
      ASSERT_LE(pi + slot[i]->nbytes(), arena.data() + arena.size());
      for (int j = i + 1; j < count; ++j) {
        if (first[i] > last[j] || first[j] > last[i] || inside(i, j) || inside(j, i)) continue;
        const uint8_t* pj = static_cast<const uint8_t*>(slot[j]->data);
        EXPECT_TRUE(pi + slot[i]->nbytes() <= pj || pj + slot[j]->nbytes() <= pi)
            << "trial " << trial << ": v" << i << " and v" << j << " overlap";
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace webnx
