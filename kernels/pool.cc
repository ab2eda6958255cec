// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterPoolKernels(OpRegistry& r) {}

}  // namespace webnx
