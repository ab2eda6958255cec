#include "kernels/rnn_reference.h"

#include <algorithm>
#include <vector>

namespace webnx::rnn {
namespace {

// One batch entry of one direction: its state and what it reads.
struct Pass {
  const Attributes* attrs = nullptr;
  Dims dims;
  int direction = 0;
  const float* x = nullptr;  // the whole X
  const float* w = nullptr;  // this direction's W, R, B (Wb then Rb) and P; B and P may be null
  const float* r = nullptr;
  const float* b = nullptr;
  const float* p = nullptr;
  std::vector<float> h, c;
};

float Clipped(const Attributes& attrs, float v) {
  return std::min(std::max(v, -attrs.clip), attrs.clip);
}

// Row `row` of a (rows x n) weight times v (n floats).
float Dot(const float* weights, int64_t row, const float* v, int64_t n) {
  float sum = 0.f;
  for (int64_t k = 0; k < n; ++k) sum += weights[row * n + k] * v[k];
  return sum;
}

// Gate g's input at unit j without its recurrent part: Xt * W^T + Wb.
float InputPart(const Pass& pass, const float* xt, int gate, int64_t j) {
  const int64_t row = gate * pass.dims.hidden + j;
  return Dot(pass.w, row, xt, pass.dims.input) + (pass.b ? pass.b[row] : 0.f);
}

// Ht-1 (or another vector) * R^T + Rb for gate g at unit j.
float RecurrentPart(const Pass& pass, const float* state, int gate, int64_t j) {
  const int64_t row = gate * pass.dims.hidden + j;
  const int64_t width = pass.dims.gate_width();
  return Dot(pass.r, row, state, pass.dims.hidden) + (pass.b ? pass.b[width + row] : 0.f);
}

void SimpleStep(Pass& pass, const float* xt) {
  const Activation* fn = pass.attrs->Functions(pass.direction);
  std::vector<float> next(pass.dims.hidden);
  for (int64_t j = 0; j < pass.dims.hidden; ++j) {
    const float v = InputPart(pass, xt, 0, j) + RecurrentPart(pass, pass.h.data(), 0, j);
    next[j] = ApplyScalar(fn[0], Clipped(*pass.attrs, v));
  }
  pass.h = next;
}

void GruStep(Pass& pass, const float* xt) {
  const Attributes& a = *pass.attrs;
  const Activation* fn = a.Functions(pass.direction);
  const int64_t hidden = pass.dims.hidden;
  std::vector<float> z(hidden), r(hidden), reset_h(hidden), next(hidden);
  for (int64_t j = 0; j < hidden; ++j) {
    z[j] = ApplyScalar(
        fn[0], Clipped(a, InputPart(pass, xt, 0, j) + RecurrentPart(pass, pass.h.data(), 0, j)));
    r[j] = ApplyScalar(
        fn[0], Clipped(a, InputPart(pass, xt, 1, j) + RecurrentPart(pass, pass.h.data(), 1, j)));
    reset_h[j] = r[j] * pass.h[j];
  }
  for (int64_t j = 0; j < hidden; ++j) {
    const float recurrent = a.linear_before_reset ? r[j] * RecurrentPart(pass, pass.h.data(), 2, j)
                                                  : RecurrentPart(pass, reset_h.data(), 2, j);
    const float candidate = ApplyScalar(fn[1], Clipped(a, InputPart(pass, xt, 2, j) + recurrent));
    next[j] = (1.f - z[j]) * candidate + z[j] * pass.h[j];
  }
  pass.h = next;
}

void LstmStep(Pass& pass, const float* xt) {
  const Attributes& a = *pass.attrs;
  const Activation* fn = a.Functions(pass.direction);
  const int64_t hidden = pass.dims.hidden;
  std::vector<float> next_h(hidden), next_c(hidden);
  auto pre = [&](int gate, int64_t j) {
    return InputPart(pass, xt, gate, j) + RecurrentPart(pass, pass.h.data(), gate, j);
  };
  for (int64_t j = 0; j < hidden; ++j) {
    const float pi = pass.p ? pass.p[j] : 0.f;
    const float po = pass.p ? pass.p[hidden + j] : 0.f;
    const float pf = pass.p ? pass.p[2 * hidden + j] : 0.f;
    const float i = ApplyScalar(fn[0], Clipped(a, pre(0, j) + pi * pass.c[j]));
    const float f =
        a.input_forget ? 1.f - i : ApplyScalar(fn[0], Clipped(a, pre(2, j) + pf * pass.c[j]));
    const float cell = ApplyScalar(fn[1], Clipped(a, pre(3, j)));
    next_c[j] = f * pass.c[j] + i * cell;
    const float o = ApplyScalar(fn[0], Clipped(a, pre(1, j) + po * next_c[j]));
    next_h[j] = o * ApplyScalar(fn[2], next_c[j]);
  }
  pass.h = next_h;
  pass.c = next_c;
}

void RunPass(Pass& pass, int64_t b, int64_t length, ReferenceOutputs* out) {
  const Dims& d = pass.dims;
  const bool backward = pass.attrs->Backward(pass.direction);
  for (int64_t s = 0; s < length; ++s) {
    const int64_t t = backward ? length - 1 - s : s;
    const float* xt = pass.x + d.Row(t, b) * d.input;
    switch (pass.attrs->cell) {
      case Cell::kSimple:
        SimpleStep(pass, xt);
        break;
      case Cell::kGru:
        GruStep(pass, xt);
        break;
      case Cell::kLstm:
        LstmStep(pass, xt);
        break;
    }
    std::copy(pass.h.begin(), pass.h.end(), out->y.ptr<float>() + d.YOffset(t, pass.direction, b));
  }
  const int64_t at = d.StateOffset(pass.direction, b);
  std::copy(pass.h.begin(), pass.h.end(), out->y_h.ptr<float>() + at);
  if (pass.attrs->cell == Cell::kLstm)
    std::copy(pass.c.begin(), pass.c.end(), out->y_c.ptr<float>() + at);
}

// A state input's vector for (direction, batch entry), or zeros.
std::vector<float> InitialState(const Tensor* t, const Dims& d, int dir, int64_t b) {
  std::vector<float> v(d.hidden, 0.f);
  if (t) std::copy_n(t->ptr<float>() + d.StateOffset(dir, b), d.hidden, v.begin());
  return v;
}

}  // namespace

Status RunReference(const Attributes& attrs, const ReferenceInputs& in, ReferenceOutputs* out) {
  Dims d;
  d.layout = attrs.layout;
  d.seq = in.x->shape[attrs.layout == 0 ? 0 : 1];
  d.batch = in.x->shape[attrs.layout == 0 ? 1 : 0];
  d.input = in.x->shape[2];
  d.hidden = in.r->shape[2];
  d.directions = attrs.directions;
  d.gates = GateCount(attrs.cell);
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, d.YShape(), &out->y));  // zeros
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, d.StateShape(), &out->y_h));
  WEBNX_RETURN_IF_ERROR(Tensor::Allocate(DType::kFloat32, d.StateShape(), &out->y_c));
  const int64_t width = d.gate_width();
  for (int dir = 0; dir < d.directions; ++dir) {
    for (int64_t b = 0; b < d.batch; ++b) {
      Pass pass;
      pass.attrs = &attrs;
      pass.dims = d;
      pass.direction = dir;
      pass.x = in.x->ptr<float>();
      pass.w = in.w->ptr<float>() + dir * width * d.input;
      pass.r = in.r->ptr<float>() + dir * width * d.hidden;
      pass.b = in.b ? in.b->ptr<float>() + dir * 2 * width : nullptr;
      pass.p = in.p ? in.p->ptr<float>() + dir * 3 * d.hidden : nullptr;
      pass.h = InitialState(in.initial_h, d, dir, b);
      pass.c = InitialState(in.initial_c, d, dir, b);
      const int64_t length = in.sequence_lens ? in.sequence_lens->IntAt(b) : d.seq;
      RunPass(pass, b, length, out);
    }
  }
  return Status::Ok();
}

}  // namespace webnx::rnn
