// Multi-threaded benchmark: for each model, webnx and onnxruntime-web on --threads threads, each
// in a process of its own (bench/run.mjs --runtimes one), one after the other so that both see
// the machine in the same state; then the table of both, with webnx's speed-up over its
// 1-thread median when --one names the results of a 1-thread run (run.mjs --save).
//
// usage: node bench/threads.mjs [--threads 2] [--one build/bench/1t.json] [run.mjs options]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { option, ZOO } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => option(argv, name, fallback);
const threads = Number(opt('threads', 2));
const one = opt('one', '');
const only = opt('only', '') ? opt('only', '').split(',') : ZOO;
const modelsDir = opt('models', path.join(here, '../build/models'));
// Everything else goes to run.mjs as given.
const passed = [];
for (let i = 0; i < argv.length; i++) {
  if (['--threads', '--one', '--only', '--runtimes', '--save'].includes(argv[i])) i++;
  else passed.push(argv[i]);
}

const runtimes = ['webnx', 'ort-web'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'webnx-bench-'));
const results = {};
try {
  for (const model of only) {
    if (!existsSync(path.join(modelsDir, `${model}.onnx`))) continue;
    for (const rt of runtimes) {
      const file = path.join(tmp, `${model}-${rt}.json`);
      execFileSync(process.execPath, [path.join(here, 'run.mjs'), ...passed, '--only', model,
        '--threads', String(threads), '--runtimes', rt, '--save', file], { stdio: 'inherit' });
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      const row = saved.rows[0];
      const cold = saved.coldRows[0];
      results[model] = results[model] || {};
      results[model][rt] = row ? { median: row[rt].median, gflops: row.gflops, cold: cold?.[rt] } : null;
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const single = one && existsSync(one) ? JSON.parse(readFileSync(one, 'utf8')) : null;
const oneThread = (model, rt) => single?.rows.find((r) => r.model === model)?.[rt]?.median;
const f = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
console.log(`\n${threads} threads (each runtime in its own process), median ms` +
  (single ? '; 1-thread medians from ' + one : ''));
const t = `${threads}t`;
console.log(`model               webnx-1t webnx-${t} speed-up  ort-web-1t ort-web-${t} speed-up  ` +
  `webnx/ort-web (${t})`);
for (const [model, r] of Object.entries(results)) {
  const w1 = oneThread(model, 'webnx'), o1 = oneThread(model, 'ort-web');
  const w2 = r.webnx?.median, o2 = r['ort-web']?.median;
  console.log(`${model.padEnd(19)} ${f(w1).padStart(8)} ${f(w2).padStart(8)} ${f(w1 / w2).padStart(8)}x ` +
    `${f(o1).padStart(10)} ${f(o2).padStart(10)} ${f(o1 / o2).padStart(8)}x ${f(w2 / o2, 3).padStart(19)}`);
}
