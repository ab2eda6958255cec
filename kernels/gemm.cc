// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterGemmKernels(OpRegistry& r) {}

}  // namespace webnx
