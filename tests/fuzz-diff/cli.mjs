// make fuzz-diff N=… [SEED=…]: generates N graphs from SEED on, runs each in webnx (1 and 2
// threads, 2-4 input shapes) and onnxruntime-node, prints graphs per second, op coverage and
// mismatches; each mismatch is minimized and written to tests/regressions/ (with --write). A
// worker process runs the cases; when native code kills it, the seed is reported and the run
// goes on from the next.
//   node tests/fuzz-diff/cli.mjs --graphs 10000 --seed 1 [--write] [--quiet]
// (node --experimental-wasm-relaxed-simd tests/fuzz-diff/cli.mjs …: against the relaxed builds.)
import { generateCase } from './generator.mjs';
import { OPS } from './ops.mjs';
import { feedsFor, runCase } from './differential.mjs';
import { minimize } from './minimize.mjs';
import { writeRegression } from './regressions.mjs';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onnxJsonToOnnx } from '../../js/convert.mjs';

function args(argv) {
  const get = (flag, fallback) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : fallback;
  };
  return { graphs: Number(get('--graphs', 1000)), seed: Number(get('--seed', 1)), write: argv.includes('--write'),
    quiet: argv.includes('--quiet'), child: argv.includes('--child'), results: get('--results') };
}

// op -> { graphs, attrs: name -> Set of values }
export function addCoverage(coverage, c) {
  const seen = new Set();
  for (const { op, attrs } of [...c.ops, ...(c.patterns ?? [])]) {
    const entry = coverage.get(op) ?? { graphs: 0, nodes: 0, attrs: new Map() };
    coverage.set(op, entry);
    entry.nodes++;
    if (!seen.has(op)) entry.graphs++;
    seen.add(op);
    for (const [name, value] of Object.entries(attrs)) {
      if (!entry.attrs.has(name)) entry.attrs.set(name, new Set());
      entry.attrs.get(name).add(JSON.stringify(value));
    }
  }
}

// Every op drawn or built inside another's construction (a quantized island's DequantizeLinear),
// each once; and the com.webnx ops webnx's fusion passes make (never drawn: their rows count the
// graphs with a pattern that fuses into them).
export const FUSED_OPS = ['com.webnx:QDQConv', 'com.webnx:QDQMatMul', 'com.webnx:DynamicQuantizeConv'];
export function coverageTable(coverage) {
  const rows = [...new Set([...OPS.map((o) => o.name), ...coverage.keys(), ...FUSED_OPS])].map((op) => {
    const e = coverage.get(op) ?? { graphs: 0, nodes: 0, attrs: new Map() };
    const attrs = [...e.attrs].map(([k, v]) => `${k}(${v.size})`).join(' ');
    return `| ${op} | ${e.graphs} | ${e.nodes} | ${attrs} |`;
  });
  return ['| op | graphs | nodes | attributes (distinct values) |', '|---|---|---|---|', ...rows].join('\n');
}

export async function minimizeAndWrite(c, result) {
  // Still failing, and at the same op: a cut that fails elsewhere (a bypassed Tanh letting an Asin
  // make NaN, say) is another case.
  const op = result.where?.node?.opType;
  const stillFails = async (doc, batches) => {
    const r = await runCase({ ...c, doc }, { threads: [result.threads], batches });
    return r.status === 'mismatch' && (!op || r.where?.node?.opType === op);
  };
  const small = await minimize(c.doc, result.batches, c.shapes, stillFails);
  const bytes = onnxJsonToOnnx(small.doc);
  const final = await runCase({ ...c, doc: small.doc }, { threads: [result.threads], batches: small.batches });
  const runs = small.batches.map((n, r) => ({
    inputs: Object.fromEntries(feedsFor(c, n, 0).map((f) => [f.name, f])),
    expected: final.expected?.[r] ?? {},
  }));
  return writeRegression(`fuzz-${c.seed}`, bytes, {
    note: `fuzz-diff seed ${c.seed}, opset ${c.opset}: ${final.detail ?? result.detail}`,
    source: 'onnxruntime', threads: [result.threads], runs,
  });
}

