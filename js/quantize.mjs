// webnx/quantize: ONNX model -> int8 ONNX model, in onnxruntime's two quantization formats.
//   dynamic: Conv/MatMul/Gemm become ConvInteger/MatMulInteger on int8 weights, with
//            DynamicQuantizeLinear on their activations at run time (js/quantize-dynamic.mjs).
//   qdq:     QuantizeLinear -> DequantizeLinear pairs on activations, with scales from a
//            calibration run of the float model in webnx, and int8 weights behind
//            DequantizeLinear (js/quantize-qdq.mjs, js/quantize-calibrate.mjs).
// docs/quantize.md describes the formats and the choices.
import { WebnxError } from './errors.mjs';
import { decodeModel, encodeModel } from './onnx-proto.mjs';
import { constantResolver, dropUnread, nameAllocator } from './quantize-graph.mjs';
import { planGraph } from './quantize-plan.mjs';
import { requireOpset } from './quantize-opset.mjs';
import { rewriteDynamic } from './quantize-dynamic.mjs';
import { rewriteQdq } from './quantize-qdq.mjs';
import { calibrate } from './quantize-calibrate.mjs';

export const MODES = ['dynamic', 'qdq'];

function decode(bytes) {
  if (!(bytes instanceof Uint8Array)) throw new WebnxError('InvalidArgument', 'quantize takes the model as a Uint8Array');
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (first === 0x7b) throw new WebnxError('MalformedModel', 'quantize takes an ONNX model, not JSON (webnx convert makes one)');
  let model;
  try {
    model = decodeModel(bytes);
  } catch (e) {
    throw new WebnxError('MalformedModel', `not an ONNX model: ${e.message}`);
  }
  if (!model.graph?.node?.length) throw new WebnxError('MalformedModel', 'the model has no graph (is it an ONNX file?)');
  return model;
}

// { model: Uint8Array, report }; report: { mode, quantized: [{ node, op, as }],
// skipped: [{ node, op, reason }], warnings: [string], opset: { from, to } | null,
// calibrationSamples (qdq) }.
// options: mode ('dynamic' | 'qdq'), and for qdq the calibration options of calibrate()
// (samples, randomSamples, seed, dims, numThreads); onWarning(message) sees each warning.
export async function quantize(bytes, options = {}) {
  const { mode } = options;
  if (!MODES.includes(mode)) throw new WebnxError('InvalidArgument', `mode is 'dynamic' or 'qdq', got '${mode}'`);
  const model = decode(bytes);
  const { graph } = model;
  const report = { mode, quantized: [], skipped: [], warnings: [], opset: null };
  const warn = (message) => { report.warnings.push(message); options.onWarning?.(message); };
  const { plans, skipped } = planGraph(graph, constantResolver(graph));
  report.skipped.push(...skipped);
  // Before calibrating: a model whose opset cannot be raised fails fast.
  const opset = plans.size === 0 ? null : mode === 'dynamic' ? requireOpset(model, 11, 'DynamicQuantizeLinear')
    : requireOpset(model, 13, 'a per-channel DequantizeLinear');
  const ctx = { name: nameAllocator(graph), initializers: [], report, replaced: new Set(), warn };
  if (mode === 'dynamic' && (options.samples || options.randomSamples)) warn('dynamic mode needs no calibration; the samples are not used');
  if (plans.size && mode === 'dynamic') {
    rewriteDynamic(graph, plans, ctx);
  } else if (plans.size) {
    const activations = [...new Set([...plans.values()].map((p) => p.x))];
    const { ranges, samples } = await calibrate(bytes, activations, { ...options, warn });
    report.calibrationSamples = samples;
    rewriteQdq(graph, plans, ranges, ctx);
  }
  for (const s of report.skipped) warn(`left ${s.op} '${s.node}' in float: ${s.reason}`);
  if (report.quantized.length === 0) {
    warn(plans.size ? 'no node could be quantized; the model is unchanged'
      : 'nothing to quantize (no Conv, MatMul or Gemm with a constant float weight); the model is unchanged');
    return { model: bytes.slice(), report };
  }
  report.opset = opset;
  if (opset) warn(`raised the default-domain opset from ${opset.from} to ${opset.to}`);
  graph.initializer = [...(graph.initializer ?? []), ...ctx.initializers];
  dropUnread(graph, ctx.replaced);
  return { model: encodeModel(model), report };
}

// The quantized model's bytes (quantize() without the report).
export async function quantizeModel(bytes, options) {
  return (await quantize(bytes, options)).model;
}
