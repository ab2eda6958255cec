// Helpers the fuzzer's op builders share (tests/fuzz-diff/ops*.mjs). Dims are numbers or 'N'
// (the symbolic batch); an op that needs a dim's value requires a number there.
export const fixed = (d) => typeof d === 'number';
export const allFixed = (dims) => dims.every(fixed);
export const numel = (dims) => dims.reduce((a, d) => a * d, 1);

// `value`, of ONNX type `dataType`, not float32: the localizer exposes it with that type.
export function typed(b, value, dataType) {
  b.types.set(value, dataType);
  return value;
}

export function unary(name, since, attrs = () => ({}), floats = []) {
  return { name, since, build: (b, x) => b.node(name, [x], b.shapes.get(x), attrs(b), floats) };
}

// A shape x broadcasts with: all of x's fixed dims, some set to 1, some leading ones dropped.
export function broadcastShape(b, dims) {
  if (dims.some((d) => !fixed(d)) && b.rng.chance(0.2)) return [];
  const start = b.rng.int(0, dims.length);
  return dims.slice(start).map((d) => (!fixed(d) || b.rng.chance(0.3) ? 1 : d));
}

export function binary(name, since, { positive = false } = {}) {
  return {
    name, since,
    build(b, x, values) {
      const dims = b.shapes.get(x);
      const same = values.filter((v) => v !== x && b.shapes.get(v).join() === dims.join());
      let other;
      if (same.length > 0 && b.rng.chance(0.4) && !positive) {
        other = b.rng.pick(same);
      } else {
        const shape = broadcastShape(b, dims);
        if (shape.some((d) => !fixed(d))) return null;
        other = positive ? b.constant(shape, b.rng.floats(shape.reduce((a, d) => a * d, 1), 0.5, 2)) : b.floatConstant(shape);
      }
      const [first, second] = b.rng.chance(0.5) || positive ? [x, other] : [other, x];
      const out = dims.length >= (b.shapes.get(second)?.length ?? 0) ? dims : b.shapes.get(second);
      return b.node(name, [first, second], out);
    },
  };
}

export const alpha = (b) => ({ alpha: b.rng.pick([0.01, 0.1, 0.5, 1, 2]) });

// Output size of a window op along one axis (NOTSET padding), or 0 when it has none.
export function windowed(size, kernel, stride, dilation, padBegin, padEnd, ceil) {
  const span = size + padBegin + padEnd - ((kernel - 1) * dilation + 1);
  if (span < 0) return 0;
  let out = (ceil ? Math.ceil(span / stride) : Math.floor(span / stride)) + 1;
  // A last window that would start in the end padding is dropped (ceil_mode).
  if (ceil && (out - 1) * stride >= size + padBegin) out -= 1;
  return out;
}

// Spatial attributes for Conv and pooling over [N, C, H, W]: kernel_shape, strides, pads,
// dilations, auto_pad, and the output H, W (null when there is none).
// Whether some window along an axis lies wholly in the padding: a max over no values, which the
// spec leaves open (onnxruntime gives the lowest float, webnx minus infinity).
function hasEmptyWindow(size, out, kernel, stride, dilation, padBegin) {
  for (let o = 0; o < out; o++) {
    const start = o * stride - padBegin;
    let inside = false;
    for (let j = 0; j < kernel && !inside; j++) inside = start + j * dilation >= 0 && start + j * dilation < size;
    if (!inside) return true;
  }
  return false;
}

