// MaxPool and AveragePool over NCHW computed as the ONNX spec words them, for the cases where
// onnxruntime departs from it (tests/fuzz-diff/spec-cases.mjs): SAME padding from the dilated
// kernel extent, (out - 1) * stride + ((kernel - 1) * dilation + 1) - in, split with the odd
// pixel at the end (SAME_UPPER) or the start (SAME_LOWER).
export function specPool2d(op, x, dims, attrs) {
  const [n, c, h, w] = dims;
  const size = [h, w];
  const k = attrs.kernel_shape, s = attrs.strides ?? [1, 1], d = attrs.dilations ?? [1, 1];
  const mode = attrs.auto_pad ?? 'NOTSET';
  if (!mode.startsWith('SAME')) throw new Error('only SAME padding is needed here');
  const out = size.map((v, i) => Math.ceil(v / s[i]));
  const total = size.map((v, i) => Math.max(0, (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - v));
  const begin = total.map((t) => (mode === 'SAME_UPPER' ? Math.floor(t / 2) : Math.ceil(t / 2)));
  const y = new Float32Array(n * c * out[0] * out[1]);
  for (let p = 0; p < n * c; p++) {
    for (let oy = 0; oy < out[0]; oy++) for (let ox = 0; ox < out[1]; ox++) {
      let max = -Infinity, sum = 0, count = 0, taps = 0;
      for (let ky = 0; ky < k[0]; ky++) for (let kx = 0; kx < k[1]; kx++) {
        const iy = oy * s[0] - begin[0] + ky * d[0], ix = ox * s[1] - begin[1] + kx * d[1];
        taps++;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
        const v = x[(p * h + iy) * w + ix];
        max = Math.max(max, v);
        sum += v;
        count++;
      }
      if (count === 0) throw new Error('an empty window: the spec says nothing of it');
      y[(p * out[0] + oy) * out[1] + ox] = op === 'MaxPool' ? max : sum / (attrs.count_include_pad ? taps : count);
    }
  }
  return { dims: [n, c, ...out], data: y };
}

// Resize, mode linear, align_corners, over the last two axes of NCHW, as the ONNX reference
// implementation computes it (onnx/backend/test/case/node/resize.py, which makes the node
// tests): x_original = x * (in - 1) / (scale * in - 1), the unrounded resized length.
export function specResizeLinearAlignCorners(x, dims, scales) {
  const [n, c, h, w] = dims;
  const out = [Math.floor(h * scales[2]), Math.floor(w * scales[3])];
  const axis = (i, size, scale) => {
    const length = size * scale;
    const at = length === 1 ? 0 : i * (size - 1) / (length - 1);
    const lo = Math.min(Math.max(Math.floor(at), 0), size - 1);
    const hi = Math.min(lo + 1, size - 1);
    return { lo, hi, f: Math.min(Math.max(at - lo, 0), 1) };
  };
  const y = new Float32Array(n * c * out[0] * out[1]);
  for (let p = 0; p < n * c; p++) {
    for (let i = 0; i < out[0]; i++) for (let j = 0; j < out[1]; j++) {
      const a = axis(i, h, scales[2]), b = axis(j, w, scales[3]);
      const v = (r, s) => x[(p * h + r) * w + s];
      y[(p * out[0] + i) * out[1] + j] = (1 - a.f) * ((1 - b.f) * v(a.lo, b.lo) + b.f * v(a.lo, b.hi)) +
        a.f * ((1 - b.f) * v(a.hi, b.lo) + b.f * v(a.hi, b.hi));
    }
  }
  return { dims: [n, c, ...out], data: y };
}

// InstanceNormalization in float64 (x - mean) / sqrt(var + eps) * scale + B: the answer both
// runtimes' float32 results are measured against when they differ on one node (differential.mjs).
export function float64InstanceNorm([x, scale, bias], dims, attrs) {
  const [n, c] = dims;
  const plane = dims.slice(2).reduce((a, d) => a * d, 1);
  const eps = attrs.epsilon ?? 1e-5;
  const y = new Float64Array(x.length);
  for (let p = 0; p < n * c; p++) {
    let mean = 0, variance = 0;
    for (let i = 0; i < plane; i++) mean += x[p * plane + i];
    mean /= plane;
    for (let i = 0; i < plane; i++) variance += (x[p * plane + i] - mean) ** 2;
    variance /= plane;
    const a = scale[p % c] / Math.sqrt(variance + eps);
    for (let i = 0; i < plane; i++) y[p * plane + i] = (x[p * plane + i] - mean) * a + bias[p % c];
  }
  return y;
}

// LRN in float64: x / (bias + alpha / size * sum of x^2 over the neighbouring channels) ^ beta.
export function float64Lrn([x], dims, attrs) {
  const [n, c] = dims;
  const plane = dims.slice(2).reduce((a, d) => a * d, 1);
  const { size, alpha = 1e-4, beta = 0.75, bias = 1 } = attrs;
  const y = new Float64Array(x.length);
  for (let b = 0; b < n; b++) for (let ch = 0; ch < c; ch++) for (let i = 0; i < plane; i++) {
    let sum = 0;
    for (let k = Math.max(0, ch - Math.floor((size - 1) / 2)); k <= Math.min(c - 1, ch + Math.ceil((size - 1) / 2)); k++) {
      sum += x[(b * c + k) * plane + i] ** 2;
    }
    const at = (b * c + ch) * plane + i;
    y[at] = x[at] / (bias + alpha / size * sum) ** beta;
  }
  return y;
}

// LayerNormalization in float64 over the axes from `axis` on; Scale and B have those axes' shape.
export function float64LayerNorm([x, scale, bias], dims, attrs) {
  const rank = dims.length;
  const axis = (attrs.axis ?? -1) < 0 ? (attrs.axis ?? -1) + rank : attrs.axis;
  const row = dims.slice(axis).reduce((a, d) => a * d, 1);
  const eps = attrs.epsilon ?? 1e-5;
  const y = new Float64Array(x.length);
  for (let r = 0; r < x.length / row; r++) {
    let mean = 0, variance = 0;
    for (let i = 0; i < row; i++) mean += x[r * row + i];
    mean /= row;
    for (let i = 0; i < row; i++) variance += (x[r * row + i] - mean) ** 2;
    variance /= row;
    const inv = 1 / Math.sqrt(variance + eps);
    for (let i = 0; i < row; i++) y[r * row + i] = (x[r * row + i] - mean) * inv * scale[i] + (bias ? bias[i] : 0);
  }
  return y;
}

// MeanVarianceNormalization in float64: (x - mean) / (sqrt(variance) + 1e-9) over `axes`
// (default [0, 2, 3]), the variance taken about the mean (the spec's function body writes
// E[x^2] - E[x]^2, which in float32 goes negative for nearly constant values: NaN).
export function float64Mvn([x], dims, attrs) {
  const axes = (attrs.axes ?? [0, 2, 3]).map((a) => (a < 0 ? a + dims.length : a));
  const strides = dims.map((d, i) => dims.slice(i + 1).reduce((a, v) => a * v, 1));
  const groups = new Map();
  for (let i = 0; i < x.length; i++) {
    const key = dims.map((d, a) => (axes.includes(a) ? 0 : Math.floor(i / strides[a]) % d)).join();
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(i);
  }
  const y = new Float64Array(x.length);
  for (const idx of groups.values()) {
    const mean = idx.reduce((s, i) => s + x[i], 0) / idx.length;
    const variance = idx.reduce((s, i) => s + (x[i] - mean) ** 2, 0) / idx.length;
    for (const i of idx) y[i] = (x[i] - mean) / (Math.sqrt(variance) + 1e-9);
  }
  return y;
}

// GroupNormalization (opset 21: Scale and B per channel) in float64.
export function float64GroupNorm([x, scale, bias], dims, attrs) {
  const [n, c] = dims;
  const plane = dims.slice(2).reduce((a, d) => a * d, 1);
  const groups = attrs.num_groups, per = c / groups, eps = attrs.epsilon ?? 1e-5;
  const y = new Float64Array(x.length);
  for (let b = 0; b < n; b++) for (let g = 0; g < groups; g++) {
    const start = (b * c + g * per) * plane, size = per * plane;
    let mean = 0, variance = 0;
    for (let i = 0; i < size; i++) mean += x[start + i];
    mean /= size;
    for (let i = 0; i < size; i++) variance += (x[start + i] - mean) ** 2;
    variance /= size;
    for (let i = 0; i < size; i++) {
      const ch = g * per + Math.floor(i / plane);
      y[start + i] = (x[start + i] - mean) / Math.sqrt(variance + eps) * scale[ch] + bias[ch];
    }
  }
  return y;
}

// LpNormalization in float64: x / ||x||_p along `axis` (p 1 or 2).
export function float64LpNorm([x], dims, attrs) {
  const rank = dims.length;
  const axis = (attrs.axis ?? -1) < 0 ? (attrs.axis ?? -1) + rank : attrs.axis;
  const p = attrs.p ?? 2;
  const inner = dims.slice(axis + 1).reduce((a, d) => a * d, 1), size = dims[axis];
  const y = new Float64Array(x.length);
  for (let o = 0; o < x.length / (inner * size); o++) for (let i = 0; i < inner; i++) {
    let norm = 0;
    for (let k = 0; k < size; k++) norm += p === 1 ? Math.abs(x[(o * size + k) * inner + i]) : x[(o * size + k) * inner + i] ** 2;
    norm = p === 1 ? norm : Math.sqrt(norm);
    for (let k = 0; k < size; k++) y[(o * size + k) * inner + i] = x[(o * size + k) * inner + i] / norm;
  }
  return y;
}

// DFT in float64 along axis 1 of [batch, n, 1 or 2] (real or complex): the direct sum, inverse
// scaled by 1 / n, the first n / 2 + 1 frequencies when onesided. (onnxruntime's float32 Bluestein
// transform of a length that is not a power of 2 strays by ~1e-5 of the largest output.)
export function float64Dft([x], dims, attrs) {
  const [batch, n, parts] = dims;
  const kept = attrs.onesided ? Math.floor(n / 2) + 1 : n;
  const sign = attrs.inverse ? 1 : -1;
  const y = new Float64Array(batch * kept * 2);
  for (let b = 0; b < batch; b++) {
    for (let k = 0; k < kept; k++) {
      let re = 0, im = 0;
      for (let j = 0; j < n; j++) {
        const angle = (sign * 2 * Math.PI * ((j * k) % n)) / n;
        const xr = x[(b * n + j) * parts], xi = parts === 2 ? x[(b * n + j) * parts + 1] : 0;
        re += xr * Math.cos(angle) - xi * Math.sin(angle);
        im += xr * Math.sin(angle) + xi * Math.cos(angle);
      }
      const scale = attrs.inverse ? 1 / n : 1;
      y[(b * kept + k) * 2] = re * scale;
      y[(b * kept + k) * 2 + 1] = im * scale;
    }
  }
  return y;
}

// Float64 references by op, for the node that differs alone.
// Attention in float64 over 4-D Q, K, V ([batch, heads, seq, size], one head count, as the
// generator draws it): softmax(softcap(Q K^T * scale) + mask (+ the causal mask)) V, a row with
// no attendable key giving zeros. Large scores make softmax ill-conditioned: float32 runtimes
// then both stray from this by more than summation order alone would.
export function float64Attention([q, k, v, mask], dims, attrs) {
  const [n, heads, seq, size] = dims;
  const scale = attrs.scale ?? 1 / Math.sqrt(size), softcap = attrs.softcap ?? 0;
  const y = new Float64Array(q.length);
  const scores = new Float64Array(seq);
  for (let p = 0; p < n * heads; p++) {
    for (let i = 0; i < seq; i++) {
      let max = -Infinity;
      for (let t = 0; t < seq; t++) {
        let dot = 0;
        for (let d = 0; d < size; d++) dot += q[(p * seq + i) * size + d] * k[(p * seq + t) * size + d];
        let s = dot * scale;
        if (softcap > 0) s = softcap * Math.tanh(s / softcap);
        if (mask) s += mask[i * seq + t];
        if (attrs.is_causal && t > i) s = -Infinity;
        scores[t] = s;
        max = Math.max(max, s);
      }
      if (max === -Infinity) continue;
      let sum = 0;
      for (let t = 0; t < seq; t++) sum += scores[t] = Math.exp(scores[t] - max);
      for (let t = 0; t < seq; t++) {
        for (let d = 0; d < size; d++) y[(p * seq + i) * size + d] += scores[t] / sum * v[(p * seq + t) * size + d];
      }
    }
  }
  return y;
}

// GridSample (opset 20's 2-D form) in float64, for bicubic sampling with zeros padding (the
// others: null): the ONNX reference implementation's coefficients (A = -0.75) over the 4 x 4
// pixels around each point, pixels outside the image 0. The grid is read as a list of points:
// the output is [N][C][points], the order of [N][C][H_out][W_out].
export function float64GridSampleCubic([x, grid], dims, attrs) {
  const mode = attrs.mode === undefined ? 'linear' : String(attrs.mode);
  const padding = attrs.padding_mode === undefined ? 'zeros' : String(attrs.padding_mode);
  if (mode !== 'cubic' || padding !== 'zeros' || dims.length !== 4 || !grid) return null;
  const [n, c, h, w] = dims;
  const alignCorners = Number(attrs.align_corners ?? 0) === 1;
  const points = grid.length / (2 * n);
  const unnormalize = (v, size) => (alignCorners ? (v + 1) / 2 * (size - 1) : ((v + 1) * size - 1) / 2);
  const A = -0.75;
  const coeffs = (t) => [((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
    ((A + 2) * t - (A + 3)) * t * t + 1, ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1,
    ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A];
  const y = new Float64Array(n * c * points);
  for (let b = 0; b < n; b++) {
    for (let p = 0; p < points; p++) {
      const gx = unnormalize(grid[(b * points + p) * 2], w), gy = unnormalize(grid[(b * points + p) * 2 + 1], h);
      const x0 = Math.floor(gx) - 1, y0 = Math.floor(gy) - 1;
      const cx = coeffs(gx - Math.floor(gx)), cy = coeffs(gy - Math.floor(gy));
      for (let ch = 0; ch < c; ch++) {
        const plane = (b * c + ch) * h * w;
        let sum = 0;
        for (let i = 0; i < 4; i++) {
          let row = 0;
          for (let j = 0; j < 4; j++) {
            const yy = y0 + i, xx = x0 + j;
            row += cx[j] * (yy >= 0 && yy < h && xx >= 0 && xx < w ? x[plane + yy * w + xx] : 0);
          }
          sum += cy[i] * row;
        }
        y[(b * c + ch) * points + p] = sum;
      }
    }
  }
  return y;
}

export const FLOAT64_REFERENCES = {
  InstanceNormalization: float64InstanceNorm, LRN: float64Lrn, LayerNormalization: float64LayerNorm,
  MeanVarianceNormalization: float64Mvn, GroupNormalization: float64GroupNorm, LpNormalization: float64LpNorm,
  DFT: float64Dft, Attention: float64Attention, GridSample: float64GridSampleCubic,
};
