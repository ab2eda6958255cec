// Quantized islands for the differential fuzzer: float32 in, float32 out, through the integer
// ops of the default domain and the quantized patterns webnx fuses into int8 kernels at load
// (kernels/quant_fusion.h): QuantizeLinear -> DequantizeLinear round trips; QDQ Conv, MatMul and
// Gemm (per-channel int8 weights, an int32 bias at x_scale * w_scale); the dynamically quantized
// MatMul and Conv chains (DynamicQuantizeLinear -> *Integer -> Cast -> Mul (-> Add)); QLinearConv
// and QLinearMatMul between a QuantizeLinear and a DequantizeLinear; com.microsoft's QOperator
// ops (QLinearAdd, -Mul, -Sigmoid, -LeakyRelu, -Concat, -GlobalAveragePool), MatMulIntegerToFloat
// and DynamicQuantizeMatMul. Quantizing jumps a whole
// step where a value's last bit crosses a rounding boundary, so the islands read graph inputs
// only, as the other ops whose results jump do (the last bits of a computed value may differ
// between the runtimes; seed 801 of the sample quantized symmetric computed values).
import { fixed, groupCounts, hasZero, is4d, isInput, numel, typed, windowAttrs } from './ops-common.mjs';

const UINT8 = 2;
const INT8 = 3;
const INT32 = 6;
const FLOAT = 1;

// An activation's scale and zero point: [scale, zero point] constant names, per tensor.
function activationParams(b, dataType = UINT8) {
  const scale = b.rng.pick([0.0078125, 0.01, 0.02, 0.05]);
  const zp = dataType === UINT8 ? b.rng.int(0, 255) : b.rng.int(-128, 127);
  return { scale, zp, names: [b.constant([], [scale]), b.typedConstant([], dataType, [zp])] };
}

// Int8 weights symmetric per output channel along `axis` of `dims` (or per tensor before opset
// 13, which has no per-axis DequantizeLinear): { w, scales, names: [w, scale, zero point] }.
function int8Weights(b, dims, axis) {
  const perAxis = b.opset >= 13 && b.rng.chance(0.7);
  const channels = perAxis ? dims[axis] : 1;
  const w = Array.from({ length: numel(dims) }, () => b.rng.int(-127, 127));
  const spread = 1 / Math.sqrt(Math.max(1, numel(dims) / dims[axis]));
  const scales = b.rng.floats(channels, 0.2 * spread, spread).map((s) => Math.fround(s / 127));
  const shape = perAxis ? [channels] : [];
  return { perAxis, scales, names: [b.typedConstant(dims, INT8, w), b.constant(shape, scales), b.typedConstant(shape, INT8, new Array(channels).fill(0))] };
}

function dequantizeWeights(b, weights, dims, axis) {
  return b.node('DequantizeLinear', weights.names, dims, weights.perAxis ? { axis } : {});
}

// x -> QuantizeLinear -> DequantizeLinear, per tensor (uint8 or int8) or per axis.
function roundTrip(b, x) {
  const dims = b.shapes.get(x);
  const axes = dims.map((d, i) => i).filter((i) => fixed(dims[i]) && dims[i] > 0);
  const dataType = b.rng.pick([UINT8, INT8]);
  if (b.opset >= 13 && axes.length && b.rng.chance(0.4)) {
    const axis = b.rng.pick(axes);
    const n = dims[axis];
    const scales = b.rng.floats(n, 0.005, 0.05);
    const zps = Array.from({ length: n }, () => (dataType === UINT8 ? b.rng.int(0, 255) : b.rng.int(-128, 127)));
    const params = [b.constant([n], scales), b.typedConstant([n], dataType, zps)];
    const attrs = { axis: axis - (b.rng.chance(0.3) ? dims.length : 0) };
    const q = typed(b, b.node('QuantizeLinear', [x, ...params], dims, attrs), dataType);
    return b.node('DequantizeLinear', [q, ...params], dims, attrs);
  }
  const { names } = activationParams(b, dataType);
  const attrs = {};
  // output_dtype (opset 21) names the zero point's type; saturate (19) applies to float 8 only.
  if (b.opset >= 21 && b.rng.chance(0.3)) attrs.output_dtype = dataType;
  if (b.opset >= 19 && b.rng.chance(0.2)) attrs.saturate = b.rng.int(0, 1);
  // Opset 23: QuantizeLinear's precision (of x / scale) and DequantizeLinear's output_dtype,
  // float32 both (the scale's type, which they default to).
  if (b.opset >= 23 && b.rng.chance(0.3)) attrs.precision = FLOAT;
  const q = typed(b, b.node('QuantizeLinear', [x, ...names], dims, attrs), dataType);
  return b.node('DequantizeLinear', [q, ...names], dims, b.opset >= 23 && b.rng.chance(0.3) ? { output_dtype: FLOAT } : {});
}

