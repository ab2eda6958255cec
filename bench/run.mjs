// Benchmark: webnx vs onnxruntime-web (wasm, 1 thread) vs onnxruntime-node (1 intra-op thread)
// on the zoo models, same seeded input, outputs checked equal before timing, runs alternating
// between runtimes. Prints median/p90 latency, load and first-run times, webnx's GFLOP/s and
// the ratio webnx / onnxruntime-web. In this process a runtime starts with the first model, so
// later models' load and first run find its code warm; cold starts (runtime + model load and
// first run, each in a fresh process: bench/cold-start.mjs) come first, --cold times per runtime
// and model (0: none).
//
// usage: node bench/run.mjs [--models build/models] [--only mobilenet_v2,...] [--runs 30]
//                           [--warmup 5] [--cold 5] [--layers] [--threads 1]
//                           [--runtimes webnx,ort-web,ort-node] [--save results.json]
// Several threads per runtime: use bench/threads.mjs, which runs each runtime in a process of
// its own (idle thread pools that spin steal the cores) and prints the speed-ups.
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relativeMaxError } from '../tests/node/helpers.mjs';
import { benchInput, INPUT_DIMS, option, quantile, sessionMaker, ZOO } from './common.mjs';
import { engineHasRelaxedSimd } from '../js/simd-level.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => option(argv, name, fallback);
const modelsDir = opt('models', path.join(here, '../build/models'));
const runs = Number(opt('runs', 30));
const warmup = Number(opt('warmup', 5));
// 5: a cold first run over its median varies by 2x from process to process on this VM.
const coldReps = Number(opt('cold', 5));
const showLayers = argv.includes('--layers');
// Threads per runtime. Multi-threaded runtimes must not share a process (idle thread pools
// that spin steal the cores), so with --threads > 1 pick one runtime per process (--runtimes).
const threads = Number(opt('threads', 1));
const chosen = opt('runtimes', 'webnx,ort-web,ort-node').split(',');
const only = opt('only', '') ? opt('only', '').split(',') : ZOO;

// The timed runtimes, and onnxruntime-node on one thread for the reference outputs.
const timedNames = ['webnx', 'ort-web', 'ort-node'].filter((name) => chosen.includes(name));
const makers = {};
for (const name of timedNames) makers[name] = await sessionMaker(name, threads);
const referenceMaker = await sessionMaker('ort-node', 1);

// One runtime behind a common face: load(bytes) -> run(data) -> Float32Array; webnx's also
// profiles a run.
function timed(name, maker) {
  let s;
  const feeds = (data) => ({ [s.inputNames[0]]: new maker.Tensor('float32', data, INPUT_DIMS) });
  return {
    name,
    async load(bytes) { s = await maker.create(bytes); },
    async run(data) {
      const out = await s.run(feeds(data));
      return out[s.outputNames[0]].data;
    },
    profile: name === 'webnx' ? async (data) => {
      await s.run(feeds(data), { profile: true });
      return s.lastProfile;
    } : undefined,
    async release() { await s.release(); },
  };
}

const flops = existsSync(path.join(modelsDir, 'flops.json'))
  ? JSON.parse(await readFile(path.join(modelsDir, 'flops.json'), 'utf8')) : {};
// The build webnx loads here: the relaxed-SIMD one where this engine runs relaxed SIMD (Node 20:
// started with --experimental-wasm-relaxed-simd).
const wasmFile = engineHasRelaxedSimd() ? 'webnx-relaxed.wasm' : 'webnx.wasm';
const wasmBytes = statSync(path.join(here, '../dist', wasmFile)).size;
console.log(`${wasmFile} ${(wasmBytes / 1024).toFixed(1)} KB; ${runs} timed runs after ${warmup} warm-ups, ` +
  `runtimes alternating, ${threads} thread${threads > 1 ? 's' : ''} each\n`);

const coldRows = coldReps > 0 ? coldStarts() : [];

const rows = [];
for (const model of only) {
  const file = path.join(modelsDir, `${model}.onnx`);
  if (!existsSync(file)) {
    console.log(`${model}: missing ${file} (make models)`);
    continue;
  }
  const bytes = new Uint8Array(await readFile(file));
  const data = benchInput();
  const runtimes = timedNames.map((name) => timed(name, makers[name]));
  const stats = {};
  let reference = null;
  for (const rt of runtimes) {
    const copy = bytes.slice(); // the runtime may keep or transfer it; copying is not its cost
    let t = performance.now();
    await rt.load(copy);
    const load = performance.now() - t;
    t = performance.now();
    const out = await rt.run(data);
    const first = performance.now() - t;
    stats[rt.name] = { load, first, times: [] };
    stats[rt.name].out = out;
  }
  // Outputs are checked against onnxruntime-node, run here if it is not being timed.
  if (stats['ort-node']) {
    reference = stats['ort-node'].out;
  } else {
    const ref = timed('ort-node', referenceMaker);
    await ref.load(bytes.slice());
    reference = await ref.run(data);
    await ref.release();
  }
  for (const rt of runtimes) {
    const err = relativeMaxError(stats[rt.name].out, reference);
    if (!(err <= 1e-4)) throw new Error(`${model}: ${rt.name} differs from onnxruntime-node by ${err}`);
    stats[rt.name].err = err;
  }
  for (let i = 0; i < warmup; i++) for (const rt of runtimes) await rt.run(data);
  for (let i = 0; i < runs; i++) {
    for (const rt of runtimes) {
      const t = performance.now();
      await rt.run(data);
      stats[rt.name].times.push(performance.now() - t);
    }
  }
  if (showLayers && model === only[0]) {
    const profile = await runtimes[0].profile?.(data);
    if (profile) printLayers(model, profile);
  }
  for (const rt of runtimes) await rt.release();
  const row = { model };
  for (const rt of runtimes) {
    const s = stats[rt.name];
    row[rt.name] = { median: quantile(s.times, 0.5), p90: quantile(s.times, 0.9), load: s.load, first: s.first, err: s.err };
  }
  row.gflops = row.webnx && flops[`${model}.onnx`] ? flops[`${model}.onnx`] / 1e9 / (row.webnx.median / 1e3) : NaN;
  rows.push(row);
  printRow(row);
}

