// Runs one generated case in webnx (the wasm build through the public API, one session per
// thread count, 2-4 input shapes in a random order) and in onnxruntime-node on the same
// inputs, and compares the outputs with the tolerances below.
import ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { Rng, numel } from './generator.mjs';
import { FLOAT64_REFERENCES } from './spec-reference.mjs';

const BOOL = 9;  // ONNX's data types
const DOUBLE = 11;

// Per dtype: |webnx - onnxruntime| <= abs * max(1, max |onnxruntime|) + rel * |onnxruntime|.
// float32 results differ in summation order (and SIMD vs scalar paths), never by more.
export const TOLERANCES = {
  float32: { abs: 1e-5, rel: 1e-4 },
  int64: { abs: 0, rel: 0 },
  int32: { abs: 0, rel: 0 },
  bool: { abs: 0, rel: 0 },
  // 8-bit quantized values: one unit where a float input lands on a rounding boundary.
  uint8: { units: 1 },
  int8: { units: 1 },
};

// The first element where `got` and `want` differ beyond the dtype's tolerance, or null. Types
// not listed take float32's: a float64 island's values (ops-float64.mjs) carry their float32
// inputs' rounding.
export function firstMismatch(type, got, want) {
  const tol = TOLERANCES[type] ?? TOLERANCES.float32;
  let scale = 1;  // NaNs (compared apart, below) do not make the scale NaN
  for (const v of want) if (Math.abs(Number(v)) > scale) scale = Math.abs(Number(v));
  for (let i = 0; i < want.length; i++) {
    const a = Number(got[i]), b = Number(want[i]);
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (a === b) continue;
    const allowed = tol.units ?? tol.abs * scale + tol.rel * Math.abs(b);
    if (!(Math.abs(a - b) <= allowed)) return { index: i, got: a, want: b };
  }
  return null;
}

// The batch sizes a case runs with, in order: 2-4 distinct values, large and small mixed.
export function batchOrder(seed) {
  const rng = new Rng(seed ^ 0x5bd1e995);
  const pool = [1, 2, 3, 5, 8];
  const count = rng.int(2, 4);
  const order = [];
  while (order.length < count) {
    const n = rng.pick(pool);
    if (!order.includes(n)) order.push(n);
  }
  if (count === 2 || rng.chance(0.5)) order.push(order[0]);  // and back
  return order;
}

export function feedsFor(c, n, salt) {
  const rng = new Rng((c.seed * 31 + n * 7 + salt) >>> 0);
  return c.inputs.map((i) => {
    const dims = i.dims.map((d) => (d === 'N' ? n : d));
    return { name: i.name, dims, data: Float32Array.from(rng.floats(numel(dims), -2, 2)) };
  });
}

async function runOrt(bytes, feedSets) {
  let session;
  try {
    session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled', logSeverityLevel: 4 });
  } catch (e) {
    return { rejected: e.message };
  }
  const results = [];
  for (const feeds of feedSets) {
    const inputs = Object.fromEntries(feeds.map((f) => [f.name, new ort.Tensor(f.type ?? 'float32', f.data, f.dims)]));
    try {
      const out = await session.run(inputs);
      results.push(Object.fromEntries(session.outputNames.map((name) => [name, { type: out[name].type, dims: [...out[name].dims], data: out[name].data }])));
    } catch (e) {
      return { rejected: e.message };
    }
  }
  await session.release?.();
  return { results };
}

async function runWebnx(bytes, feedSets, threads) {
  const session = await InferenceSession.create(bytes, { numThreads: threads });
  try {
    const results = [];
    for (const feeds of feedSets) {
      const out = await session.run(Object.fromEntries(feeds.map((f) => [f.name, new Tensor(f.type ?? 'float32', f.data, f.dims)])));
      results.push(Object.fromEntries(Object.entries(out).map(([name, t]) => [name, { type: t.type, dims: t.dims, data: t.data }])));
    }
    return results;
  } finally {
    await session.release();
  }
}

