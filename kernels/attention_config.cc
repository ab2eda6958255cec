#include "kernels/attention_config.h"

#include <climits>
#include <cmath>
#include <string>

namespace webnx::attention {
namespace {

std::string Str(int64_t v) {
  return std::to_string(v);
}

// A Q, K or V input seen as [batch, heads, seq, size].
struct HeadView {
  int64_t batch = 0, heads = 0, seq = 0, size = 0;
};

// Input `i` as heads: a 4-D tensor as it is, a 3-D one [batch, seq, heads * size] split into
// `heads_attr` heads.
Status ViewOf(const PlanContext& ctx, int i, const char* name, bool three_d, int64_t heads_attr,
              HeadView* out) {
  const Shape& s = ctx.shape(i);
  if (!three_d) {
    *out = {s[0], s[1], s[2], s[3]};
    return Status::Ok();
  }
  if (s[2] % heads_attr != 0) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     std::string("the hidden size of ") + name + " " + ShapeToString(s) +
                         " is not a multiple of its " + Str(heads_attr) + " heads");
  }
  *out = {s[0], heads_attr, s[1], s[2] / heads_attr};
  return Status::Ok();
}

Status ReadAttributes(PlanContext& ctx, Config* c, int64_t* q_heads_attr, int64_t* kv_heads_attr) {
  Attrs& attrs = ctx.attrs();
  c->causal = attrs.Int("is_causal", 0) != 0;
  c->scale = attrs.Float("scale", 1.f);
  *q_heads_attr = attrs.Int("q_num_heads", 0);
  *kv_heads_attr = attrs.Int("kv_num_heads", 0);
  const int64_t precision = attrs.Int("softmax_precision", 1);
  c->softcap = attrs.Float("softcap", 0.f);
  const int64_t mode = attrs.Int("qk_matmul_output_mode", 0);
  // A model of opset 25 or later resolves to version 24; its sliding window is not implemented.
  const int64_t left_window = attrs.Int("left_window_size", -1);
  const int64_t right_window = attrs.Int("right_window_size", -1);
  WEBNX_RETURN_IF_ERROR(attrs.status());
  if (left_window != -1 || right_window != -1) {
    return ctx.Error(ErrorCode::kUnsupportedOpset,
                     "attributes 'left_window_size' and 'right_window_size' (Attention-25, a "
                     "sliding window) are not supported");
  }
  // The softmax runs in float32: asked for double, its float32 result differs by a rounding.
  constexpr int64_t kFloat = 1, kFloat16 = 10, kDouble = 11, kBfloat16 = 16;
  if (precision == kFloat16 || precision == kBfloat16) {
    return ctx.Error(ErrorCode::kUnsupportedDtype,
                     "softmax_precision " + Str(precision) +
                         " (float16/bfloat16) is not supported; only float and double");
  }
  if (precision != kFloat && precision != kDouble) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'softmax_precision' = " + Str(precision) + " is not a float type");
  }
  if (!(c->softcap >= 0.f)) {
    return ctx.Error(
        ErrorCode::kMalformedModel,
        "attribute 'softcap' = " + std::to_string(c->softcap) + " must be >= 0 (0: no softcap)");
  }
  if (mode < 0 || mode > 3) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "attribute 'qk_matmul_output_mode' = " + Str(mode) + " must be 0, 1, 2 or 3");
  }
  c->qk_output = static_cast<QkOutput>(mode);
  return Status::Ok();
}

