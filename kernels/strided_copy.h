// StridedCopy: copies a strided view of a tensor (Slice's selection) into a dense output, a
// contiguous block at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/indexing_common.h"

namespace webnx::indexing {

// ---- Strided block copy shared by Slice: out walks `dims`, reading at `start` + sum of
// coordinate * stride (bytes), copying `block` contiguous bytes per step.

class StridedCopy {
 public:
  // dims/strides per remaining dim (outermost first), block: contiguous bytes per step.
  void Init(int64_t start, std::vector<int64_t> dims, std::vector<int64_t> strides, size_t block) {
    start_ = start;
    dims_ = std::move(dims);
    strides_ = std::move(strides);
    block_ = block;
    counter_.assign(dims_.size(), 0);
    steps_ = 1;
    for (int64_t d : dims_) steps_ *= d;
  }

  void Run(const uint8_t* in, uint8_t* out) {
    if (block_ == 0) return;
    std::fill(counter_.begin(), counter_.end(), 0);
    const int64_t rank = static_cast<int64_t>(dims_.size());
    int64_t offset = start_;
    for (int64_t s = 0; s < steps_; ++s) {
      CopyBytes(out, in + offset, block_);
      out += block_;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++counter_[d] < dims_[d]) {
          offset += strides_[d];
          break;
        }
        offset -= strides_[d] * (dims_[d] - 1);
        counter_[d] = 0;
      }
    }
  }

 private:
  int64_t start_ = 0;
  int64_t steps_ = 0;
  size_t block_ = 0;
  std::vector<int64_t> dims_, strides_, counter_;
};

}  // namespace webnx::indexing