// The worker: cases from `seed` until `graphs` have run, one JSON line each in `results`
// ({ seed, status, ops } — written before the case as { seed, status: 'started' }, so that a
// process that dies in native code leaves the seed that killed it).
async function work({ graphs, seed, write, quiet, results }) {
  let run = 0;
  for (let s = seed; run < graphs; s++) {
    const c = generateCase(s);
    if (!c) continue;
    appendFileSync(results, `${JSON.stringify({ seed: s, status: 'started' })}\n`);
    const result = await runCase(c);
    appendFileSync(results, `${JSON.stringify({ seed: s, status: result.status, ops: c.ops, patterns: c.patterns, detail: result.detail })}\n`);
    if (result.status === 'rejected') continue;
    run++;
    if (result.status !== 'ok' && !quiet) console.log(`${result.status} seed ${s} (opset ${c.opset}): ${result.detail}`);
    if (result.status === 'mismatch' && write) console.log(`  minimized into ${await minimizeAndWrite(c, result)}`);
  }
}

// The supervisor: runs the worker in a child process, restarts it after the seed that killed it
// (recorded as 'crashed': onnxruntime-node dies on some graphs, e.g. InstanceNormalization of an
// empty tensor), and reports from the results file.
async function supervise(options) {
  const results = path.join(os.tmpdir(), `fuzz-diff-${process.pid}.jsonl`);
  writeFileSync(results, '');
  const start = performance.now();
  const records = () => readFileSync(results, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const crashed = [];
  for (;;) {
    const done = records().filter((r) => r.status !== 'started' && r.status !== 'rejected').length;
    if (done >= options.graphs) break;
    const last = records().at(-1);
    const from = last ? last.seed + 1 : options.seed;
    // The worker runs with this process's Node flags (--experimental-wasm-relaxed-simd: the relaxed builds).
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', '--results', results,
      '--seed', String(from), '--graphs', String(options.graphs - done), ...(options.write ? ['--write'] : []),
      ...(options.quiet ? ['--quiet'] : [])], { stdio: 'inherit' });
    const after = records().at(-1);
    if (child.status === 0) break;
    if (after?.status !== 'started') throw new Error(`the worker failed (status ${child.status}, signal ${child.signal})`);
    crashed.push(after.seed);
    console.log(`CRASHED seed ${after.seed}: the process died (${child.signal ?? `exit ${child.status}`}) running it`);
    appendFileSync(results, `${JSON.stringify({ seed: after.seed, status: 'crashed' })}\n`);
  }
  report(records(), options, (performance.now() - start) / 1000);
  rmSync(results);
}

function report(records, { seed }, seconds) {
  const final = records.filter((r) => r.status !== 'started');
  const count = (status) => final.filter((r) => r.status === status).length;
  const coverage = new Map();
  for (const r of final) if (r.ops && r.status !== 'rejected') addCoverage(coverage, r);
  const run = final.length - count('rejected');
  console.log(`\n${run} graphs (seeds ${seed}..), ${count('rejected')} rejected by onnxruntime and regenerated, ` +
    `${(run / seconds).toFixed(1)} graphs/s: ${count('mismatch')} mismatches, ${count('crashed')} crashed the process, ` +
    `${count('unstable')} unstable, ${count('float64-arbitrated')} decided by float64 for webnx\n`);
  for (const r of final.filter((x) => x.status === 'mismatch' || x.status === 'crashed')) {
    console.log(`  ${r.status} seed ${r.seed}${r.detail ? `: ${r.detail}` : ''}`);
  }
  console.log(coverageTable(coverage));
  process.exitCode = count('mismatch') + count('crashed') > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = args(process.argv.slice(2));
  if (options.child) await work(options); else await supervise(options);
}
