// The epilogue order rule (core/epilogue.h): what a producer accepts, and a residual sum, then a
// clamp, then one function, whatever order the planner offers them in.
#include <gtest/gtest.h>

#include "core/epilogue.h"

namespace webnx {
namespace {

Epilogue AcceptingAll() {
  Epilogue e;
  e.accepts_addend = e.accepts_clamp = e.accepts_function = true;
  e.addend_input = 3;
  return e;
}

TEST(Epilogue, TakesOnlyTheStagesItsKernelAccepts) {
  Epilogue none;
  EXPECT_FALSE(none.AddAddend());
  EXPECT_FALSE(none.AddClamp(0.f, 6.f));
  EXPECT_FALSE(none.AddFunction({1, 0.f, 0.f, false}));
  EXPECT_FALSE(none.HasClamp());
  EXPECT_FALSE(none.HasFunction());
  Epilogue no_slot = AcceptingAll();
  no_slot.addend_input = -1;
  EXPECT_FALSE(no_slot.AddAddend());
}

TEST(Epilogue, ClampsMergeIntoTheNarrowest) {
  Epilogue e = AcceptingAll();
  EXPECT_TRUE(e.AddClamp(0.f, INFINITY));
  EXPECT_TRUE(e.AddClamp(-1.f, 6.f));
  EXPECT_EQ(e.clamp_lo, 0.f);
  EXPECT_EQ(e.clamp_hi, 6.f);
}

TEST(Epilogue, ASumComesFirstAndAFunctionLast) {
  Epilogue e = AcceptingAll();
  EXPECT_TRUE(e.AddAddend());
  EXPECT_FALSE(e.AddAddend());  // one addend
  EXPECT_TRUE(e.AddClamp(0.f, 6.f));
  EXPECT_FALSE(e.AddAddend());  // a sum after a clamp would be applied before it
  EXPECT_FALSE(e.AddFunction({0, 0.f, 0.f, false}));  // kind 0 is no function
  EXPECT_TRUE(e.AddFunction({2, 0.2f, 0.5f, true}));
  EXPECT_FALSE(e.AddClamp(0.f, 1.f));  // nothing after the function
  EXPECT_FALSE(e.AddFunction({1, 0.f, 0.f, false}));
  EXPECT_EQ(e.clamp_hi, 6.f);
  EXPECT_EQ(e.function.kind, 2);
  EXPECT_TRUE(e.function.gated);
}

}  // namespace
}  // namespace webnx
