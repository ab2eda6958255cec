// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterReduceKernels(OpRegistry& r) {}

}  // namespace webnx
