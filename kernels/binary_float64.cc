// The float64 loops of the broadcasting elementwise ops (kernels/binary_common.h).
#include "kernels/binary_common.h"

namespace webnx::binary {

void BinaryLoopFloat64(BroadcastWalker& walker, const double* a, const double* b, double* out,
                       Float64Fn fn) {
  BinaryLoop(walker, a, b, out, fn);
}

void BinaryLoopFloat64(BroadcastWalker& walker, const double* a, const double* b, bool* out,
                       Float64Predicate fn) {
  BinaryLoop(walker, a, b, out, fn);
}

}  // namespace webnx::binary
