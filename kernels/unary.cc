// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterUnaryKernels(OpRegistry& r) {}

}  // namespace webnx
