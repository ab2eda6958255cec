// The SIMD paths of float Add, Sub, Mul and Div (kernels/simd/arith.h), which BinaryKernel
// (binary.cc) takes when the operands' shapes allow: which ops have one, and ArithFastPath.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/kernel.h"
#include "kernels/binary_common.h"
#include "kernels/simd/arith.h"

namespace webnx::binary {

// The float ops with a SIMD path for same-shape and per-plane operands (kernels/simd/arith.h).
template <typename Op>
constexpr bool kHasFloatArith = std::is_same_v<Op, AddOp> || std::is_same_v<Op, SubOp> ||
                                std::is_same_v<Op, MulOp> || std::is_same_v<Op, DivOp>;

template <typename Op>
constexpr simd::ArithOp FloatArithOf() {
  if constexpr (std::is_same_v<Op, SubOp>) return simd::ArithOp::kSub;
  if constexpr (std::is_same_v<Op, MulOp>) return simd::ArithOp::kMul;
  if constexpr (std::is_same_v<Op, DivOp>) return simd::ArithOp::kDiv;
  return simd::ArithOp::kAdd;
}

// Float operands of one shape, or one full and the other one value per run of `inner`
// trailing elements (a per-channel scale [1, C, 1, 1], a scalar): the SIMD paths. One class
// for the four ops keeps the download small.
class ArithFastPath {
 public:
  bool active() const { return kind_ != Kind::kNone; }

  void Plan(simd::ArithOp op, const Shape& a, const Shape& b, const Shape& out);
  void Run(const RunContext& ctx, const float* a, const float* b, float* y) const;

 private:
  enum class Kind { kNone, kSame, kPlanes };
  Kind kind_ = Kind::kNone;
  simd::ArithOp op_ = simd::ArithOp::kAdd;
  int64_t numel_ = 0;
  int64_t inner_ = 1;        // kPlanes: elements sharing one value of the small operand
  bool small_is_b_ = false;  // kPlanes: which operand is the small one
};

}  // namespace webnx::binary
