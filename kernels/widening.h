// Kernels that compute the narrow dtypes in a wider one: int8, uint8, int16 and uint16 in int32,
// uint32 in int64, float16 in float32, and where the op allows it uint64 in int64 (Uint64As). Each
// input of a narrow dtype is converted before the wrapped kernel runs and each output of the wide
// dtype converted back, integers wrapping (so modular arithmetic, comparisons, min/max, division
// and bit operations give the narrow type's own results) and float16 rounding to nearest even once
// per op, as onnxruntime computes its float16 CPU kernels. Only the wide loops are compiled, so a
// new dtype costs no code per op.
#pragma once

#include <memory>

#include "core/op_registry.h"

namespace webnx {

// uint64 has no wider dtype; int64 computes it exactly for two kinds of op. kModular: the bits as
// they are, for ops that are the same on both in two's complement (add, sub, mul, the bit
// operations, equality). kOrdered: the value minus 2^63 (the top bit flipped), which keeps the
// order, for comparisons and min/max. Division and the others do not compute uint64 (kNone).
enum class Uint64As { kNone, kModular, kOrdered };

// The 8- and 16-bit integers compute in int32, or in float32 for an op whose results are values
// of its inputs (max pooling): every such integer is a float32, so the result is exact.
enum class SmallIntsAs { kInt32, kFloat32 };

// The dtype a narrow dtype computes in (itself for the others).
DType WideDTypeOf(DType dtype, Uint64As uint64_as = Uint64As::kNone,
                  SmallIntsAs small_ints_as = SmallIntsAs::kInt32);

// A new kernel (the caller owns it, as a KernelFactory's) computing `inner`'s op widened.
Kernel* WidenNarrowDTypes(std::unique_ptr<Kernel> inner, Uint64As uint64_as = Uint64As::kNone,
                          SmallIntsAs small_ints_as = SmallIntsAs::kInt32);
// The same with the inner kernel made by `inner` (out of line: the factories below stay thunks).
Kernel* WidenNarrowDTypesOf(KernelFactory inner, Uint64As uint64_as, SmallIntsAs small_ints_as);

// A factory for the registry: the kernel kInner makes, computing narrow dtypes widened. For
// ops whose outputs have input 0's dtype or a fixed one that is no wide dtype (bool), and that
// read no constant in a derived form (PlanContext::Form): a widened constant is the plan's own
// tensor, not a session constant the ConstantCache may key a form on.
template <KernelFactory kInner, Uint64As kUint64As = Uint64As::kNone,
          SmallIntsAs kSmallIntsAs = SmallIntsAs::kInt32>
Kernel* MakeWidening() {
  return WidenNarrowDTypesOf(kInner, kUint64As, kSmallIntsAs);
}

}  // namespace webnx
