// `webnx check | run | bench | quantize` (the last in cli-quantize.mjs): each takes the arguments
// after the command name, prints to stdout and resolves to an exit code (0 ok, 1 the model
// failed, 2 bad usage).
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { InferenceSession, supportedOps } from './session.mjs';
import { readModelBytes } from './fetch-model.mjs';
import { inspectModel, findUnsupported } from './inspect.mjs';
import { makeFeeds } from './cli-inputs.mjs';
import { quantize, USAGE as QUANTIZE_USAGE } from './cli-quantize.mjs';

const kb = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);
const dimsText = (dims) => (dims ? `[${dims.map((d) => d ?? '?').join(', ')}]` : '[unknown rank]');
const num = (x) => (x === 0 || (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e5) ? x.toFixed(4) : x.toExponential(3));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};

export const USAGE = {
  check: 'webnx check <model.onnx|.json> [--json]\n' +
    '  Lists inputs, outputs, opsets and ops, and every unsupported op/opset/dtype with the reason.',
  run: 'webnx run <model> [--input NAME=FILE]... [--dim NAME=SIZE]... [--seed N] [--profile] [--json]\n' +
    '  Runs once on random input (or .npy/.json/raw .bin files) and prints the outputs and timing.',
  bench: 'webnx bench <model> [--runs 20] [--warmup 3] [--dim NAME=SIZE]... [--worker]\n' +
    '  Times repeated runs on random input: median, p90, min.',
  quantize: QUANTIZE_USAGE,
};

function parse(command, argv, options) {
  const { values, positionals } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' }, ...options }, allowPositionals: true });
  if (values.help || positionals.length !== 1) {
    console.log(`usage: ${USAGE[command]}`);
    return null;
  }
  return { model: positionals[0], ...values };
}

async function loadBytes(model) {
  return readModelBytes(model);
}

export async function check(argv) {
  const args = parse('check', argv, { json: { type: 'boolean' } });
  if (!args) return 2;
  const bytes = await loadBytes(args.model);
  const info = inspectModel(bytes);
  const problems = findUnsupported(info, await supportedOps());
  let error = null;
  let session = null;
  try {
    session = await InferenceSession.create(bytes);
  } catch (e) {
    error = { code: e.code ?? 'Internal', message: e.message };
  }
  await session?.release();
  const supported = !error && problems.length === 0;
  if (args.json) {
    console.log(JSON.stringify({ model: args.model, bytes: bytes.length, ...info, problems, error, supported }, null, 2));
    return supported ? 0 : 1;
  }
  const unsupportedOps = new Map(problems.filter((p) => p.kind === 'operator').map((p) => [p.name, p.reason]));
  console.log(`${basename(args.model)}: ${info.format}${info.irVersion ? `, IR ${info.irVersion}` : ''}` +
    `${info.producer ? `, from ${info.producer}` : ''}, ${kb(bytes.length)}, ${info.nodeCount} nodes, ` +
    `${info.parameters.toLocaleString('en-US')} parameters`);
  if (info.opsets.length) console.log(`opsets: ${info.opsets.map((o) => `${o.domain || 'ai.onnx'} ${o.version}`).join(', ')}`);
  console.log('inputs:');
  for (const v of info.inputs) console.log(`  ${v.name}  ${v.type} ${dimsText(v.dims)}`);
  console.log('outputs:');
  for (const v of info.outputs) console.log(`  ${v.name}  ${v.type} ${dimsText(v.dims)}`);
  console.log(`ops (${info.ops.length} types):`);
  const width = Math.max(...info.ops.map((o) => o.op.length + (o.domain ? o.domain.length + 1 : 0)), 4);
  for (const { op, domain, count } of info.ops) {
    const name = domain && domain !== 'ai.onnx' && domain !== 'webnx-graph' ? `${domain}:${op}` : op;
    const reason = unsupportedOps.get(name);
    console.log(`  ${reason ? '✗' : '✓'} ${name.padEnd(width)} ${String(count).padStart(5)}${reason ? `  ${reason}` : ''}`);
  }
  for (const p of problems.filter((x) => x.kind !== 'operator')) console.log(`✗ dtype: ${p.name}: ${p.reason}`);
  if (error) console.log(`✗ webnx cannot load it: ${error.message}`);
  console.log(supported ? '✓ webnx supports this model' : '✗ not supported (see above)');
  return supported ? 0 : 1;
}

