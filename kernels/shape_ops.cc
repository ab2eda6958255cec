// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterShapeKernels(OpRegistry& r) {}

}  // namespace webnx
