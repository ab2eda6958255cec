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
