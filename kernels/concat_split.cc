// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterConcatSplitKernels(OpRegistry& r) {}

}  // namespace webnx
