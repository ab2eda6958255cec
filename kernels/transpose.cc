// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterTransposeKernels(OpRegistry& r) {}

}  // namespace webnx