// Q [B, Hq, Sq, D], K [B, Hkv, Skv, D], V [B, Hkv, Skv, Dv] (or their 3-D forms).
Status ReadHeads(const PlanContext& ctx, int64_t q_heads_attr, int64_t kv_heads_attr, Config* c) {
  const Shape& q_shape = ctx.shape(0);
  if (q_shape.size() != 3 && q_shape.size() != 4) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "Q " + ShapeToString(q_shape) + " must be 3-D or 4-D");
  }
  if (ctx.shape(1).size() != q_shape.size() || ctx.shape(2).size() != q_shape.size()) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "Q " + ShapeToString(q_shape) + ", K " + ShapeToString(ctx.shape(1)) +
                         " and V " + ShapeToString(ctx.shape(2)) + " must have the same rank");
  }
  c->three_d = q_shape.size() == 3;
  if (c->three_d && (q_heads_attr <= 0 || kv_heads_attr <= 0)) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "3-D inputs need attributes q_num_heads and kv_num_heads > 0, got " +
                         Str(q_heads_attr) + " and " + Str(kv_heads_attr));
  }
  HeadView q, k, v;
  WEBNX_RETURN_IF_ERROR(ViewOf(ctx, 0, "Q", c->three_d, q_heads_attr, &q));
  WEBNX_RETURN_IF_ERROR(ViewOf(ctx, 1, "K", c->three_d, kv_heads_attr, &k));
  WEBNX_RETURN_IF_ERROR(ViewOf(ctx, 2, "V", c->three_d, kv_heads_attr, &v));
  const bool attrs_disagree = !c->three_d && ((q_heads_attr != 0 && q_heads_attr != q.heads) ||
                                              (kv_heads_attr != 0 && kv_heads_attr != k.heads));
  const std::string shapes = "Q " + ShapeToString(q_shape) + ", K " + ShapeToString(ctx.shape(1)) +
                             ", V " + ShapeToString(ctx.shape(2));
  if (attrs_disagree) {
    return ctx.Error(ErrorCode::kShapeMismatch, "attributes q_num_heads " + Str(q_heads_attr) +
                                                    " / kv_num_heads " + Str(kv_heads_attr) +
                                                    " disagree with " + shapes);
  }
  if (k.batch != q.batch || v.batch != q.batch || v.heads != k.heads || v.seq != k.seq ||
      k.size != q.size) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     shapes + " disagree on batch, key/value heads, key length or head size");
  }
  if (q.heads <= 0 || k.heads <= 0 || q.heads % k.heads != 0) {
    return ctx.Error(ErrorCode::kShapeMismatch,
                     "the " + Str(q.heads) + " query heads must be a positive multiple of the " +
                         Str(k.heads) + " key/value heads (" + shapes + ")");
  }
  c->batch = q.batch;
  c->q_heads = q.heads;
  c->kv_heads = k.heads;
  c->q_seq = q.seq;
  c->kv_seq = k.seq;
  c->head_size = q.size;
  c->v_head_size = v.size;
  return Status::Ok();
}

Status ReadPast(PlanContext& ctx, Config* c) {
  c->has_past = ctx.has_input(4);
  if (c->has_past != ctx.has_input(5)) {
    return ctx.Error(ErrorCode::kMalformedModel,
                     "past_key and past_value must be given together or not at all");
  }
  c->past_seq = 0;
  if (c->has_past) {
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(4, {DType::kFloat32}));
    WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(5, {DType::kFloat32}));
    const Shape& pk = ctx.shape(4);
    const Shape& pv = ctx.shape(5);
    if (pk.size() != 4 || pv.size() != 4) {
      return ctx.Error(ErrorCode::kShapeMismatch, "past_key " + ShapeToString(pk) +
                                                      " and past_value " + ShapeToString(pv) +
                                                      " must be 4-D");
    }
    c->past_seq = pk[2];
    const Shape want_k = {c->batch, c->kv_heads, c->past_seq, c->head_size};
    const Shape want_v = {c->batch, c->kv_heads, c->past_seq, c->v_head_size};
    if (pk != want_k || pv != want_v) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       "past_key " + ShapeToString(pk) + " and past_value " + ShapeToString(pv) +
                           " must be [batch, kv_heads, past, head_size] = " +
                           ShapeToString(want_k) + " and " + ShapeToString(want_v));
    }
  }
  c->total_seq = c->past_seq + c->kv_seq;
  c->has_nonpad = ctx.has_input(6);
  if (!c->has_nonpad) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(6, {DType::kInt64}));
  if (ctx.shape(6) != Shape{c->batch}) {
    return ctx.Error(ErrorCode::kShapeMismatch, "nonpad_kv_seqlen " + ShapeToString(ctx.shape(6)) +
                                                    " must be [batch] = [" + Str(c->batch) + "]");
  }
  if (c->has_past) {
    return ctx.Error(
        ErrorCode::kMalformedModel,
        "nonpad_kv_seqlen (an external cache) cannot be used with past_key/past_value");
  }
  return Status::Ok();
}

