// webnx's cold load from each kind of source: a model's bytes already in memory (what
// bench/run.mjs times), its path, and its URL on a local server (scripts/serve.mjs, which sends
// a Content-Length). Each load runs in a fresh process, the kinds in turn; prints the median
// load (create() until ready, the runtime's start included) and the process's resident memory
// growth over it.
//
// usage: node bench/load-sources.mjs [--models build/models] [--only resnet18,...] [--reps 5]
//        node bench/load-sources.mjs --child bytes|path|url <model file or URL>
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { option, quantile, ZOO } from './common.mjs';
import { createServer, listen } from '../scripts/serve.mjs';

const KINDS = ['bytes', 'path', 'url'];
const argv = process.argv.slice(2);

async function child(kind, source) {
  const { InferenceSession } = await import('../js/index.mjs');
  const bytes = kind === 'bytes' ? new Uint8Array(await readFile(source)) : null;
  const rss = process.memoryUsage().rss;
  const t = performance.now();
  const session = await InferenceSession.create(bytes ?? source, { numThreads: 1 });
  const load = performance.now() - t;
  const grown = (process.memoryUsage().rss - rss) / 2 ** 20;
  await session.release();
  console.log(JSON.stringify({ load, rssMB: grown }));
  process.exit(0);
}

const median = (xs) => quantile(xs, 0.5);

async function main() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const models = path.resolve(option(argv, 'models', path.join(here, '../build/models')));
  const only = option(argv, 'only', null)?.split(',') ?? ZOO;
  const reps = Number(option(argv, 'reps', '5'));
  const run = promisify(execFile);
  const { server, url } = await listen(createServer({ '/models/': models }));
  try {
    console.log(`median of ${reps} fresh processes per source, kinds in turn; RSS: growth over create()`);
    console.log('model                ' + KINDS.map((k) => `${k.padStart(9)} ms    MB`).join(''));
    for (const model of only) {
      const file = path.join(models, `${model}.onnx`);
      const sources = { bytes: file, path: file, url: `${url}/models/${model}.onnx` };
      const results = Object.fromEntries(KINDS.map((k) => [k, []]));
      for (let r = 0; r < reps; r++) {
        for (const kind of r % 2 ? [...KINDS].reverse() : KINDS) {
          const { stdout } = await run('node', [fileURLToPath(import.meta.url), '--child', kind, sources[kind]]);
          results[kind].push(JSON.parse(stdout.trim().split('\n').at(-1)));
        }
      }
      const cells = KINDS.map((k) => `${median(results[k].map((x) => x.load)).toFixed(1).padStart(12)}` +
        `${median(results[k].map((x) => x.rssMB)).toFixed(1).padStart(6)}`);
      console.log(model.padEnd(20) + cells.join(''));
    }
  } finally {
    server.close();
  }
}

if (argv[0] === '--child') await child(argv[1], argv[2]);
else await main();
