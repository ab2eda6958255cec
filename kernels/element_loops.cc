// The shared element loops (kernels/binary_common.h, kernels/unary_common.h): one loop per
// element type for every op, calling the op per element.
#include "kernels/binary_common.h"
#include "kernels/unary_common.h"

namespace webnx::unary {

void UnaryLoopFloat64(const double* in, double* out, int64_t n, double (*fn)(double)) {
  for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]);
}

}  // namespace webnx::unary

namespace webnx::binary {

template <typename T, typename Out>
void SharedBinaryLoop(BroadcastWalker& walker, const T* a, const T* b, Out* out,
                      ElementFn<T, Out> fn) {
  BinaryLoop(walker, a, b, out, fn);
}

template void SharedBinaryLoop(BroadcastWalker&, const int32_t*, const int32_t*, int32_t*,
                               ElementFn<int32_t, int32_t>);
template void SharedBinaryLoop(BroadcastWalker&, const int32_t*, const int32_t*, bool*,
                               ElementFn<int32_t, bool>);
template void SharedBinaryLoop(BroadcastWalker&, const int64_t*, const int64_t*, int64_t*,
                               ElementFn<int64_t, int64_t>);
template void SharedBinaryLoop(BroadcastWalker&, const int64_t*, const int64_t*, bool*,
                               ElementFn<int64_t, bool>);
template void SharedBinaryLoop(BroadcastWalker&, const uint64_t*, const uint64_t*, uint64_t*,
                               ElementFn<uint64_t, uint64_t>);
template void SharedBinaryLoop(BroadcastWalker&, const double*, const double*, double*,
                               ElementFn<double, double>);
template void SharedBinaryLoop(BroadcastWalker&, const double*, const double*, bool*,
                               ElementFn<double, bool>);
template void SharedBinaryLoop(BroadcastWalker&, const bool*, const bool*, bool*,
                               ElementFn<bool, bool>);

}  // namespace webnx::binary
