// Which nodes the quantizer rewrites: Conv with a constant float weight, MatMul whose B is a
// constant 2-D float matrix, Gemm (transA = 0) with a constant B. Each plan names the activation
// input, the weight's values and its per-channel axis as stored, and the bias.
import { attrOf, dimsOf, floatsOf } from './quantize-graph.mjs';

const isDefaultDomain = (node) => !node.domain || node.domain === 'ai.onnx';

// The bias as { name, values, dims } when constant, { name } when computed, null when absent.
function biasOf(name, constant) {
  if (!name) return null;
  const tensor = constant(name);
  const values = tensor && floatsOf(tensor);
  return values ? { name, values, dims: dimsOf(tensor) } : { name };
}

// A plan, or { skip: reason }.
function planNode(node, constant) {
  const [x, w, b] = node.input;
  if (!x || constant(x)) return { skip: 'its input is a constant' };
  const tensor = w && constant(w);
  if (!tensor) return { skip: 'its weight is not a constant' };
  const values = floatsOf(tensor);
  if (!values) return { skip: 'its weight is not float32 data inside the model' };
  const dims = dimsOf(tensor);
  const weight = { name: w, values, dims };
  if (node.opType === 'Conv') {
    if (dims.length < 3) return { skip: 'its weight is not [M, C/group, k…]' };
    return { node, op: 'Conv', x, weight, axis: 0, bias: biasOf(b, constant) };
  }
  if (dims.length !== 2) return { skip: 'its B is not a 2-D matrix' };
  if (node.opType === 'MatMul') return { node, op: 'MatMul', x, weight, axis: 1, bias: null };
  // Gemm: Y = alpha * A · B' + beta * C, B' = B or its transpose ([N, K] when transB = 1).
  if (Number(attrOf(node, 'transA')?.i ?? 0)) return { skip: 'transA = 1' };
  const transB = Number(attrOf(node, 'transB')?.i ?? 0) === 1;
  return {
    node, op: 'Gemm', x, weight, axis: transB ? 0 : 1, transB, bias: biasOf(b, constant),
    alpha: attrOf(node, 'alpha')?.f ?? 1, beta: attrOf(node, 'beta')?.f ?? 1,
  };
}

// Plans for the graph's quantizable nodes (by node) and the reasons others were passed over.
export function planGraph(graph, constant) {
  const plans = new Map();
  const skipped = [];
  for (const node of graph.node) {
    if (!isDefaultDomain(node) || !['Conv', 'MatMul', 'Gemm'].includes(node.opType)) continue;
    const plan = planNode(node, constant);
    if (plan.skip) skipped.push({ node: node.name || node.output[0], op: node.opType, reason: plan.skip });
    else plans.set(node, plan);
  }
  return { plans, skipped };
}