// Compares one run's outputs; a string saying what differs, or null.
function compareOutputs(got, want) {
  for (const [name, w] of Object.entries(want)) {
    const g = got[name];
    if (!g) return `output '${name}' is missing`;
    if (g.dims.join() !== w.dims.join()) return `output '${name}' has dims [${g.dims}], onnxruntime [${w.dims}]`;
    const m = firstMismatch(w.type, g.data, w.data);
    if (m) return `output '${name}'[${m.index}] is ${m.got}, onnxruntime ${m.want}`;
  }
  return null;
}

// The generated ops' outputs that are not float32: indices and comparisons.
const INTEGER_OPS = ['ArgMax', 'ArgMin', 'Greater', 'Less', 'QuantizeLinear', 'MatMulInteger', 'ConvInteger',
  'QLinearConv', 'QLinearMatMul', 'QLinearAdd', 'QLinearMul', 'QLinearSigmoid', 'QLinearLeakyRelu', 'QLinearConcat',
  'QLinearGlobalAveragePool'];
const isIntegerOutput = (node, i) => INTEGER_OPS.includes(node.opType) || (node.opType === 'TopK' && i === 1) ||
  (node.opType === 'DynamicQuantizeLinear' && i !== 1);

// The values of the float64 islands (tests/fuzz-diff/ops-float64.mjs): a Cast to double and
// everything computed from its result up to the Cast back to float32 (a comparison's bool
// result, cast to double again, is not one).
function doubleValues(nodes) {
  const doubles = new Set();
  for (const n of nodes) {
    const to = n.opType === 'Cast' ? Number(n.attribute?.find((a) => a.name === 'to')?.i) : null;
    // CastLike's output takes its second input's type (float32 here): it ends an island too.
    const castLike = n.opType === 'CastLike' && !doubles.has(n.input[1]);
    const compares = ['Less', 'Greater', 'Equal'].includes(n.opType);
    const computed = to === null && !castLike && !compares && n.input.some((i) => doubles.has(i));
    if (to === DOUBLE || computed) n.output.forEach((o) => doubles.add(o));
  }
  return doubles;
}

// The node whose output first differs, and whether it differs on its own: the node alone, fed
// onnxruntime's values of its inputs, in both runtimes. A node that agrees there only passed on
// its inputs' last-bit differences, grown by an ill-conditioned op (a normalization of nearly
// equal values, say): that is rounding, not a wrong answer.
// The values a node's subgraphs (If, Loop, Scan) read from the graphs around them.
function capturedInputs(node) {
  const captured = [];
  for (const graph of (node.attribute ?? []).map((a) => a.g).filter(Boolean)) {
    const local = new Set([...(graph.input ?? []).map((i) => i.name), ...(graph.initializer ?? []).map((t) => t.name),
      ...graph.node.flatMap((n) => n.output)]);
    for (const n of graph.node) captured.push(...nodeInputs(n).filter((i) => i && !local.has(i)));
  }
  return captured;
}
const nodeInputs = (node) => [...node.input, ...capturedInputs(node)];

// The values a quantized pattern's fusion hides (QuantizeLinear and DequantizeLinear outputs):
// exposed as graph outputs, they have a second reader and the pattern runs unfused.
const QDQ_OPS = ['QuantizeLinear', 'DequantizeLinear'];

