// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterGatherSliceKernels(OpRegistry& r) {}

}  // namespace webnx
