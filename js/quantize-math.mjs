// The arithmetic of quantization: weights symmetric int8 per channel, activations asymmetric
// uint8 per tensor, biases int32 at the product of their input's and weight's scales.
// Rounding is half to even, as numpy's round in onnxruntime's quantizer and as the ONNX
// QuantizeLinear / DynamicQuantizeLinear definitions round.

export function roundHalfEven(x) {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// Symmetric int8 per channel along `axis` of `dims`: scale[c] = max|w_c| / 127 (1 for an
// all-zero channel), q = round(w / scale) in [-127, 127] so that -q never overflows. Zero point 0
// in every channel, which is what lets onnxruntime's ConvInteger take one scalar zero point.
// Null when a weight is not finite.
export function quantizeWeights(values, dims, axis) {
  const channels = dims[axis];
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = values.length / (channels * inner);
  const maxAbs = new Float64Array(channels);
  for (let o = 0; o < outer; o++) {
    for (let c = 0; c < channels; c++) {
      const base = (o * channels + c) * inner;
      for (let i = 0; i < inner; i++) maxAbs[c] = Math.max(maxAbs[c], Math.abs(values[base + i]));
    }
  }
  if (maxAbs.some((m) => !Number.isFinite(m))) return null;
  const scales = Float32Array.from(maxAbs, (m) => (m > 0 ? m / 127 : 1));
  const q = new Int8Array(values.length);
  for (let o = 0; o < outer; o++) {
    for (let c = 0; c < channels; c++) {
      const base = (o * channels + c) * inner;
      for (let i = 0; i < inner; i++) q[base + i] = clamp(roundHalfEven(values[base + i] / scales[c]), -127, 127);
    }
  }
  return { q, scales };
}

// Asymmetric uint8 for an activation seen in [min, max]: the range is widened to hold 0 (so
// zero padding and ReLU's zeros are exact), scale = (max - min) / 255, zero point = round(-min / scale).
export function activationParams(min, max) {
  const lo = Math.min(min, 0);
  const hi = Math.max(max, 0);
  const scale = Math.fround((hi - lo) / 255);
  if (!(scale > 0) || !Number.isFinite(scale)) return { scale: 1, zeroPoint: 0 };
  return { scale, zeroPoint: clamp(roundHalfEven(-lo / scale), 0, 255) };
}

// An int32 bias at scale[c] = inputScale * weightScales[c] (zero point 0), as onnxruntime's
// quantizer writes it; null when a value would not fit in int32 (the caller keeps it float).
export function quantizeBias(values, inputScale, weightScales) {
  const scales = Float32Array.from(weightScales, (w) => inputScale * w);
  const q = new Int32Array(values.length);
  for (let c = 0; c < values.length; c++) {
    const v = roundHalfEven(values[c] / scales[c]);
    if (!(Math.abs(v) <= 2 ** 31 - 1)) return null;
    q[c] = v;
  }
  return { q, scales };
}
