// RotaryEmbedding (23): rotates pairs of the first rotary_embedding_dim features of every head
// by the angle of its token's position, (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos); the
// other features pass through. A pair is feature j and j + dim/2 (the two halves), or 2j and
// 2j + 1 when interleaved. cos/sin are read from caches [max_position, dim/2] at position_ids
// [batch, seq], or given per token [batch, seq, dim/2] when there are no position ids.
// X is [batch, heads, seq, head_size], or [batch, seq, heads * head_size] with num_heads.
#include <algorithm>
#include <string>

#include "kernels/nn_common.h"
#include "kernels/registrations.h"

namespace webnx {
namespace {

class RotaryEmbeddingKernel final : public Kernel {
 public:
  Status Plan(PlanContext& ctx) override {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, 4));
    for (int i = 0; i < 3; ++i) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
    has_positions_ = ctx.has_input(3);
    if (has_positions_) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(3, {DType::kInt64}));
    Attrs& attrs = ctx.attrs();
    interleaved_ = attrs.Int("interleaved", 0) != 0;
    const int64_t rotary_dim = attrs.Int("rotary_embedding_dim", 0);
    const int64_t num_heads = attrs.Int("num_heads", 0);
    WEBNX_RETURN_IF_ERROR(attrs.status());
    WEBNX_RETURN_IF_ERROR(PlanInput(ctx, num_heads));
    rotary_dim_ = rotary_dim == 0 ? head_size_ : rotary_dim;
    if (rotary_dim_ < 0 || rotary_dim_ % 2 != 0 || rotary_dim_ > head_size_) {
      return ctx.Error(ErrorCode::kMalformedModel,
                       "rotary_embedding_dim " + std::to_string(rotary_dim_) +
                           " must be even and at most the head size " + std::to_string(head_size_));
    }
    WEBNX_RETURN_IF_ERROR(PlanCaches(ctx));
    node_ = ctx.node().Describe();
    ctx.SetOutput(0, DType::kFloat32, ctx.shape(0));
    return Status::Ok();
  }

  Status Run(RunContext& ctx) override {
    Buffers io;
    io.x = ctx.input(0).ptr<float>();
    io.cos = ctx.input(1).ptr<float>();
    io.sin = ctx.input(2).ptr<float>();
    io.positions = has_positions_ ? ctx.input(3).ptr<int64_t>() : nullptr;
    io.y = ctx.output(0).ptr<float>();
    // Every id is checked before anything is written.
    const int64_t ids = has_positions_ ? ctx.input(3).numel() : 0;
    for (int64_t i = 0; i < ids; ++i) {
      if (io.positions[i] < 0 || io.positions[i] >= max_position_) {
        return Status(ErrorCode::kInvalidInput, node_ + ": position_ids[" + std::to_string(i) +
                                                    "] = " + std::to_string(io.positions[i]) +
                                                    " is outside the caches' [0, " +
                                                    std::to_string(max_position_) + ")");
      }
    }
    ctx.ParallelFor(batch_ * seq_, [this, &io](int64_t task, int) { RotateToken(io, task); });
    return Status::Ok();
  }

 private:
  struct Buffers {
    const float* x = nullptr;
    const float* cos = nullptr;
    const float* sin = nullptr;
    const int64_t* positions = nullptr;
    float* y = nullptr;
  };

  // The heads of X and the element strides of its rows.
  Status PlanInput(const PlanContext& ctx, int64_t num_heads) {
    const Shape& x = ctx.shape(0);
    if (x.size() == 4) {
      batch_ = x[0];
      heads_ = x[1];
      seq_ = x[2];
      head_size_ = x[3];
      head_stride_ = seq_ * head_size_;
      seq_stride_ = head_size_;
    } else if (x.size() == 3) {
      if (num_heads <= 0 || x[2] % num_heads != 0) {
        return ctx.Error(ErrorCode::kMalformedModel,
                         "3-D X " + ShapeToString(x) + " needs attribute num_heads > 0 dividing " +
                             "its hidden size, got " + std::to_string(num_heads));
      }
      batch_ = x[0];
      heads_ = num_heads;
      seq_ = x[1];
      head_size_ = x[2] / num_heads;
      head_stride_ = head_size_;
      seq_stride_ = heads_ * head_size_;
    } else {
      return ctx.Error(ErrorCode::kShapeMismatch, "X " + ShapeToString(x) + " must be 3-D or 4-D");
    }
    batch_stride_ = heads_ * seq_ * head_size_;
    return Status::Ok();
  }

  // cos/sin [max_position, dim/2] with position_ids [batch, seq], else [batch, seq, dim/2]; a
  // batch dim of 1 is shared by every batch.
  Status PlanCaches(const PlanContext& ctx) {
    const Shape& cos = ctx.shape(1);
    const int64_t half = rotary_dim_ / 2;
    const std::string caches =
        "cos_cache " + ShapeToString(cos) + " and sin_cache " + ShapeToString(ctx.shape(2));
    const Shape& ids = has_positions_ ? ctx.shape(3) : cos;
    const bool ids_ok = has_positions_ ? ids.size() == 2 : ids.size() == 3;
    const bool batch_ok = ids_ok && (ids[0] == batch_ || ids[0] == 1) && ids[1] == seq_;
    const bool caches_ok =
        cos == ctx.shape(2) && cos.size() == (has_positions_ ? 2u : 3u) && cos.back() == half;
    if (!batch_ok || !caches_ok) {
      const std::string want =
          has_positions_
              ? "position_ids " + ShapeToString(ids) + " must be [batch, seq] = [" +
                    std::to_string(batch_) + ", " + std::to_string(seq_) +
                    "] and the caches [max_position, " + std::to_string(half) + "]"
              : "without position_ids the caches must be [batch, seq, " + std::to_string(half) +
                    "] with batch " + std::to_string(batch_) + " and seq " + std::to_string(seq_);
      return ctx.Error(ErrorCode::kShapeMismatch, caches + ": " + want);
    }
    max_position_ = has_positions_ ? cos[0] : 0;
    shared_batch_ = ids[0] == 1;
    return Status::Ok();
  }

  // Token (b, s) of every head.
  void RotateToken(const Buffers& io, int64_t task) const {
    const int64_t b = task / seq_, s = task % seq_;
    const int64_t half = rotary_dim_ / 2;
    const int64_t row = (shared_batch_ ? 0 : b) * seq_ + s;
    const int64_t cache_row = io.positions ? io.positions[row] : row;
    const float* cos = io.cos + cache_row * half;
    const float* sin = io.sin + cache_row * half;
    for (int64_t h = 0; h < heads_; ++h) {
      const int64_t offset = b * batch_stride_ + h * head_stride_ + s * seq_stride_;
      RotateHead(io.x + offset, cos, sin, io.y + offset);
    }
  }

  void RotateHead(const float* x, const float* cos, const float* sin, float* y) const {
    const int64_t half = rotary_dim_ / 2;
    // The two features of pair j: 2j and 2j + 1 interleaved, else j and j + half.
    const int64_t first_step = interleaved_ ? 2 : 1;
    const int64_t second = interleaved_ ? 1 : half;
    for (int64_t j = 0; j < half; ++j) {
      const float x1 = x[j * first_step], x2 = x[j * first_step + second];
      y[j * first_step] = cos[j] * x1 - sin[j] * x2;
      y[j * first_step + second] = sin[j] * x1 + cos[j] * x2;
    }
    std::copy(x + rotary_dim_, x + head_size_, y + rotary_dim_);
  }

  bool interleaved_ = false;
  bool has_positions_ = false;
  bool shared_batch_ = false;  // position_ids or the per-token caches have batch 1
  int64_t batch_ = 0, heads_ = 0, seq_ = 0, head_size_ = 0, rotary_dim_ = 0;
  int64_t batch_stride_ = 0, head_stride_ = 0, seq_stride_ = 0;  // of X's rows
  int64_t max_position_ = 0;
  std::string node_;
};

}  // namespace

void RegisterRotaryEmbeddingKernels(OpRegistry& r) {
  r.Register("", "RotaryEmbedding", {{23}, Inputs(3, 4), Outputs(1)},
             MakeKernel<RotaryEmbeddingKernel>);
}

}  // namespace webnx