export function windowAttrs(b, dims, { maxKernel = 3, dilations = true, ceil = false, padBelowKernel = false }) {
  const [, , h, w] = dims;
  const kernel = [b.rng.int(1, Math.min(maxKernel, h + 2)), b.rng.int(1, Math.min(maxKernel, w + 2))];
  const strides = [b.rng.int(1, 3), b.rng.int(1, 3)];
  const dil = dilations && b.rng.chance(0.3) ? [b.rng.int(1, 2), b.rng.int(1, 2)] : [1, 1];
  const attrs = { kernel_shape: kernel };
  if (b.rng.chance(0.7)) attrs.strides = strides; else strides.fill(1);
  if (dil[0] !== 1 || dil[1] !== 1) attrs.dilations = dil;
  const mode = b.rng.pick(['NOTSET', 'NOTSET', 'NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID']);
  let out;
  if (mode === 'NOTSET') {
    const limit = (k) => (padBelowKernel ? k - 1 : 2);
    const pads = [b.rng.int(0, limit(kernel[0])), b.rng.int(0, limit(kernel[1])),
      b.rng.int(0, limit(kernel[0])), b.rng.int(0, limit(kernel[1]))];
    if (pads.some((p) => p > 0) || b.rng.chance(0.3)) attrs.pads = pads;
    out = [windowed(h, kernel[0], strides[0], dil[0], pads[0], pads[2], ceil),
      windowed(w, kernel[1], strides[1], dil[1], pads[1], pads[3], ceil)];
    if (padBelowKernel && (hasEmptyWindow(h, out[0], kernel[0], strides[0], dil[0], pads[0]) ||
        hasEmptyWindow(w, out[1], kernel[1], strides[1], dil[1], pads[1]))) {
      return null;
    }
  } else {
    // A kernel narrower than the stride would make SAME padding negative: the spec's formula
    // and onnxruntime then shift the windows, other runtimes clamp; left out as ambiguous.
    const ext = (i) => (kernel[i] - 1) * dil[i] + 1;
    if (mode !== 'VALID' && [h, w].some((v, i) => (Math.ceil(v / strides[i]) - 1) * strides[i] + ext(i) < v)) return null;
    attrs.auto_pad = mode;
    out = mode === 'VALID'
      ? [windowed(h, kernel[0], strides[0], dil[0], 0, 0, ceil), windowed(w, kernel[1], strides[1], dil[1], 0, 0, ceil)]
      : [Math.ceil(h / strides[0]), Math.ceil(w / strides[1])];
  }
  return out[0] > 0 && out[1] > 0 ? { attrs, out } : null;
}

// A 4-D value with fixed, non-empty C, H and W (the window ops' input).
export const is4d = (dims) => dims.length === 4 && dims.slice(1).every((d) => fixed(d) && d > 0);


// onnxruntime 1.30 reduces tensors that a Slice or Concat made empty to wrong shapes (the
// spec's answers are regressions in tests/regressions/spec-*): reductions skip them.
export const hasZero = (dims) => dims.some((d) => d === 0);

// A graph input, not a computed value: its values are exact multiples of 1/4096, so both runtimes
// see the same bits (ops whose result jumps at their input's last bits read only these).
export const isInput = (b, x) => !b.nodes.some((n) => n.output.includes(x));

// Tanh(x): a bounded argument for ops that overflow, or whose outputs swing at large arguments.
export const tanhOf = (b, x) => b.node('Tanh', [x], b.shapes.get(x));

// An elementwise op over `through(x)` (Tanh(x) by default).
export const onBounded = (name, since, through = tanhOf) => ({
  name, since, build: (b, x) => b.node(name, [through(b, x)], b.shapes.get(x)),
});

// An elementwise op over graph inputs only.
export const onInputs = (name, since, attrs = () => ({})) => ({
  name, since,
  build: (b, x) => (isInput(b, x) && !hasZero(b.shapes.get(x)) ? b.node(name, [x], b.shapes.get(x), attrs(b, x)) : null),
});

// Group counts a channel count allows: 1, depthwise, and 2 or 3 where they divide it.
export const groupCounts = (c) => [1, c, ...[2, 3].filter((g) => c % g === 0)];

// Where the axes are an input (ReduceSum from 13, the others from 18), now and then none:
// noop_with_empty_axes = 1 reduces no axis (each op's element function still applied: x^2 for
// ReduceSumSquare, |x| for L1 and L2, log x for LogSum), 0 (or absent) every axis. null
// otherwise.
export function noopWithEmptyAxes(b, dims, keep) {
  if (!b.rng.chance(0.1)) return null;
  if (b.rng.chance(0.5)) return { out: dims, attrs: { noop_with_empty_axes: 1 } };
  return { out: keep ? dims.map(() => 1) : [], attrs: b.rng.chance(0.5) ? { noop_with_empty_axes: 0 } : {} };
}