// Every runtime's cold start per model, median of coldReps fresh processes started in turn
// (before this process makes any session: an idle onnxruntime-web pool would spin meanwhile).
function coldStarts() {
  const out = [];
  for (const model of only) {
    const file = path.join(modelsDir, `${model}.onnx`);
    if (!existsSync(file)) continue;
    const samples = Object.fromEntries(chosen.map((name) => [name, []]));
    for (let rep = 0; rep < coldReps; rep++) {
      for (const name of chosen) {
        const stdout = execFileSync(process.execPath,
          [path.join(here, 'cold-start.mjs'), name, file, String(threads)], { encoding: 'utf8' });
        samples[name].push(JSON.parse(stdout.trim().split('\n').pop()));
      }
    }
    const row = { model };
    for (const name of chosen) {
      const s = samples[name];
      row[name] = {
        load: quantile(s.map((x) => x.load), 0.5),
        first: quantile(s.map((x) => x.first), 0.5),
        firstRatio: quantile(s.map((x) => x.first / x.median), 0.5),
      };
    }
    out.push(row);
  }
  return out;
}

function printRow(r) {
  const f = (x) => x.toFixed(2).padStart(8);
  console.log(`${r.model} (${threads} thread${threads > 1 ? 's' : ''})`);
  for (const name of chosen) {
    const s = r[name];
    if (!s) continue;
    console.log(`  ${name.padEnd(9)} median ${f(s.median)} ms  p90 ${f(s.p90)} ms  load ${f(s.load)} ms  ` +
      `first ${f(s.first)} ms  err ${s.err.toExponential(1)}`);
  }
  if (r.webnx) {
    let line = `  webnx ${r.gflops.toFixed(1)} GFLOP/s; first/median ${(r.webnx.first / r.webnx.median).toFixed(2)}`;
    if (r['ort-web']) {
      line += `; webnx/ort-web median ${(r.webnx.median / r['ort-web'].median).toFixed(3)}, ` +
        `load ${(r.webnx.load / r['ort-web'].load).toFixed(3)}`;
    }
    console.log(line);
  }
}

function printLayers(model, profile) {
  const byOp = new Map();
  let total = 0;
  for (const p of profile) {
    byOp.set(p.op, (byOp.get(p.op) || 0) + p.ms);
    total += p.ms;
  }
  console.log(`${model}: time per op type (one profiled run, ${total.toFixed(2)} ms)`);
  for (const [op, ms] of [...byOp].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${op.padEnd(20)} ${ms.toFixed(3).padStart(8)} ms  ${(100 * ms / total).toFixed(1).padStart(5)}%`);
  }
  console.log(`${model}: slowest nodes`);
  for (const p of [...profile].sort((a, b) => b.ms - a.ms).slice(0, 15)) {
    console.log(`  ${p.node.padEnd(40)} ${p.op.padEnd(18)} ${p.ms.toFixed(3).padStart(8)} ms  ${p.shape}`);
  }
}

if (coldRows.length) {
  console.log(`\ncold start (median of ${coldReps} fresh processes per runtime, started in turn): ` +
    'load = bytes -> ready including the runtime\'s own start; first run; first / that process\'s median');
  const names = chosen.filter((n) => coldRows[0][n]);
  console.log('model               ' + names.map((n) => `${n.padStart(9)} load  first  f/med`).join('') +
    (names.includes('webnx') && names.includes('ort-web') ? '  load webnx/ort-web' : ''));
  for (const r of coldRows) {
    let line = r.model.padEnd(20);
    for (const n of names) {
      line += `${r[n].load.toFixed(1).padStart(14)} ${r[n].first.toFixed(1).padStart(6)} ${r[n].firstRatio.toFixed(2).padStart(6)}`;
    }
    if (r.webnx && r['ort-web']) line += (r.webnx.load / r['ort-web'].load).toFixed(3).padStart(21);
    console.log(line);
  }
}

if (rows.length) {
  const cell = (r, name) => (r[name] ? r[name].median.toFixed(2) : '-');
  const ratio = (r) => (r.webnx && r['ort-web'] ? (r.webnx.median / r['ort-web'].median).toFixed(3) : '-');
  console.log(`\nsummary (median ms, ${threads} thread${threads > 1 ? 's' : ''})`);
  console.log('model                 webnx  ort-web  ort-node  webnx/ort-web  GFLOP/s');
  for (const r of rows) {
    console.log(`${r.model.padEnd(20)} ${cell(r, 'webnx').padStart(6)} ${cell(r, 'ort-web').padStart(8)} ` +
      `${cell(r, 'ort-node').padStart(9)} ${ratio(r).padStart(14)} ${(r.gflops || NaN).toFixed(1).padStart(8)}`);
  }
}

const save = opt('save', '');
if (save) {
  mkdirSync(path.dirname(path.resolve(save)), { recursive: true });
  writeFileSync(save, JSON.stringify({ threads, runs, warmup, rows, coldRows }, null, 1));
}
