// --mode dynamic: onnxruntime's dynamic quantization format, as separate standard ops.
//   x -> DynamicQuantizeLinear -> (x_q uint8, x_scale, x_zp)         one per activation
//   ConvInteger | MatMulInteger (x_q, W_q int8, x_zp, W_zp = 0) -> int32
//   -> Cast(float) -> Mul(·, Mul(x_scale, w_scale)) [-> Add(bias)] -> the node's own output
// Weights are int8, symmetric per output channel; their zero point is one scalar 0 (every
// channel's is 0) because onnxruntime's ConvInteger refuses a per-channel zero point ("Non
// per-tensor quantization is not supported now"); the per-channel scales go into the Mul.
import { FLOAT, INT8, makeNode, makeTensor, intAttr } from './quantize-graph.mjs';
import { quantizeWeights } from './quantize-math.mjs';

// [N, K] -> [K, N] (Gemm's transB = 1 weight, as MatMulInteger reads B).
function transpose(values, [rows, cols]) {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c];
  return out;
}

// Why the dynamic form cannot express this node, or null.
function unsupported(plan) {
  if (plan.op === 'Conv' && plan.bias && !plan.bias.values) return 'its bias is not a constant';
  if (plan.op === 'Gemm' && plan.bias && !plan.bias.values && plan.beta !== 1) return 'C is not a constant and beta != 1';
  return null;
}

// The int8 weight, its scalar zero point and the per-channel scale constant, shaped to broadcast
// over the integer op's output: [M, 1, …] for Conv, [N] for a [K, N] matrix.
function addWeight(plan, ctx) {
  const { weight } = plan;
  let { values, dims } = weight;
  if (plan.op === 'Gemm' && plan.transB) {
    values = transpose(values, dims);
    dims = [dims[1], dims[0]];
  }
  const axis = plan.op === 'Conv' ? 0 : 1;
  const { q, scales } = quantizeWeights(values, dims, axis) ?? {};
  if (!q) return null;
  const alpha = plan.op === 'Gemm' ? plan.alpha : 1;
  const scaleDims = plan.op === 'Conv' ? [dims[0], ...dims.slice(2).map(() => 1)] : [dims[1]];
  const names = { q: ctx.name(`${weight.name}_quantized`), zp: ctx.name(`${weight.name}_zero_point`), scale: ctx.name(`${weight.name}_scale`) };
  ctx.initializers.push(makeTensor(names.q, INT8, dims, q), makeTensor(names.zp, INT8, [], [0]),
    makeTensor(names.scale, FLOAT, scaleDims, scales.map((s) => Math.fround(s * alpha))));
  return names;
}

// The bias as the Add reads it: Conv's [M] reshaped to [M, 1, …]; Gemm's C times beta.
function addBias(plan, ctx) {
  const { bias } = plan;
  if (!bias) return null;
  if (plan.op === 'Conv') {
    const name = ctx.name(`${bias.name}_reshaped`);
    const rank = plan.weight.dims.length;
    ctx.initializers.push(makeTensor(name, FLOAT, [bias.values.length, ...Array(rank - 2).fill(1)], bias.values));
    return name;
  }
  if (plan.beta === 1) return bias.name;
  const name = ctx.name(`${bias.name}_beta`);
  ctx.initializers.push(makeTensor(name, FLOAT, bias.dims, bias.values.map((v) => Math.fround(v * plan.beta))));
  return name;
}

// The nodes that replace one Conv / MatMul / Gemm; the last writes the original output.
function integerNodes(plan, xq, w, biasName, ctx) {
  const { node } = plan;
  const y = node.output[0];
  const base = node.name || y;
  const t = (suffix) => ctx.name(`${y}_${suffix}`);
  const acc = t('int32');
  const accFloat = t('float');
  const scale = t('scale');
  const scaled = biasName ? t('scaled') : y;
  // ConvInteger takes Conv's attributes as they are; MatMulInteger has none.
  const integer = plan.op === 'Conv'
    ? makeNode('ConvInteger', [xq.q, w.q, xq.zp, w.zp], [acc], ctx.name(`${base}_ConvInteger`), node.attribute ?? [])
    : makeNode('MatMulInteger', [xq.q, w.q, xq.zp, w.zp], [acc], ctx.name(`${base}_MatMulInteger`));
  const nodes = [
    integer,
    makeNode('Cast', [acc], [accFloat], ctx.name(`${base}_Cast`), [intAttr('to', FLOAT)]),
    makeNode('Mul', [xq.scale, w.scale], [scale], ctx.name(`${base}_scale_Mul`)),
    makeNode('Mul', [accFloat, scale], [scaled], ctx.name(`${base}_Mul`)),
  ];
  if (biasName) nodes.push(makeNode('Add', [scaled, biasName], [y], ctx.name(`${base}_bias_Add`)));
  return nodes;
}

const skip = (ctx, node, reason) => ctx.report.skipped.push({ node: node.name || node.output[0], op: node.opType, reason });

// Rewrites graph.node in place; ctx: { name, initializers, report, replaced }.
export function rewriteDynamic(graph, plans, ctx) {
  const activations = new Map();  // activation -> its DynamicQuantizeLinear outputs, shared
  const weights = new Map();      // a weight read by several nodes is stored once
  const out = [];
  for (const node of graph.node) {
    const plan = plans.get(node);
    if (!plan) { out.push(node); continue; }
    const reason = unsupported(plan);
    const key = `${plan.weight.name}|${plan.transB}|${plan.alpha}`;
    if (!reason && !weights.has(key)) weights.set(key, addWeight(plan, ctx));
    const w = reason ? null : weights.get(key);
    if (!w) {
      skip(ctx, node, reason ?? 'its weight is not finite');
      out.push(node);
      continue;
    }
    let xq = activations.get(plan.x);
    if (!xq) {
      xq = { q: ctx.name(`${plan.x}_quantized`), scale: ctx.name(`${plan.x}_scale`), zp: ctx.name(`${plan.x}_zero_point`) };
      out.push(makeNode('DynamicQuantizeLinear', [plan.x], [xq.q, xq.scale, xq.zp], ctx.name(`${plan.x}_DynamicQuantizeLinear`)));
      activations.set(plan.x, xq);
    }
    out.push(...integerNodes(plan, xq, w, addBias(plan, ctx), ctx));
    for (const n of node.input.slice(1)) if (n) ctx.replaced.add(n);
    ctx.report.quantized.push({ node: node.name || node.output[0], op: node.opType, as: plan.op === 'Conv' ? 'ConvInteger' : 'MatMulInteger' });
  }
  graph.node = out;
}
