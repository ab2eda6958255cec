// make fuzz-diff N=… [SEED=…]: generates N graphs from SEED on, runs each in webnx (1 and 2
// threads, 2-4 input shapes) and onnxruntime-node, prints graphs per second, op coverage and
// mismatches; each mismatch is minimized and written to tests/regressions/ (with --write).
//   node tests/fuzz-diff/cli.mjs --graphs 10000 --seed 1 [--write] [--quiet]
import { generateCase } from './generator.mjs';
import { OPS } from './ops.mjs';
import { feedsFor, runCase } from './differential.mjs';
import { minimize } from './minimize.mjs';
import { writeRegression } from './regressions.mjs';
import { fileURLToPath } from 'node:url';
import { onnxJsonToOnnx } from '../../js/convert.mjs';

function args(argv) {
  const get = (flag, fallback) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : fallback;
  };
  return { graphs: Number(get('--graphs', 1000)), seed: Number(get('--seed', 1)), write: argv.includes('--write'),
    quiet: argv.includes('--quiet') };
}

// op -> { graphs, attrs: name -> Set of values }
export function addCoverage(coverage, c) {
  const seen = new Set();
  for (const { op, attrs } of c.ops) {
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

export function coverageTable(coverage) {
  const rows = OPS.map((o) => o.name).map((op) => {
    const e = coverage.get(op) ?? { graphs: 0, nodes: 0, attrs: new Map() };
    const attrs = [...e.attrs].map(([k, v]) => `${k}(${v.size})`).join(' ');
    return `| ${op} | ${e.graphs} | ${e.nodes} | ${attrs} |`;
  });
  return ['| op | graphs | nodes | attributes (distinct values) |', '|---|---|---|---|', ...rows].join('\n');
}

export async function minimizeAndWrite(c, result) {
  const stillFails = async (doc, batches) => (await runCase({ ...c, doc }, { threads: [result.threads], batches })).status === 'mismatch';
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

async function main() {
  const { graphs, seed, write, quiet } = args(process.argv.slice(2));
  const coverage = new Map();
  const mismatches = [];
  const excused = [];  // 'unstable' and 'onnxruntime-imprecise' (differential.mjs)
  let run = 0, rejected = 0;
  const start = performance.now();
  for (let s = seed; run < graphs; s++) {
    const c = generateCase(s);
    if (!c) continue;
    const result = await runCase(c);
    if (result.status === 'rejected') { rejected++; continue; }
    run++;
    addCoverage(coverage, c);
    if (result.status === 'unstable' || result.status === 'onnxruntime-imprecise') {
      excused.push({ seed: s, status: result.status });
      if (!quiet) console.log(`${result.status} seed ${s}: ${result.detail}`);
    }
    if (result.status === 'mismatch') {
      mismatches.push({ seed: s, detail: result.detail });
      console.log(`MISMATCH seed ${s} (opset ${c.opset}): ${result.detail}`);
      if (write) console.log(`  minimized into ${await minimizeAndWrite(c, result)}`);
    }
    if (!quiet && run % 500 === 0) console.log(`${run} graphs, ${(run / ((performance.now() - start) / 1000)).toFixed(1)}/s`);
  }
  const seconds = (performance.now() - start) / 1000;
  console.log(`\n${run} graphs (seeds ${seed}..), ${rejected} rejected by onnxruntime and regenerated, ` +
    `${(run / seconds).toFixed(1)} graphs/s, ${mismatches.length} mismatches; ` +
    `${excused.filter((e) => e.status === 'unstable').length} unstable, ` +
    `${excused.filter((e) => e.status === 'onnxruntime-imprecise').length} where onnxruntime is the imprecise one\n`);
  console.log(coverageTable(coverage));
  process.exitCode = mismatches.length > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
