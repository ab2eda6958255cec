// Runs one generated case in webnx (the wasm build through the public API, one session per
// thread count, 2-4 input shapes in a random order) and in onnxruntime-node on the same
// inputs, and compares the outputs with the tolerances below.
import ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { Rng, numel } from './generator.mjs';

// Per dtype: |webnx - onnxruntime| <= abs * max(1, max |onnxruntime|) + rel * |onnxruntime|.
// float32 results differ in summation order (and SIMD vs scalar paths), never by more.
export const TOLERANCES = {
  float32: { abs: 1e-5, rel: 1e-4 },
  int64: { abs: 0, rel: 0 },
  int32: { abs: 0, rel: 0 },
  bool: { abs: 0, rel: 0 },
};

// The first element where `got` and `want` differ beyond the dtype's tolerance, or null.
export function firstMismatch(type, got, want) {
  const tol = TOLERANCES[type] ?? TOLERANCES.float32;
  let scale = 1;
  for (const v of want) scale = Math.max(scale, Math.abs(Number(v)));
  for (let i = 0; i < want.length; i++) {
    const a = Number(got[i]), b = Number(want[i]);
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (a === b) continue;
    if (!(Math.abs(a - b) <= tol.abs * scale + tol.rel * Math.abs(b))) return { index: i, got: a, want: b };
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
    const inputs = Object.fromEntries(feeds.map((f) => [f.name, new ort.Tensor('float32', f.data, f.dims)]));
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
      const out = await session.run(Object.fromEntries(feeds.map((f) => [f.name, new Tensor('float32', f.data, f.dims)])));
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

// { status: 'ok' | 'rejected' (by onnxruntime: not counted) | 'mismatch', detail, bytes, batches }.
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
        return { status: 'mismatch', detail: `${t} thread(s), batch ${batches[r]} (run ${r + 1} of ${batches.join(' -> ')}): ${diff}`,
          bytes, batches, threads: t, expected: ort.results };
      }
    }
  }
  return { status: 'ok', bytes, batches };
}
