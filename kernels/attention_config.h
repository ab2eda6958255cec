// Attention (opsets 23, 24): one node's attributes and geometry, validated when it is planned.
// Every tensor is read in place as [batch, heads, seq, size] rows, whatever its rank: 4-D
// tensors are stored that way, 3-D ones as [batch, seq, heads * size].
#pragma once

#include <cstdint>

#include "core/kernel.h"

namespace webnx::attention {

// Element strides of the rows of a [batch, heads, seq, size] view.
struct RowLayout {
  int64_t batch = 0, head = 0, seq = 0;

  static RowLayout Of4D(int64_t heads, int64_t seq, int64_t size) {
    return {heads * seq * size, seq * size, size};
  }
  static RowLayout Of3D(int64_t heads, int64_t seq, int64_t size) {
    return {seq * heads * size, size, heads * size};
  }
  int64_t Offset(int64_t b, int64_t h, int64_t s) const { return b * batch + h * head + s * seq; }
};

enum class MaskKind { kNone, kBool, kFloat };

// The attention mask, broadcast to [batch, q_heads, q_seq, keys]: element strides (0 where a
// dim broadcasts) and the keys it covers. The spec pads a mask shorter than the total key count
// with false / -inf, so keys from `length` on are masked out.
struct MaskLayout {
  MaskKind kind = MaskKind::kNone;
  int64_t batch = 0, head = 0, query = 0, key = 0;
  int64_t length = 0;

  int64_t RowOffset(int64_t b, int64_t h, int64_t i) const {
    return b * batch + h * head + i * query;
  }
};

// What output 3 (qk_matmul_output) holds.
enum class QkOutput { kRaw = 0, kSoftcapped = 1, kBiased = 2, kProbabilities = 3 };

struct Config {
  int64_t batch = 0;
  int64_t q_heads = 0, kv_heads = 0;
  int64_t q_seq = 0, kv_seq = 0, past_seq = 0, total_seq = 0;  // total = past + kv
  int64_t head_size = 0, v_head_size = 0;                      // of Q and K; of V
  bool three_d = false;

  float scale = 1.f;
  float softcap = 0.f;  // 0: none
  bool causal = false;
  bool has_past = false;
  bool has_nonpad = false;  // input 6, nonpad_kv_seqlen (version 24)
  QkOutput qk_output = QkOutput::kRaw;

  RowLayout q, k, v, y;  // past and present caches are always 4-D
  MaskLayout mask;

  // Query heads per key/value head (grouped-query attention).
  int64_t group() const { return q_heads / kv_heads; }
};

// Reads the node's attributes and input shapes into `config`; every error names the node.
Status PlanConfig(PlanContext& ctx, Config* config);

}  // namespace webnx::attention
