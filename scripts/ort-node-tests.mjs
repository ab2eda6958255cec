// Runs the ONNX backend node tests (../shared/onnx-node-tests) through onnxruntime-node and
// writes the names of those it passes, one per line, marking the ones whose tensors are all of
// webnx's types (float32, int32, int64, bool) with " *". That list is the yardstick of
// issue 24: webnx's conformance is counted against the tests onnxruntime passes
// (tests/conformance/ort-passes.txt; scripts/conformance-report.mjs compares the two).
// A test passes when every output matches output_N.pb within rtol 1e-3, atol 1e-7 (ONNX's
// runner's defaults; NaN equals NaN). Tests feeding sequences or optionals count as not run.
//
// usage: node scripts/ort-node-tests.mjs [--tests ../shared/onnx-node-tests] [--out FILE]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';

ort.env.logLevel = 'error';
import { decodeModel, decodeTensor } from '../js/onnx-proto.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const root = opt('tests', '../shared/onnx-node-tests');
const out = opt('out', 'tests/conformance/ort-passes.txt');

const WEBNX_TYPES = new Set([1, 6, 7, 9]);
const ORT_TYPES = { 1: ['float32', Float32Array, 4], 2: ['uint8', Uint8Array, 1], 3: ['int8', Int8Array, 1],
  4: ['uint16', Uint16Array, 2], 5: ['int16', Int16Array, 2], 6: ['int32', Int32Array, 4],
  7: ['int64', BigInt64Array, 8], 9: ['bool', Uint8Array, 1], 10: ['float16', Uint16Array, 2],
  11: ['float64', Float64Array, 8], 12: ['uint32', Uint32Array, 4], 13: ['uint64', BigUint64Array, 8] };

// A TensorProto as [ort dtype, typed array, dims], or null for a type this script cannot feed.
function toArray(t) {
  const kind = ORT_TYPES[t.dataType];
  if (!kind) return null;
  const [dtype, Typed, size] = kind;
  const dims = (t.dims ?? []).map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  if (!(n >= 0 && n <= 1 << 26)) return null;
  let data;
  if (t.rawData) {
    data = new Typed(t.rawData.buffer.slice(t.rawData.byteOffset, t.rawData.byteOffset + n * size));
  } else {
    const field = { 1: 'floatData', 11: 'doubleData', 7: 'int64Data', 13: 'uint64Data', 12: 'uint64Data' }[t.dataType] ?? 'int32Data';
    const values = t[field] ?? [];
    data = Typed === BigInt64Array || Typed === BigUint64Array ? Typed.from(values.map((v) => BigInt(v))) : Typed.from(values);
  }
  return [dtype, data, dims];
}

function close(got, want, dtype) {
  if (got.length !== want.length) return false;
  for (let i = 0; i < want.length; ++i) {
    if (dtype === 'int64' || dtype === 'uint64') {
      if (got[i] !== want[i]) return false;
      continue;
    }
    const a = Number(got[i]);
    const b = Number(want[i]);
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (!(Math.abs(a - b) <= 1e-7 + 1e-3 * Math.abs(b))) return false;
  }
  return true;
}

async function runTest(dir) {
  const files = readdirSync(path.join(dir, 'test_data_set_0'));
  const read = (f) => decodeTensor(new Uint8Array(readFileSync(path.join(dir, 'test_data_set_0', f))));
  const ins = files.filter((f) => /^input_\d+\.pb$/.test(f)).sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)));
  const outs = files.filter((f) => /^output_\d+\.pb$/.test(f)).sort((a, b) => parseInt(a.slice(7)) - parseInt(b.slice(7)));
  const model = decodeModel(new Uint8Array(readFileSync(path.join(dir, 'model.onnx'))));
  const graphInputs = (model.graph.input ?? []).filter((i) => !(model.graph.initializer ?? []).some((t) => t.name === i.name));
  // Types the JS API cannot hold (int4, float8...) crash it: such a test is not run.
  for (const v of [...graphInputs, ...(model.graph.output ?? [])]) {
    const elem = v.type?.tensorType?.elemType;
    if (!ORT_TYPES[elem]) return { pass: false };
  }
  const types = new Set();
  const feeds = {};
  for (let k = 0; k < ins.length; ++k) {
    const t = read(ins[k]);
    const a = t.dataType ? toArray(t) : null;
    if (!a) return { pass: false };
    types.add(t.dataType);
    feeds[graphInputs[k].name] = new ort.Tensor(a[0], a[1], a[2]);
  }
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), { intraOpNumThreads: 1, logSeverityLevel: 3 });
  let results;
  try {
    results = await session.run(feeds);
  } finally {
    await session.release();
  }
  for (let k = 0; k < outs.length; ++k) {
    const t = read(outs[k]);
    const a = t.dataType ? toArray(t) : null;
    const got = results[session.outputNames[k]];
    if (!a || !got) return { pass: false };
    types.add(t.dataType);
    if (got.dims.join() !== a[2].join() || !close(got.data, a[1], a[0])) return { pass: false };
  }
  return { pass: true, webnxTypes: [...types].every((t) => WEBNX_TYPES.has(t)) };
}

const lines = [];
let all = 0;
let subset = 0;
for (const name of readdirSync(root).filter((n) => n.startsWith('test_')).sort()) {
  const dir = path.join(root, name);
  if (!existsSync(path.join(dir, 'model.onnx'))) continue;
  let result = { pass: false };
  try {
    result = await runTest(dir);
  } catch {
    // fails to load or run: not a pass
  }
  if (!result.pass) continue;
  ++all;
  if (result.webnxTypes) ++subset;
  lines.push(result.webnxTypes ? `${name} *` : name);
}
writeFileSync(out, `# ONNX node tests onnxruntime-node ${ort.env.versions?.common ?? ''} passes (scripts/ort-node-tests.mjs);\n` +
  '# " *": every tensor fed and compared is float32, int32, int64 or bool\n' + `${lines.join('\n')}\n`);
console.log(`onnxruntime-node passes ${all} tests; ${subset} of them use only float32/int32/int64/bool tensors`);
