// Attention (opsets 23, 24): Y = softmax(softcap(scale * Q·Kᵀ) + bias) · V for every batch and
// query head, the keys and values being the past cache followed by K and V, shared by groups of
// query heads (grouped-/multi-query attention). The bias is the mask (bool: false is -inf;
// float: added), the causal frontier and the padding of nonpad_kv_seqlen; a query row whose
// keys are all masked gets a zero output. Outputs 1 and 2 are the present caches, output 3 the
// scores at the stage qk_matmul_output_mode names.
//
// Each task is a block of query rows of one (batch, head): Q·Kᵀ on GemmTransposedRhs, the
// softmax and P·V on kernels/simd/attention.h. The scalar reference the tests hold it to is
// kernels/attention_reference.h.
#include "kernels/simd/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kernels/attention_config.h"
#include "kernels/nn_common.h"
#include "kernels/registrations.h"
#include "kernels/simd/gemm.h"

namespace webnx {
namespace {

using attention::Config;
using attention::MaskKind;
using attention::QkOutput;
using attention::RowLayout;

// Query rows per task: each key and value row is loaded once for all of them.
constexpr int64_t kBlockRows = 4;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The tensors of one run; absent ones are null.
struct Buffers {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const uint8_t* bool_mask = nullptr;
  const float* float_mask = nullptr;
  const float* past_key = nullptr;
  const float* past_value = nullptr;
  const int64_t* nonpad = nullptr;
  float* y = nullptr;
  float* present_key = nullptr;
  float* present_value = nullptr;
  float* qk = nullptr;
};

class AttentionKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(attention::PlanConfig(ctx, &c_));
    WEBNX_RETURN_IF_ERROR(SetOutputs(ctx));
    node_ = ctx.node().Describe();
    past_k_ = RowLayout::Of4D(c_.kv_heads, c_.past_seq, c_.head_size);
    past_v_ = RowLayout::Of4D(c_.kv_heads, c_.past_seq, c_.v_head_size);
    blocks_per_head_ = (c_.q_seq + kBlockRows - 1) / kBlockRows;
    row_stride_ = std::max<int64_t>(c_.total_seq, 1);
    slots_ = ctx.threads();
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, {slots_, kBlockRows, row_stride_}, "score scratch"));
    return nn::AllocateScratch(slots_ * kBlockRows * row_stride_, &scores_);
  }

  Status Run(RunContext& ctx) override {
    const Buffers io = Bind(ctx);
    WEBNX_RETURN_IF_ERROR(CheckNonpad(io));
    if (io.present_key) CopyPresent(ctx, {io.past_key, io.k, c_.k, c_.head_size, io.present_key});
    if (io.present_value)
      CopyPresent(ctx, {io.past_value, io.v, c_.v, c_.v_head_size, io.present_value});
    const int64_t tasks = c_.batch * c_.q_heads * blocks_per_head_;
    ctx.ParallelFor(tasks, [this, &io](int64_t task, int slot) {
      RunBlock(io, task, scores_.ptr<float>() + slot * kBlockRows * row_stride_);
    });
    return Status::Ok();
  }

 private:
  Status SetOutputs(PlanContext& ctx) const {
    const Shape y = c_.three_d ? Shape{c_.batch, c_.q_seq, c_.q_heads * c_.v_head_size}
                               : Shape{c_.batch, c_.q_heads, c_.q_seq, c_.v_head_size};
    const Shape present_key = {c_.batch, c_.kv_heads, c_.total_seq, c_.head_size};
    const Shape present_value = {c_.batch, c_.kv_heads, c_.total_seq, c_.v_head_size};
    const Shape qk = {c_.batch, c_.q_heads, c_.q_seq, c_.total_seq};
    WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, y, "Y"));
    ctx.SetOutput(0, DType::kFloat32, y);
    if (ctx.has_output(1)) {
      WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, present_key, "present_key"));
      ctx.SetOutput(1, DType::kFloat32, present_key);
    }
    if (ctx.has_output(2)) {
      WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, present_value, "present_value"));
      ctx.SetOutput(2, DType::kFloat32, present_value);
    }
    if (ctx.has_output(3)) {
      WEBNX_RETURN_IF_ERROR(nn::CheckNumel(ctx, qk, "qk_matmul_output"));
      ctx.SetOutput(3, DType::kFloat32, qk);
    }
    return Status::Ok();
  }

  Buffers Bind(RunContext& ctx) const {
    Buffers io;
    io.q = ctx.input(0).ptr<float>();
    io.k = ctx.input(1).ptr<float>();
    io.v = ctx.input(2).ptr<float>();
    if (c_.mask.kind == MaskKind::kBool) io.bool_mask = ctx.input(3).ptr<uint8_t>();
    if (c_.mask.kind == MaskKind::kFloat) io.float_mask = ctx.input(3).ptr<float>();
    if (c_.has_past) {
      io.past_key = ctx.input(4).ptr<float>();
      io.past_value = ctx.input(5).ptr<float>();
    }
    if (c_.has_nonpad) io.nonpad = ctx.input(6).ptr<int64_t>();
    io.y = ctx.output(0).ptr<float>();
    if (ctx.has_output(1)) io.present_key = ctx.output(1).ptr<float>();
    if (ctx.has_output(2)) io.present_value = ctx.output(2).ptr<float>();
    if (ctx.has_output(3)) io.qk = ctx.output(3).ptr<float>();
    return io;
  }

  Status CheckNonpad(const Buffers& io) const {
    for (int64_t b = 0; io.nonpad && b < c_.batch; ++b) {
      if (io.nonpad[b] < 0 || io.nonpad[b] > c_.total_seq) {
        return Status(ErrorCode::kInvalidInput,
                      node_ + ": nonpad_kv_seqlen[" + std::to_string(b) +
                          "] = " + std::to_string(io.nonpad[b]) + " is outside [0, " +
                          std::to_string(c_.total_seq) + "], the keys of K");
      }
    }
    return Status::Ok();
  }

  // One present cache: the past followed by K (or V) along the sequence.
  struct CacheCopy {
    const float* past;
    const float* current;
    const RowLayout& current_rows;
    int64_t size;  // floats per row
    float* present;
  };

  void CopyPresent(const RunContext& ctx, const CacheCopy& copy) const {
    // Two captured pointers keep the task function in std::function's inline storage.
    ctx.ParallelFor(c_.batch * c_.kv_heads, [this, &copy](int64_t task, int) {
      const int64_t b = task / c_.kv_heads, h = task % c_.kv_heads, size = copy.size;
      float* dst = copy.present + task * c_.total_seq * size;
      if (copy.past) std::copy_n(copy.past + task * c_.past_seq * size, c_.past_seq * size, dst);
      dst += c_.past_seq * size;
      for (int64_t s = 0; s < c_.kv_seq; ++s)
        std::copy_n(copy.current + copy.current_rows.Offset(b, h, s), size, dst + s * size);
    });
  }

  // Query row i of batch b may attend keys [0, limit) only: the causal frontier, the valid
  // keys of nonpad_kv_seqlen and the end of a short mask mask out everything after.
  int64_t KeyLimit(const Buffers& io, int64_t b, int64_t i) const {
    int64_t limit = c_.total_seq;
    if (c_.mask.kind != MaskKind::kNone) limit = std::min(limit, c_.mask.length);
    if (c_.has_nonpad) limit = std::min(limit, io.nonpad[b]);
    if (c_.causal) {
      // Bottom-right aligned: query i sees key j <= i + offset, the offset being the keys
      // before the queries (the past, or the valid keys of an external cache less the queries).
      const int64_t offset =
          c_.has_past ? c_.past_seq : (c_.has_nonpad ? io.nonpad[b] - c_.q_seq : 0);
      limit = std::min(limit, std::max<int64_t>(0, i + offset + 1));
    }
    return limit;
  }

  void RunBlock(const Buffers& io, int64_t task, float* scores) const {
    const int64_t b = task / (c_.q_heads * blocks_per_head_);
    const int64_t h = task / blocks_per_head_ % c_.q_heads;
    const int64_t i0 = task % blocks_per_head_ * kBlockRows;
    const int rows = static_cast<int>(std::min(kBlockRows, c_.q_seq - i0));
    const int64_t kv_head = h / c_.group();
    int64_t limits[kBlockRows];
    int64_t keys = 0;  // the keys any row of the block attends
    for (int r = 0; r < rows; ++r) {
      limits[r] = KeyLimit(io, b, i0 + r);
      keys = std::max(keys, limits[r]);
    }
    // Modes 0 and 1 show the scores of masked keys too.
    const bool shows_all_scores =
        c_.qk_output == QkOutput::kRaw || c_.qk_output == QkOutput::kSoftcapped;
    if (io.qk && shows_all_scores) keys = c_.total_seq;
    ComputeScores(io, b, h, kv_head, i0, rows, keys, scores);
    for (int r = 0; r < rows; ++r)
      FinishRow(io, b, h, i0 + r, limits[r], keys, scores + r * row_stride_);
    WeighValues(io, b, h, kv_head, i0, rows, keys, scores);
  }

  // scores[r][t] = dot(query row i0 + r, key t) for t < keys: the past's keys, then K's.
  void ComputeScores(const Buffers& io, int64_t b, int64_t h, int64_t kv_head, int64_t i0, int rows,
                     int64_t keys, float* scores) const {
    const float* q = io.q + c_.q.Offset(b, h, i0);
    const int ld = static_cast<int>(row_stride_);
    const int d = static_cast<int>(c_.head_size);
    const int ldq = static_cast<int>(c_.q.seq);
    const int64_t past_keys = std::min(keys, c_.past_seq);
    if (past_keys > 0) {
      simd::GemmTransposedRhs(rows, static_cast<int>(past_keys), d, q, ldq,
                              io.past_key + past_k_.Offset(b, kv_head, 0), d, scores, ld, {});
    }
    if (keys > past_keys) {
      simd::GemmTransposedRhs(rows, static_cast<int>(keys - past_keys), d, q, ldq,
                              io.k + c_.k.Offset(b, kv_head, 0), static_cast<int>(c_.k.seq),
                              scores + past_keys, ld, {});
    }
  }

  // Row i's scores over keys [0, keys) become its probabilities: scaled, softcapped, biased,
  // softmaxed (zeros when every key is masked). Output 3 is written at the stage it shows.
  void FinishRow(const Buffers& io, int64_t b, int64_t h, int64_t i, int64_t limit, int64_t keys,
                 float* s) const {
    const int n = static_cast<int>(keys), open_keys = static_cast<int>(limit);
    const int64_t total = c_.total_seq;
    float* qk = io.qk ? io.qk + ((b * c_.q_heads + h) * c_.q_seq + i) * total : nullptr;
    simd::ScaleRow(s, n, c_.scale);
    if (qk && c_.qk_output == QkOutput::kRaw) std::copy_n(s, total, qk);
    if (c_.softcap > 0.f) {
      for (int t = 0; t < n; ++t) s[t] = c_.softcap * std::tanh(s[t] / c_.softcap);
    }
    if (qk && c_.qk_output == QkOutput::kSoftcapped) std::copy_n(s, total, qk);
    const bool open = AddMask(io, b, h, i, open_keys, s);
    if (qk && c_.qk_output == QkOutput::kBiased) {
      std::copy_n(s, open_keys, qk);
      std::fill(qk + open_keys, qk + total, kNegInf);
    }
    Softmax(open, open_keys, s);
    std::fill(s + open_keys, s + n, 0.f);
    if (qk && c_.qk_output == QkOutput::kProbabilities) {
      std::copy_n(s, open_keys, qk);
      std::fill(qk + open_keys, qk + total, 0.f);
    }
  }

  // Adds row i's mask to scores [0, n); true unless every one of those keys is masked out.
  bool AddMask(const Buffers& io, int64_t b, int64_t h, int64_t i, int n, float* s) const {
    const attention::MaskLayout& m = c_.mask;
    if (m.kind == MaskKind::kNone) return n > 0;
    const int64_t row = m.RowOffset(b, h, i);
    bool open = false;
    if (m.kind == MaskKind::kBool) {
      const uint8_t* mask = io.bool_mask + row;
      for (int t = 0; t < n; ++t) {
        if (mask[t * m.key]) {
          open = true;
        } else {
          s[t] = kNegInf;
        }
      }
      return open;
    }
    const float* mask = io.float_mask + row;
    for (int t = 0; t < n; ++t) {
      s[t] += mask[t * m.key];
      open = open || mask[t * m.key] != kNegInf;
    }
    return open;
  }

  // Max-subtracted softmax of s[0, n); all zeros for a masked row.
  static void Softmax(bool open, int n, float* s) {
    const float max = open ? simd::RowMax(s, n) : kNegInf;
    if (max == kNegInf) {  // no key left, or every score -inf: no probability anywhere
      std::fill(s, s + n, 0.f);
      return;
    }
    const float sum = simd::ExpShiftedSum(s, n, max);
    simd::ScaleRow(s, n, 1.f / sum);
  }

  // Output rows i0.. = P · V over the first `keys` values: the past's, then V's.
  void WeighValues(const Buffers& io, int64_t b, int64_t h, int64_t kv_head, int64_t i0, int rows,
                   int64_t keys, const float* p) const {
    float* y = io.y + c_.y.Offset(b, h, i0);
    const int dv = static_cast<int>(c_.v_head_size);
    const int ldp = static_cast<int>(row_stride_), ldy = static_cast<int>(c_.y.seq);
    const int64_t past_keys = std::min(keys, c_.past_seq);
    // The first call also clears the rows when there are no past keys.
    const float* past = io.past_value ? io.past_value + past_v_.Offset(b, kv_head, 0) : io.v;
    simd::WeightedSumRows(rows, static_cast<int>(past_keys), dv, p, ldp, past, dv, y, ldy, false);
    if (keys > past_keys) {
      simd::WeightedSumRows(rows, static_cast<int>(keys - past_keys), dv, p + past_keys, ldp,
                            io.v + c_.v.Offset(b, kv_head, 0), static_cast<int>(c_.v.seq), y, ldy,
                            true);
    }
  }

  Config c_;
  RowLayout past_k_, past_v_;
  int64_t blocks_per_head_ = 0;
  int64_t row_stride_ = 1;  // floats per score row: the total key count
  int64_t slots_ = 1;
  Tensor scores_;  // per thread, kBlockRows score rows
  std::string node_;
};

}  // namespace

void RegisterAttentionKernels(OpRegistry& r) {
  // 24 added input 6, nonpad_kv_seqlen, and pads a short mask.
  r.Register("", "Attention",
             {{{23}, Inputs(3, 6), Outputs(1, 4)}, {{24}, Inputs(3, 7), Outputs(1, 4)}},
             MakeKernel<AttentionKernel>);
}

}  // namespace webnx