// Blocked int8 weights [k, n] (opset 21): a scale per block of `block` rows and per column, as
// DequantizeLinear's input; the int8 values constants, or (QuantizeLinear with the same blocks)
// quantized from float constants.
function blockedWeights(b, k, n) {
  const block = b.rng.pick([1, 2, 3, 4].filter((s) => s <= k));
  const blocks = Math.ceil(k / block);
  const scale = b.constant([blocks, n], b.rng.floats(blocks * n, 0.2, 1).map((s) => Math.fround(s / (127 * Math.sqrt(k)))));
  const zero = b.typedConstant([blocks, n], INT8, new Array(blocks * n).fill(0));
  const attrs = { axis: 0, block_size: block };
  let w;
  if (b.rng.chance(0.4)) {
    w = typed(b, b.node('QuantizeLinear', [b.floatConstant([k, n], -0.02, 0.02), scale, zero], [k, n], attrs), INT8);
  } else {
    w = b.typedConstant([k, n], INT8, Array.from({ length: k * n }, () => b.rng.int(-127, 127)));
  }
  return b.node('DequantizeLinear', [w, scale, zero], [k, n], attrs);
}

// DequantizeLinear(QuantizeLinear(x)) with uint8 parameters, as QDQ models hold activations.
function qdqActivation(b, x) {
  const act = activationParams(b);
  const dims = b.shapes.get(x);
  const q = typed(b, b.node('QuantizeLinear', [x, ...act.names], dims), UINT8);
  return { act, value: b.node('DequantizeLinear', [q, ...act.names], dims) };
}

// An int32 bias for `channels` outputs at x_scale * w_scale, behind DequantizeLinear.
function qdqBias(b, act, weights, channels) {
  const scales = Array.from({ length: channels }, (_, i) => Math.fround(act.scale * weights.scales[weights.perAxis ? i : 0]));
  const q = Array.from({ length: channels }, () => b.rng.int(-2000, 2000));
  const bq = b.typedConstant([channels], INT32, q);
  if (!weights.perAxis) return b.node('DequantizeLinear', [bq, b.constant([], [scales[0]])], [channels]);
  return b.node('DequantizeLinear', [bq, b.constant([channels], scales)], [channels], { axis: 0 });
}

function qdqConv(b, x) {
  const dims = b.shapes.get(x);
  const c = dims[1];
  const group = b.rng.pick(groupCounts(c));
  const m = group * b.rng.int(1, 3);
  const window = windowAttrs(b, dims, { maxKernel: 3, dilations: false });
  if (!window) return null;
  const [kh, kw] = window.attrs.kernel_shape;
  const { act, value } = qdqActivation(b, x);
  const wDims = [m, c / group, kh, kw];
  const weights = int8Weights(b, wDims, 0);
  const inputs = [value, dequantizeWeights(b, weights, wDims, 0)];
  if (b.rng.chance(0.7)) inputs.push(qdqBias(b, act, weights, m));
  const attrs = { ...window.attrs };
  if (group > 1) attrs.group = group;
  b.patterns.push({ op: 'com.webnx:QDQConv', attrs: { pattern: 'QDQ Conv' } });
  return b.node('Conv', inputs, [dims[0], m, ...window.out], attrs);
}

