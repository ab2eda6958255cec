// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterConvKernels(OpRegistry& r) {}

}  // namespace webnx