// `hideQuantized`: a second try, for a difference that only the fused quantized patterns make
// (their integer sums are exact where onnxruntime's unfused float conv rounds): with their
// values exposed, nothing differs.
export async function localize(c, batch, threads, hideQuantized = false) {
  const feeds = feedsFor(c, batch, 0);
  const g = c.doc.graph;
  const doubles = doubleValues(g.node);
  const hidden = new Set(hideQuantized ? g.node.filter((n) => QDQ_OPS.includes(n.opType)).flatMap((n) => n.output) : []);
  // Float values in graph order, float64 ones included: where an island's op grows its input's
  // rounding, the first value that differs is inside the island.
  const floatValues = g.node.filter((n) => n.opType !== 'Constant').flatMap((n) => n.output.filter((o, i) => !isIntegerOutput(n, i)))
    .filter((v) => c.shapes.has(v) && !c.types?.has(v) && !hidden.has(v));
  const typedInfo = (name, elemType) => ({ name, type: { tensorType: { elemType } } });
  const floatInfo = (name) => typedInfo(name, doubles.has(name) ? DOUBLE : 1);
  // The quantized islands' integer values (tests/fuzz-diff/ops-quant.mjs), exposed with their types.
  const integers = hideQuantized ? [] : [...(c.types ?? [])].map(([name, elemType]) => typedInfo(name, elemType));
  const all = { ...c.doc, graph: { ...g, output: [...floatValues.map(floatInfo), ...integers] } };
  const bytes = onnxJsonToOnnx(all);
  const ortRun = await runOrt(bytes, [feeds]);
  if (ortRun.rejected) return null;
  const got = (await runWebnx(bytes, [feeds], threads))[0];
  const want = ortRun.results[0];
  const first = floatValues.find((v) => compareOutputs({ [v]: got[v] }, { [v]: want[v] }) !== null);
  if (!first) return hideQuantized || !c.types?.size ? null : localize(c, batch, threads, true);
  const node = g.node.find((n) => n.output.includes(first));
  // A dequantized value whose 8-bit values agree within one unit (the tolerance): one step of
  // a rounding boundary crossed apart, not a wrong answer.
  const quantized = node.opType === 'DequantizeLinear' ? node.input[0] : null;
  if (quantized && c.types?.has(quantized) && compareOutputs({ q: got[quantized] }, { q: want[quantized] }) === null) {
    return { node, value: first, differsAlone: null, why: `its 8-bit input '${quantized}' agrees within one unit` };
  }
  // The node alone: its computed inputs (a control-flow node's: those its subgraphs read from
  // the outer graph too) become graph inputs holding onnxruntime's values.
  const constants = new Set([...g.initializer.map((t) => t.name), ...g.node.filter((n) => n.opType === 'Constant').flatMap((n) => n.output)]);
  const reads = nodeInputs(node);
  const inputs = [...new Set(reads.filter((i) => i && !constants.has(i)))];
  const known = Object.fromEntries(feeds.map((f) => [f.name, f]));
  // Inputs that are not float32, float64 or bool (an island's integers): no localization then.
  // A bool (a control-flow node's condition) is fed as onnxruntime computed it.
  const fed = (i) => !c.types?.has(i) || c.types.get(i) === BOOL;
  if (inputs.some((i) => (!known[i] && !want[i]) || !fed(i))) return null;
  const feedType = (i) => (c.types?.has(i) ? 'bool' : doubles.has(i) ? 'float64' : undefined);
  const singleFeeds = inputs.map((i) => known[i] ??
    { name: i, dims: want[i].dims, data: want[i].data, ...(feedType(i) ? { type: feedType(i) } : {}) });
  const elemTypes = { bool: BOOL, float64: DOUBLE };
  const alone = {
    ...c.doc,
    graph: {
      name: 'alone', node: [...g.node.filter((n) => n.opType === 'Constant' && n.output.some((o) => reads.includes(o))), node],
      initializer: g.initializer.filter((t) => reads.includes(t.name)),
      input: singleFeeds.map((f) => ({ name: f.name, type: { tensorType: { elemType: elemTypes[f.type] ?? 1, shape: { dim: f.dims.map((d) => ({ dimValue: String(d) })) } } } })),
      output: node.output.filter((o) => o).map(floatInfo),
    },
  };
  const aloneBytes = onnxJsonToOnnx(alone);
  const ortAlone = await runOrt(aloneBytes, [singleFeeds]);
  if (ortAlone.rejected) return { node, differsAlone: undefined };
  const gotAlone = (await runWebnx(aloneBytes, [singleFeeds], threads))[0];
  const diff = compareOutputs(gotAlone, ortAlone.results[0]);
  const closer = diff && webnxIsCloser(node, alone, singleFeeds, gotAlone, ortAlone.results[0]);
  return { node, value: first, differsAlone: diff, closer, alone, aloneFeeds: singleFeeds, aloneExpected: ortAlone.results[0] };
}

