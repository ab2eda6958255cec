#include "kernels/conv_shape.h"

#include <utility>

namespace webnx::conv {

PlannedBuffers::PlannedBuffers() = default;
PlannedBuffers::PlannedBuffers(PlannedBuffers&& other)
    : weights(std::move(other.weights)),
      weights_tail(std::move(other.weights_tail)),
      scratch(std::move(other.scratch)) {}
PlannedBuffers::~PlannedBuffers() = default;

}  // namespace webnx::conv
