// PLACEHOLDER: to be written.
#include "kernels/registrations.h"

namespace webnx {

void RegisterNormalizationKernels(OpRegistry& r) {}

}  // namespace webnx