// Where a float64 reference of the op exists: whether webnx's result is within tolerance of it,
// or no farther from it than onnxruntime's: the difference is then onnxruntime's float32
// arithmetic or the op's conditioning, not a wrong answer of webnx's.
function webnxIsCloser(node, alone, feeds, got, want) {
  // A NaN where float64 has a number is as far as can be.
  const maxError = (a, b) => a.reduce((m, v, i) => {
    const e = Math.abs(Number(v) - b[i]);
    return Math.max(m, Number.isNaN(e) && !Number.isNaN(b[i]) ? Infinity : e || 0);
  }, 0);
  const reference = FLOAT64_REFERENCES[node.opType];
  if (!reference) return false;
  const values = new Map(feeds.map((f) => [f.name, f.data]));
  // Float constants only (an integer one, like DFT's axis, is the reference's attribute).
  for (const t of alone.graph.initializer) if (t.floatData) values.set(t.name, t.floatData);
  for (const n of alone.graph.node) {
    // A Constant's floats: a tensor's, or value_float(s) (generator.mjs writes both).
    const [a] = n.opType === 'Constant' ? n.attribute : [];
    const floats = a?.t?.floatData ?? a?.floats ?? (a?.name === 'value_float' ? [a.f] : null);
    if (floats) values.set(n.output[0], floats);
  }
  const attrs = Object.fromEntries((node.attribute ?? []).map((a) => [a.name,
    a.type === 'STRING' ? Buffer.from(a.s, 'base64').toString() : a.f ?? (a.ints ? a.ints.map(Number) : Number(a.i))]));
  const x = feeds.find((f) => f.name === node.input[0]);
  const exact = reference(node.input.map((i) => (i && values.has(i) ? Array.from(values.get(i), Number) : null)), x.dims, attrs);
  if (!exact) return false;  // a form the reference does not cover
  const out = node.output[0];
  // webnx within tolerance of float64, or no farther from it than onnxruntime (to rounding: the
  // inputs' last bits, grown by the op's conditioning, put both about equally far).
  if (firstMismatch('float32', got[out].data, exact) === null) return true;
  return maxError(got[out].data, exact) <= 1.5 * maxError(want[out].data, exact);
}

// { status, detail, bytes, batches }, status one of 'ok', 'rejected' (by onnxruntime: not
// counted), 'unstable' (rounding grown by an ill-conditioned op: see localize),
// 'float64-arbitrated' (the node alone: webnx at least as near float64 as onnxruntime), 'mismatch'.
export async function runCase(c, { threads = [1, 2], batches = batchOrder(c.seed) } = {}) {
  const bytes = onnxJsonToOnnx(c.doc);
  const feedSets = batches.map((n) => feedsFor(c, n, 0));
  const ort = await runOrt(bytes, feedSets);
  if (ort.rejected) return { status: 'rejected', detail: ort.rejected, bytes, batches };
  for (const t of threads) {
    let got;
    try {
      got = await runWebnx(bytes, feedSets, t);
    } catch (e) {
      return { status: 'mismatch', detail: `${t} thread(s): webnx failed: ${e.code ?? ''} ${e.message}`, bytes, batches, threads: t };
    }
    for (let r = 0; r < feedSets.length; r++) {
      const diff = compareOutputs(got[r], ort.results[r]);
      if (diff) {
        const detail = `${t} thread(s), batch ${batches[r]} (run ${r + 1} of ${batches.join(' -> ')}): ${diff}`;
        const where = !diff.includes('dims') && !diff.includes('missing') ? await localize(c, batches[r], t) : null;
        if (where && where.differsAlone === null && where.node) {
          const why = where.why ?? 'agrees alone on the same inputs';
          return { status: 'unstable', detail: `${detail}; ${where.node.opType} '${where.value}' ${why}`,
            bytes, batches };
        }
        if (where?.closer) {
          return { status: 'float64-arbitrated', bytes, batches,
            detail: `${detail}; ${where.node.opType} '${where.value}' alone: webnx is at least as near float64 as onnxruntime` };
        }
        return { status: 'mismatch', detail, bytes, batches, threads: t, expected: ort.results, where };
      }
    }
  }
  return { status: 'ok', bytes, batches };
}
