// A plain scalar Attention (opsets 23, 24) written straight from the ONNX definition, in double:
// heads split out of 3-D inputs, the past concatenated, the bias built from the mask, the causal
// frontier and nonpad_kv_seqlen, key/value heads repeated for the query heads, softmax, P·V.
// The oracle the fast kernel (kernels/attention.cc) is tested against; the runtime never
// calls it, and it trusts its inputs to be valid.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace webnx::attention {

struct ReferenceAttributes {
  int version = 24;  // 23 broadcasts a mask whose last dim is 1; 24 pads it
  bool is_causal = false;
  bool has_scale = false;
  float scale = 1.f;
  float softcap = 0.f;
  int64_t q_num_heads = 0, kv_num_heads = 0;  // 3-D inputs only
  int qk_matmul_output_mode = 0;
};

// inputs: Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen (null when absent; the list
// may stop early). outputs: Y, present_key, present_value, qk_matmul_output.
void ReferenceAttention(const std::vector<const Tensor*>& inputs, const ReferenceAttributes& attrs,
                        std::vector<Tensor>* outputs);

}  // namespace webnx::attention