function qdqMatMul(b, x) {
  const dims = b.shapes.get(x);
  const k = dims.at(-1);
  if (dims.length < 2 || !fixed(k) || k === 0) return null;
  const n = b.rng.int(1, 12);
  const { value } = qdqActivation(b, x);
  if (b.opset >= 21 && b.rng.chance(0.35)) return b.node('MatMul', [value, blockedWeights(b, k, n)], [...dims.slice(0, -1), n]);
  const weights = int8Weights(b, [k, n], 1);
  b.patterns.push({ op: 'com.webnx:QDQMatMul', attrs: { pattern: 'QDQ MatMul' } });
  return b.node('MatMul', [value, dequantizeWeights(b, weights, [k, n], 1)], [...dims.slice(0, -1), n]);
}

function qdqGemm(b, x) {
  const dims = b.shapes.get(x);
  if (dims.length !== 2 || !fixed(dims[1]) || dims[1] === 0) return null;
  const [, k] = dims;
  const n = b.rng.int(1, 12);
  const transB = b.rng.chance(0.6) ? 1 : 0;
  const wDims = transB ? [n, k] : [k, n];
  const { act, value } = qdqActivation(b, x);
  const weights = int8Weights(b, wDims, transB ? 0 : 1);
  const inputs = [value, dequantizeWeights(b, weights, wDims, transB ? 0 : 1)];
  const bias = b.rng.int(0, 2);
  if (bias === 1) inputs.push(qdqBias(b, act, weights, n));
  if (bias === 2) inputs.push(b.floatConstant([n]));
  b.patterns.push({ op: 'com.webnx:QDQMatMul', attrs: { pattern: 'QDQ Gemm' } });
  return b.node('Gemm', inputs, [dims[0], n], transB ? { transB } : {});
}

// DynamicQuantizeLinear -> MatMulInteger or ConvInteger -> Cast -> Mul(Mul(x_scale, w_scale))
// (-> Add(bias)), the chain onnxruntime's dynamic quantizer writes.
function dynamicChain(b, x, forceConv = false) {
  const dims = b.shapes.get(x);
  const conv = is4d(dims) && (forceConv || b.rng.chance(0.5));
  if (!conv && (dims.length < 2 || !fixed(dims.at(-1)) || dims.at(-1) === 0)) return null;
  let outDims, product;
  const [xq, xs, xz] = b.nodeOutputs('DynamicQuantizeLinear', [x], [dims, [], []]);
  typed(b, xq, UINT8);
  typed(b, xz, UINT8);
  const wType = b.rng.pick([UINT8, INT8]);
  const weight = (wDims) => Array.from({ length: numel(wDims) },
    () => (wType === UINT8 ? b.rng.int(0, 255) : b.rng.int(-127, 127)));
  const wz = b.typedConstant([], wType, [wType === UINT8 ? b.rng.int(100, 155) : 0]);
  let channels, scaleShape;
  if (conv) {
    // Dilations (not with SAME padding, which onnxruntime does not dilate) and groups.
    const window = windowAttrs(b, dims, { maxKernel: 3, dilations: true });
    if (!window || (window.attrs.dilations && window.attrs.auto_pad?.startsWith('SAME'))) return null;
    const [kh, kw] = window.attrs.kernel_shape;
    const group = b.rng.chance(0.3) ? b.rng.pick(groupCounts(dims[1])) : 1;
    channels = group * b.rng.int(1, group > 1 ? 2 : 6);
    const wDims = [channels, dims[1] / group, kh, kw];
    outDims = [dims[0], channels, ...window.out];
    const attrs = { ...window.attrs, ...(group > 1 || b.rng.chance(0.2) ? { group } : {}) };
    product = typed(b, b.node('ConvInteger', [xq, b.typedConstant(wDims, wType, weight(wDims)), xz, wz], outDims, attrs), INT32);
    b.patterns.push({ op: 'com.webnx:DynamicQuantizeConv', attrs: { pattern: 'dynamic ConvInteger chain' } });
    scaleShape = [channels, 1, 1];
  } else {
    const k = dims.at(-1);
    channels = b.rng.int(1, 12);
    outDims = [...dims.slice(0, -1), channels];
    product = typed(b, b.node('MatMulInteger', [xq, b.typedConstant([k, channels], wType, weight([k, channels])), xz, wz], outDims), INT32);
    scaleShape = [channels];
  }
  const perChannel = b.rng.chance(0.5);
  const ws = b.constant(perChannel ? scaleShape : [], b.rng.floats(perChannel ? channels : 1, 0.001, 0.01));
  const scale = b.node('Mul', [xs, ws], perChannel ? scaleShape : []);
  let y = b.node('Mul', [b.node('Cast', [product], outDims, { to: FLOAT }), scale], outDims);
  if (b.rng.chance(0.5)) y = b.node('Add', [y, b.floatConstant(scaleShape)], outDims);
  return y;
}

