// --mode qdq: onnxruntime's QDQ format. The float Conv/MatMul/Gemm stays; what it reads is
// quantized and dequantized in front of it:
//   x -> QuantizeLinear(s, zp uint8) -> DequantizeLinear(s, zp) -> node    one pair per activation
//   W_q int8 -> DequantizeLinear(w_scale[C], zeros int8 [C], axis) -> node     per output channel
//   b_q int32 -> DequantizeLinear(x_scale * w_scale[C], zeros int32 [C], axis 0) -> node
// A runtime that fuses the pattern (onnxruntime) runs integer kernels; one that does not (webnx
// today) runs the float op on the dequantized values: the same numbers up to rounding.
import { FLOAT, INT8, INT32, UINT8, intAttr, makeNode, makeTensor } from './quantize-graph.mjs';
import { activationParams, quantizeBias, quantizeWeights } from './quantize-math.mjs';

// DequantizeLinear of a new per-channel initializer `q` (int8 weight or int32 bias).
function perChannel(base, dataType, dims, q, scales, axis, ctx) {
  const names = { q: ctx.name(`${base}_quantized`), scale: ctx.name(`${base}_scale`), zp: ctx.name(`${base}_zero_point`) };
  const dq = ctx.name(`${base}_dequantized`);
  ctx.initializers.push(makeTensor(names.q, dataType, dims, q), makeTensor(names.scale, FLOAT, [scales.length], scales),
    makeTensor(names.zp, dataType, [scales.length], new (dataType === INT8 ? Int8Array : Int32Array)(scales.length)));
  const node = makeNode('DequantizeLinear', [names.q, names.scale, names.zp], [dq], ctx.name(`${base}_DequantizeLinear`), [intAttr('axis', axis)]);
  return { dq, node, scales };
}

// The activation's QuantizeLinear -> DequantizeLinear pair (asymmetric uint8, per tensor).
function activationPair(x, range, ctx) {
  const { scale, zeroPoint } = activationParams(range.min, range.max);
  const s = ctx.name(`${x}_scale`);
  const zp = ctx.name(`${x}_zero_point`);
  const q = ctx.name(`${x}_quantized`);
  const dq = ctx.name(`${x}_dequantized`);
  ctx.initializers.push(makeTensor(s, FLOAT, [], [scale]), makeTensor(zp, UINT8, [], [zeroPoint]));
  const nodes = [
    makeNode('QuantizeLinear', [x, s, zp], [q], ctx.name(`${x}_QuantizeLinear`)),
    makeNode('DequantizeLinear', [q, s, zp], [dq], ctx.name(`${x}_DequantizeLinear`)),
  ];
  return { dq, scale, nodes };
}

// The int32 bias behind DequantizeLinear, or null to keep the float bias: a Gemm whose C is not
// one value per output column or whose alpha or beta is not 1, or a value out of int32's range.
function biasPair(plan, inputScale, weightScales, ctx) {
  const { bias } = plan;
  if (!bias?.values || bias.values.length !== weightScales.length || bias.dims.length !== 1) return null;
  if (plan.op === 'Gemm' && (plan.alpha !== 1 || plan.beta !== 1)) return null;
  const quantized = quantizeBias(bias.values, inputScale, weightScales);
  if (!quantized) {
    ctx.warn(`kept the float bias '${bias.name}' of '${plan.node.name || plan.node.output[0]}': it does not fit int32 at its scale`);
    return null;
  }
  return perChannel(bias.name, INT32, bias.dims, quantized.q, quantized.scales, 0, ctx);
}

const skip = (ctx, node, reason) => ctx.report.skipped.push({ node: node.name || node.output[0], op: node.opType, reason });

// Rewrites graph.node in place; ranges: activation name -> { min, max } (js/quantize-calibrate.mjs);
// ctx: { name, initializers, report, replaced, warn }.
export function rewriteQdq(graph, plans, ranges, ctx) {
  const activations = new Map();  // one Q/DQ pair per activation, shared by its readers
  const weights = new Map();      // one DequantizeLinear per weight and axis
  const out = [];
  for (const node of graph.node) {
    const plan = plans.get(node);
    if (!plan) { out.push(node); continue; }
    const range = ranges.get(plan.x);
    if (!range || !Number.isFinite(range.min) || !Number.isFinite(range.max)) {
      skip(ctx, node, `calibration saw no finite value of '${plan.x}'`);
      out.push(node);
      continue;
    }
    const key = `${plan.weight.name}|${plan.axis}`;
    if (!weights.has(key)) {
      const { q, scales } = quantizeWeights(plan.weight.values, plan.weight.dims, plan.axis) ?? {};
      weights.set(key, q ? { ...perChannel(plan.weight.name, INT8, plan.weight.dims, q, scales, plan.axis, ctx), emitted: false } : null);
    }
    const w = weights.get(key);
    if (!w) { skip(ctx, node, 'its weight is not finite'); out.push(node); continue; }
    let x = activations.get(plan.x);
    if (!x) {
      x = activationPair(plan.x, range, ctx);
      out.push(...x.nodes);
      activations.set(plan.x, x);
    }
    if (!w.emitted) { out.push(w.node); w.emitted = true; }
    const b = biasPair(plan, x.scale, w.scales, ctx);
    if (b) out.push(b.node);
    const input = [x.dq, w.dq, ...(b ? [b.dq] : node.input.slice(2))];
    out.push({ ...node, input });
    for (const n of node.input.slice(1)) if (n) ctx.replaced.add(n);
    ctx.report.quantized.push({ node: node.name || node.output[0], op: node.opType, as: 'QDQ' });
  }
  graph.node = out;
}