// The mask broadcasts to [batch, q_heads, q_seq, total_seq] from the right. Its last dim may be
// shorter than total_seq: version 24 pads it with false / -inf, as the reference does for both
// versions; version 23's function body broadcasts a last dim of 1 instead.
Status ReadMask(PlanContext& ctx, Config* c) {
  if (!ctx.has_input(3)) return Status::Ok();
  WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(3, {DType::kBool, DType::kFloat32}));
  const Shape& m = ctx.shape(3);
  const Shape target = {c->batch, c->q_heads, c->q_seq, c->total_seq};
  const std::string what = "attn_mask " + ShapeToString(m);
  if (m.empty() || m.size() > 4) {
    return ctx.Error(ErrorCode::kShapeMismatch, what + " must have rank 1 to 4");
  }
  MaskLayout& mask = c->mask;
  mask.kind = ctx.dtype(3) == DType::kBool ? MaskKind::kBool : MaskKind::kFloat;
  mask.length = m.back();
  mask.key = 1;
  if (mask.length > c->total_seq && mask.length != 1) {
    return ctx.Error(ErrorCode::kShapeMismatch, what + " covers more keys than the " +
                                                    Str(c->total_seq) + " of past and K together");
  }
  if (ctx.since_version() == 23 && mask.length == 1 && c->total_seq > 1) {
    mask.key = 0;
    mask.length = c->total_seq;
  }
  int64_t* strides[3] = {&mask.batch, &mask.head, &mask.query};
  int64_t stride = m.back();
  for (size_t d = 1; d < 4; ++d) {  // target dims 2, 1, 0 against the mask's from its end
    const size_t t = 3 - d;
    if (d >= m.size()) {
      *strides[t] = 0;
      continue;
    }
    const int64_t dim = m[m.size() - 1 - d];
    if (dim != 1 && dim != target[t]) {
      return ctx.Error(ErrorCode::kShapeMismatch,
                       what + " does not broadcast to [batch, q_heads, q_seq, total_seq] = " +
                           ShapeToString(target));
    }
    *strides[t] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  return Status::Ok();
}

// The loops take int sizes (the SIMD kernels' arguments).
Status CheckIntSizes(const PlanContext& ctx, const Config& c) {
  for (int64_t v : {c.head_size, c.v_head_size, c.total_seq, c.q.seq, c.k.seq, c.v.seq, c.y.seq}) {
    if (v >= INT_MAX) {
      return ctx.Error(ErrorCode::kOutOfMemory, "a head size, sequence length or row stride of " +
                                                    Str(v) + " is past the supported 2^31 - 1");
    }
  }
  return Status::Ok();
}

}  // namespace

Status PlanConfig(PlanContext& ctx, Config* c) {
  *c = Config();
  const int max_inputs = ctx.since_version() >= 24 ? 7 : 6;
  WEBNX_RETURN_IF_ERROR(ctx.ExpectInputs(3, max_inputs));
  for (int i = 0; i < 3; ++i) WEBNX_RETURN_IF_ERROR(ctx.ExpectDType(i, {DType::kFloat32}));
  int64_t q_heads_attr = 0, kv_heads_attr = 0;
  WEBNX_RETURN_IF_ERROR(ReadAttributes(ctx, c, &q_heads_attr, &kv_heads_attr));
  WEBNX_RETURN_IF_ERROR(ReadHeads(ctx, q_heads_attr, kv_heads_attr, c));
  WEBNX_RETURN_IF_ERROR(ReadPast(ctx, c));
  WEBNX_RETURN_IF_ERROR(ReadMask(ctx, c));
  if (!ctx.attrs().Has("scale")) {
    // With no head size every score is an empty sum, 0, whatever the scale.
    c->scale = c->head_size > 0 ? 1.f / std::sqrt(static_cast<float>(c->head_size)) : 1.f;
  }
  if (c->three_d) {
    c->q = RowLayout::Of3D(c->q_heads, c->q_seq, c->head_size);
    c->k = RowLayout::Of3D(c->kv_heads, c->kv_seq, c->head_size);
    c->v = RowLayout::Of3D(c->kv_heads, c->kv_seq, c->v_head_size);
    c->y = RowLayout::Of3D(c->q_heads, c->q_seq, c->v_head_size);
  } else {
    c->q = RowLayout::Of4D(c->q_heads, c->q_seq, c->head_size);
    c->k = RowLayout::Of4D(c->kv_heads, c->kv_seq, c->head_size);
    c->v = RowLayout::Of4D(c->kv_heads, c->kv_seq, c->v_head_size);
    c->y = RowLayout::Of4D(c->q_heads, c->q_seq, c->v_head_size);
  }
  return CheckIntSizes(ctx, *c);
}

}  // namespace webnx::attention
