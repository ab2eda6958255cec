#include "kernels/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace webnx::attention {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A [batch, heads, seq, size] array.
struct Heads {
  int64_t batch = 0, heads = 0, seq = 0, size = 0;
  std::vector<double> x;

  // Where [b, h, s, d] is in a tensor of these sizes: [B, S, H * D] when three_d, else
  // [B, H, S, D] (the layout of x).
  int64_t Offset(bool three_d, int64_t b, int64_t h, int64_t s, int64_t d) const {
    return three_d ? ((b * seq + s) * heads + h) * size + d
                   : ((b * heads + h) * seq + s) * size + d;
  }
  double& at(int64_t b, int64_t h, int64_t s, int64_t d) { return x[Offset(false, b, h, s, d)]; }
  double at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return x[Offset(false, b, h, s, d)];
  }
};

// A 4-D tensor as it is; a 3-D one [B, S, H * D] reshaped to [B, S, H, D], then transposed to
// [B, H, S, D].
Heads SplitHeads(const Tensor& t, int64_t heads) {
  Heads out;
  const bool three_d = t.shape.size() == 3;
  out.batch = t.shape[0];
  out.heads = three_d ? heads : t.shape[1];
  out.seq = three_d ? t.shape[1] : t.shape[2];
  out.size = three_d ? t.shape[2] / heads : t.shape[3];
  out.x.resize(t.numel());
  const float* src = t.ptr<float>();
  for (int64_t b = 0; b < out.batch; ++b)
    for (int64_t h = 0; h < out.heads; ++h)
      for (int64_t s = 0; s < out.seq; ++s)
        for (int64_t d = 0; d < out.size; ++d) {
          out.at(b, h, s, d) = src[out.Offset(three_d, b, h, s, d)];
        }
  return out;
}

// concat(past, current) along the sequence.
Heads Concat(const Tensor* past, const Heads& current) {
  if (!past) return current;
  Heads before = SplitHeads(*past, 0);
  Heads out = current;
  out.seq = before.seq + current.seq;
  out.x.resize(out.batch * out.heads * out.seq * out.size);
  for (int64_t b = 0; b < out.batch; ++b)
    for (int64_t h = 0; h < out.heads; ++h)
      for (int64_t s = 0; s < out.seq; ++s)
        for (int64_t d = 0; d < out.size; ++d)
          out.at(b, h, s, d) =
              s < before.seq ? before.at(b, h, s, d) : current.at(b, h, s - before.seq, d);
  return out;
}

// The mask's additive bias at [b, h, i, t] of [batch, q_heads, q_seq, total]: padded along its
// last dim to the total (with false / -inf), then broadcast from the right.
double MaskBias(const Tensor& mask, int version, const int64_t (&index)[4]) {
  const Shape& shape = mask.shape;
  const size_t rank = shape.size();
  const bool broadcast_last = version == 23 && shape.back() == 1;
  if (!broadcast_last && index[3] >= shape.back()) return kNegInf;
  int64_t offset = 0;
  for (size_t k = 0; k < rank; ++k) {
    const int64_t at = shape[k] == 1 ? 0 : index[4 - rank + k];
    offset = offset * shape[k] + at;
  }
  if (mask.dtype == DType::kBool) return mask.ptr<uint8_t>()[offset] ? 0.0 : kNegInf;
  return mask.ptr<float>()[offset];
}

Tensor ToTensor(const Heads& h, bool three_d) {
  Tensor t;
  const Shape shape =
      three_d ? Shape{h.batch, h.seq, h.heads * h.size} : Shape{h.batch, h.heads, h.seq, h.size};
  (void)Tensor::Allocate(DType::kFloat32, shape, &t);
  for (int64_t b = 0; b < h.batch; ++b)
    for (int64_t hh = 0; hh < h.heads; ++hh)
      for (int64_t s = 0; s < h.seq; ++s)
        for (int64_t d = 0; d < h.size; ++d) {
          t.ptr<float>()[h.Offset(three_d, b, hh, s, d)] = static_cast<float>(h.at(b, hh, s, d));
        }
  return t;
}

}  // namespace

void ReferenceAttention(const std::vector<const Tensor*>& inputs, const ReferenceAttributes& a,
                        std::vector<Tensor>* outputs) {
  auto input = [&](size_t i) { return i < inputs.size() ? inputs[i] : nullptr; };
  const bool three_d = inputs[0]->shape.size() == 3;
  Heads q = SplitHeads(*inputs[0], a.q_num_heads);
  Heads k = Concat(input(4), SplitHeads(*inputs[1], a.kv_num_heads));
  Heads v = Concat(input(5), SplitHeads(*inputs[2], a.kv_num_heads));
  const Tensor* mask = input(3);
  const Tensor* nonpad = input(6);
  const int64_t past = input(4) ? input(4)->shape[2] : 0;
  const int64_t total = k.seq, group = q.heads / k.heads;
  const double scale = a.has_scale ? a.scale : 1.0 / std::sqrt(static_cast<double>(q.size));
  Heads y{q.batch, q.heads, q.seq, v.size, {}};
  y.x.assign(y.batch * y.heads * y.seq * y.size, 0.0);
  Heads qk{q.batch, q.heads, q.seq, total, {}};
  qk.x.assign(qk.batch * qk.heads * qk.seq * qk.size, 0.0);
  std::vector<double> raw(total), capped(total), bias(total), biased(total), p(total);
  for (int64_t b = 0; b < q.batch; ++b)
    for (int64_t h = 0; h < q.heads; ++h)
      for (int64_t i = 0; i < q.seq; ++i) {
        const int64_t causal_offset =
            input(4) ? past : (nonpad ? nonpad->ptr<int64_t>()[b] - q.seq : 0);
        for (int64_t t = 0; t < total; ++t) {
          double dot = 0;
          for (int64_t d = 0; d < q.size; ++d) dot += q.at(b, h, i, d) * k.at(b, h / group, t, d);
          raw[t] = dot * scale;
          capped[t] = a.softcap > 0 ? a.softcap * std::tanh(raw[t] / a.softcap) : raw[t];
          bias[t] = mask ? MaskBias(*mask, a.version, {b, h, i, t}) : 0.0;
          if (a.is_causal && t > i + causal_offset) bias[t] += kNegInf;
          if (nonpad && t >= nonpad->ptr<int64_t>()[b]) bias[t] += kNegInf;
          biased[t] = capped[t] + bias[t];
        }
        double bias_max = kNegInf, score_max = kNegInf;
        for (int64_t t = 0; t < total; ++t) {
          bias_max = std::max(bias_max, bias[t]);
          score_max = std::max(score_max, biased[t]);
        }
        // No attendable key: the spec's zero row, not NaN.
        const bool masked = bias_max == kNegInf || score_max == kNegInf;
        double sum = 0;
        for (int64_t t = 0; t < total; ++t)
          sum += p[t] = masked ? 0 : std::exp(biased[t] - score_max);
        for (int64_t t = 0; t < total; ++t) {
          p[t] = masked ? 0 : p[t] / sum;
          const double shown[4] = {raw[t], capped[t], biased[t], p[t]};
          qk.at(b, h, i, t) = shown[a.qk_matmul_output_mode];
          for (int64_t d = 0; d < v.size; ++d) y.at(b, h, i, d) += p[t] * v.at(b, h / group, t, d);
        }
      }
  outputs->clear();
  outputs->push_back(ToTensor(y, three_d));
  outputs->push_back(ToTensor(k, false));
  outputs->push_back(ToTensor(v, false));
  outputs->push_back(ToTensor(qk, false));
}

}  // namespace webnx::attention
