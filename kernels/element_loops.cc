// The shared float64 loops of the elementwise ops (kernels/binary_common.h,
// kernels/unary_common.h): one loop for all ops, calling the op per element; and the uint64 one
// of division and remainder.
#include "kernels/binary_common.h"
#include "kernels/unary_common.h"

namespace webnx::unary {

void UnaryLoopFloat64(const double* in, double* out, int64_t n, double (*fn)(double)) {
  for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]);
}

}  // namespace webnx::unary

namespace webnx::binary {

void BinaryLoopFloat64(BroadcastWalker& walker, const double* a, const double* b, double* out,
                       Float64Fn fn) {
  BinaryLoop(walker, a, b, out, fn);
}

void BinaryLoopFloat64(BroadcastWalker& walker, const double* a, const double* b, bool* out,
                       Float64Predicate fn) {
  BinaryLoop(walker, a, b, out, fn);
}

void BinaryLoopUint64(BroadcastWalker& walker, const uint64_t* a, const uint64_t* b, uint64_t* out,
                      Uint64Fn fn) {
  BinaryLoop(walker, a, b, out, fn);
}

}  // namespace webnx::binary
