// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterSoftmaxKernels(OpRegistry& r) {}

}  // namespace webnx
