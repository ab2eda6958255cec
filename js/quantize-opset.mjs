// Raising a model's default-domain opset to what the emitted operators need
// (DynamicQuantizeLinear: 11; per-axis DequantizeLinear: 13). Raising the import changes which
// version of *every* default-domain op the model means, so it is refused when the graph holds an
// op whose signature or meaning changed in between; onnx.version_converter can convert those.
import { WebnxError } from './errors.mjs';

// Op -> the opsets where it changed incompatibly (an attribute became an input, or its meaning
// changed: Softmax-13 normalises one axis instead of a flattened 2-D view).
const BREAKING = {
  BatchNormalization: [9], Slice: [10], TopK: [10], Upsample: [10], Clip: [11], Pad: [11], Resize: [11],
  Scatter: [11], Dropout: [12], Split: [13], Squeeze: [13], Unsqueeze: [13], ReduceSum: [13],
  Softmax: [13], LogSoftmax: [13], Hardmax: [13],
};

// IR version each opset needs at least.
const MIN_IR = { 11: 6, 13: 7 };

function opsInGraph(graph, into = new Set()) {
  for (const node of graph.node ?? []) {
    if (!node.domain || node.domain === 'ai.onnx') into.add(node.opType);
    for (const a of node.attribute ?? []) for (const g of [a.g, ...(a.graphs ?? [])]) if (g) opsInGraph(g, into);
  }
  return into;
}

// Raises the default-domain import to `version` if it is lower; returns { from, to } or null.
export function requireOpset(model, version, why) {
  model.opsetImport ??= [];
  let entry = model.opsetImport.find((o) => !o.domain || o.domain === 'ai.onnx');
  if (!entry) {
    entry = { domain: '', version: 1 };
    model.opsetImport.push(entry);
  }
  const from = Number(entry.version);
  if (from >= version) return null;
  const blocking = [...opsInGraph(model.graph)].filter((op) => BREAKING[op]?.some((v) => v > from && v <= version));
  if (blocking.length) {
    throw new WebnxError('UnsupportedOpset', `the model imports opset ${from}; ${why} needs ${version}, and ` +
      `${blocking.join(', ')} changed in between: convert the model first ` +
      `(python: onnx.version_converter.convert_version(model, ${version}))`);
  }
  entry.version = version;
  if (Number(model.irVersion ?? 0) < MIN_IR[version]) model.irVersion = MIN_IR[version];
  return { from, to: version };
}