// QuantizeLinear -> QLinearConv or QLinearMatMul -> DequantizeLinear.
function qlinear(b, x) {
  const dims = b.shapes.get(x);
  const x8 = activationParams(b);
  const y8 = activationParams(b);
  const xq = typed(b, b.node('QuantizeLinear', [x, ...x8.names], dims), UINT8);
  let y, outDims;
  if (is4d(dims) && b.rng.chance(0.5)) {
    const c = dims[1];
    const group = b.rng.pick(groupCounts(c));
    const m = group * b.rng.int(1, 3);
    const window = windowAttrs(b, dims, { maxKernel: 3 });
    if (!window || (window.attrs.dilations && window.attrs.auto_pad?.startsWith('SAME'))) return null;
    const [kh, kw] = window.attrs.kernel_shape;
    const wDims = [m, c / group, kh, kw];
    const weights = int8Weights(b, wDims, 0);
    outDims = [dims[0], m, ...window.out];
    const inputs = [xq, ...x8.names, weights.names[0], weights.names[1], weights.names[2], ...y8.names];
    if (b.rng.chance(0.6)) inputs.push(b.typedConstant([m], INT32, Array.from({ length: m }, () => b.rng.int(-500, 500))));
    const attrs = { ...window.attrs };
    if (group > 1) attrs.group = group;
    y = typed(b, b.node('QLinearConv', inputs, outDims, attrs), UINT8);
  } else {
    const k = dims.at(-1);
    if (dims.length < 2 || !fixed(k) || k === 0) return null;
    const n = b.rng.int(1, 12);
    // QLinearMatMul: b_scale per tensor or per column (its second operand's last axis).
    const w = Array.from({ length: k * n }, () => b.rng.int(-127, 127));
    const perColumn = b.rng.chance(0.5);
    const ws = b.constant(perColumn ? [n] : [], b.rng.floats(perColumn ? n : 1, 0.002, 0.02));
    const wz = b.typedConstant(perColumn ? [n] : [], INT8, new Array(perColumn ? n : 1).fill(0));
    outDims = [...dims.slice(0, -1), n];
    y = typed(b, b.node('QLinearMatMul', [xq, ...x8.names, b.typedConstant([k, n], INT8, w), ws, wz, ...y8.names], outDims), UINT8);
  }
  return b.node('DequantizeLinear', [y, ...y8.names], outDims);
}

const eightBit = (b, type, n) => Array.from({ length: n }, () => (type === UINT8 ? b.rng.int(0, 255) : b.rng.int(-128, 127)));