function summarise(name, t) {
  const data = t.data;
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of data) {
    const x = Number(v);
    min = Math.min(min, x);
    max = Math.max(max, x);
    sum += x;
  }
  const first = Array.from(data.subarray(0, 8), (v) => (typeof v === 'bigint' ? String(v) : num(v))).join(', ');
  const lines = [`  ${name}  ${t.type} ${dimsText(t.dims)}  min ${num(min)}  max ${num(max)}  mean ${num(sum / data.length)}`,
    `    first: ${first}${data.length > 8 ? ', …' : ''}`];
  const classes = t.dims.at(-1);
  if (t.type === 'float32' && classes > 1 && t.size === classes) {
    const top = [...data.keys()].sort((a, b) => data[b] - data[a]).slice(0, 5);
    lines.push(`    top-5: ${top.map((i) => `${i} (${num(data[i])})`).join(', ')}`);
  }
  return lines.join('\n');
}

export async function run(argv) {
  const args = parse('run', argv, {
    input: { type: 'string', multiple: true }, dim: { type: 'string', multiple: true },
    seed: { type: 'string', default: '1' }, profile: { type: 'boolean' }, json: { type: 'boolean' },
  });
  if (!args) return 2;
  let t = performance.now();
  const session = await InferenceSession.create(args.model);
  const loadMs = performance.now() - t;
  try {
    const { feeds, described } = await makeFeeds(session, { inputs: args.input, dims: args.dim, seed: Number(args.seed) });
    t = performance.now();
    const outputs = await session.run(feeds, { profile: Boolean(args.profile) });
    const runMs = performance.now() - t;
    if (args.json) {
      const out = {};
      for (const [n, v] of Object.entries(outputs)) out[n] = { type: v.type, dims: v.dims, data: Array.from(v.data, (x) => (typeof x === 'bigint' ? String(x) : x)) };
      console.log(JSON.stringify({ loadMs, runMs, inputs: described, outputs: out, profile: session.lastProfile }));
      return 0;
    }
    console.log(`${basename(args.model)}: loaded in ${loadMs.toFixed(1)} ms`);
    for (const d of described) console.log(`input  ${d.name}  ${d.type} ${dimsText(d.dims)}  from ${d.from}`);
    console.log('outputs:');
    for (const [n, v] of Object.entries(outputs)) console.log(summarise(n, v));
    console.log(`run: ${runMs.toFixed(2)} ms (the first run of a shape also plans the graph)`);
    if (args.profile) {
      const byOp = new Map();
      for (const p of session.lastProfile) byOp.set(p.op, (byOp.get(p.op) ?? 0) + p.ms);
      console.log('time per op type:');
      for (const [op, ms] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`  ${op.padEnd(20)} ${ms.toFixed(3)} ms`);
    }
    return 0;
  } finally {
    await session.release();
  }
}

export async function bench(argv) {
  const args = parse('bench', argv, {
    runs: { type: 'string', default: '20' }, warmup: { type: 'string', default: '3' },
    dim: { type: 'string', multiple: true }, worker: { type: 'boolean' }, input: { type: 'string', multiple: true },
  });
  if (!args) return 2;
  const runs = Math.max(1, Number(args.runs));
  let t = performance.now();
  const session = await InferenceSession.create(args.model, { worker: Boolean(args.worker) });
  const loadMs = performance.now() - t;
  try {
    const { feeds, described } = await makeFeeds(session, { inputs: args.input, dims: args.dim });
    t = performance.now();
    await session.run(feeds);
    const firstMs = performance.now() - t;
    for (let i = 0; i < Number(args.warmup); i++) await session.run(feeds);
    const times = [];
    for (let i = 0; i < runs; i++) {
      t = performance.now();
      await session.run(feeds);
      times.push(performance.now() - t);
    }
    console.log(`${basename(args.model)}  ${described.map((d) => `${d.name} ${dimsText(d.dims)}`).join(', ')}` +
      `${args.worker ? '  (in a worker)' : ''}`);
    console.log(`  median ${quantile(times, 0.5).toFixed(2)} ms  p90 ${quantile(times, 0.9).toFixed(2)} ms  ` +
      `min ${Math.min(...times).toFixed(2)} ms  over ${runs} runs`);
    console.log(`  load ${loadMs.toFixed(1)} ms  first run ${firstMs.toFixed(1)} ms`);
    return 0;
  } finally {
    await session.release();
  }
}

export const COMMANDS = { check, run, bench, quantize };
