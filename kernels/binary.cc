// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterBinaryKernels(OpRegistry& r) {}

}  // namespace webnx