// com.microsoft's QOperator ops, as onnxruntime's quantizer writes them: QuantizeLinear, the op
// on 8-bit values (uint8 or int8 throughout; Add and Mul with a quantized constant, Concat of x
// with itself), DequantizeLinear.
function qoperator(b, x, only) {
  const dims = b.shapes.get(x);
  const type = b.rng.pick([UINT8, INT8]);
  const xin = activationParams(b, type);
  const out = activationParams(b, type);
  const xq = typed(b, b.node('QuantizeLinear', [x, ...xin.names], dims), type);
  const kinds = ['QLinearAdd', 'QLinearMul', 'QLinearSigmoid', 'QLinearLeakyRelu'];
  const axes = dims.map((d, i) => i).filter((i) => fixed(dims[i]));
  if (axes.length) kinds.push('QLinearConcat');
  if (is4d(dims)) kinds.push('QLinearGlobalAveragePool');
  const op = only ?? b.rng.pick(kinds);
  let y, outDims = dims;
  if (op === 'QLinearAdd' || op === 'QLinearMul') {  // a quantized constant that broadcasts
    const shape = dims.map((d) => (!fixed(d) || b.rng.chance(0.4) ? 1 : d)).slice(b.rng.int(0, dims.length));
    const other = activationParams(b, type);
    y = b.msNode(op, [xq, ...xin.names, b.typedConstant(shape, type, eightBit(b, type, numel(shape))), ...other.names,
      ...out.names], dims);
  } else if (op === 'QLinearSigmoid' || op === 'QLinearLeakyRelu') {
    const leaky = op === 'QLinearLeakyRelu';
    y = b.msNode(op, [xq, ...xin.names, ...out.names], dims, leaky ? { alpha: b.rng.pick([0.01, 0.1, 0.3]) } : {},
      leaky ? ['alpha'] : []);
  } else if (op === 'QLinearConcat') {  // x two or three times along a fixed axis
    const axis = b.rng.pick(axes);
    const copies = b.rng.int(2, 3);
    outDims = dims.map((d, i) => (i === axis ? d * copies : d));
    const parts = Array.from({ length: copies }, () => [xq, ...xin.names]).flat();
    y = b.msNode(op, [...out.names, ...parts], outDims, { axis: axis - (b.rng.chance(0.3) ? dims.length : 0) });
  } else {
    // channels_last = 1: x read as [N, H, W, C] (the pool over its axes 1 and 2).
    const last = b.rng.chance(0.4);
    outDims = last ? [dims[0], 1, 1, dims[3]] : [dims[0], dims[1], 1, 1];
    y = b.msNode(op, [xq, ...xin.names, ...out.names], outDims, last ? { channels_last: 1 } : b.rng.chance(0.5) ? { channels_last: 0 } : {});
  }
  return b.node('DequantizeLinear', [typed(b, y, type), ...out.names], outDims);
}

// com.microsoft MatMulIntegerToFloat (A quantized here, B int8 per column) or
// DynamicQuantizeMatMul (A float): float32 out, a bias now and then.
function msMatMul(b, x) {
  const dims = b.shapes.get(x);
  const k = dims.at(-1);
  if (dims.length < 2 || !fixed(k) || k === 0) return null;
  const n = b.rng.int(1, 12);
  const outDims = [...dims.slice(0, -1), n];
  const perColumn = b.rng.chance(0.5);
  const w = b.typedConstant([k, n], INT8, eightBit(b, INT8, k * n).map((v) => Math.max(v, -127)));
  const ws = b.constant(perColumn ? [n] : [], b.rng.floats(perColumn ? n : 1, 0.002, 0.02));
  const wz = b.typedConstant(perColumn ? [n] : [], INT8, new Array(perColumn ? n : 1).fill(0));
  const bias = b.rng.chance(0.5) ? [b.floatConstant([n])] : [];
  if (b.rng.chance(0.5)) return b.msNode('DynamicQuantizeMatMul', [x, w, ws, wz, ...bias], outDims);
  const a = activationParams(b);
  const xq = typed(b, b.node('QuantizeLinear', [x, ...a.names], dims), UINT8);
  return b.msNode('MatMulIntegerToFloat', [xq, w, a.names[0], ws, a.names[1], wz, ...bias], outDims);
}

const island = (name, since, build, fits = () => true) => ({
  name, since,
  build(b, x) {
    const dims = b.shapes.get(x);
    if (dims.length === 0 || hasZero(dims) || !fits(dims) || !isInput(b, x)) return null;
    return build(b, x);
  },
});

export const QUANT_OPS = [
  island('QuantizeLinear', 10, roundTrip),
  { ...island('Conv', 13, qdqConv, is4d), weight: 3 },  // the QDQConv pattern in >= 1,000 of 200,000
  island('MatMul', 13, qdqMatMul),
  island('Gemm', 13, qdqGemm),
  { ...island('DynamicQuantizeLinear', 11, dynamicChain), weight: 2 },
  { ...island('ConvInteger', 11, (b, x) => dynamicChain(b, x, true), is4d), weight: 3 },
  { ...island('QLinearConv', 10, qlinear), weight: 5 },
  { ...island('QLinearAdd', 10, qoperator), weight: 6 },
  { ...island('QLinearGlobalAveragePool', 10, (b, x) => qoperator(b, x, 'QLinearGlobalAveragePool'), is4d), weight: 3 },
  { ...island('MatMulIntegerToFloat', 10, msMatMul), weight: 2 },
];
