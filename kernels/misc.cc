// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterMiscKernels(OpRegistry& r) {}

}  // namespace webnx
