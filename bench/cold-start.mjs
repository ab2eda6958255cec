// One runtime's cold start, in a process of its own: bytes -> ready (the runtime's wasm
// instantiated on the way, as on a page's first load) and the first run, then `runs` more runs
// for that process's median. Prints one JSON line. run.mjs starts it once per runtime and
// repetition, in turn, so no runtime starts in a process another one has already warmed or
// loaded (their module compiles and background jobs would land on each other's timings).
//
// usage: node bench/cold-start.mjs webnx|ort-web|ort-node model.onnx [threads] [runs]
import { readFile } from 'node:fs/promises';
import { seededFloats } from '../tests/node/helpers.mjs';

const [name, file, threadsArg = '1', runsArg = '11'] = process.argv.slice(2);
const threads = Number(threadsArg);
const runs = Number(runsArg);

async function importRuntime() {
  if (name === 'webnx') {
    const { InferenceSession, Tensor } = await import('../js/index.mjs');
    return { create: (bytes) => InferenceSession.create(bytes, { numThreads: threads }), Tensor };
  }
  if (name === 'ort-web') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.simd = true;
    return { create: (bytes) => ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] }), Tensor: ort.Tensor };
  }
  if (name === 'ort-node') {
    const ort = await import('onnxruntime-node');
    return {
      create: (bytes) => ort.InferenceSession.create(bytes, { intraOpNumThreads: threads, interOpNumThreads: 1 }),
      Tensor: ort.Tensor,
    };
  }
  throw new Error(`unknown runtime '${name}'`);
}

const rt = await importRuntime();
const bytes = new Uint8Array(await readFile(file));
const dims = [1, 3, 224, 224];
const data = seededFloats(3 * 224 * 224, 1235);
let t = performance.now();
const session = await rt.create(bytes);
const load = performance.now() - t;
const feeds = () => ({ [session.inputNames[0]]: new rt.Tensor('float32', data, dims) });
t = performance.now();
await session.run(feeds());
const first = performance.now() - t;
const times = [];
for (let i = 0; i < runs; i++) {
  t = performance.now();
  await session.run(feeds());
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const median = times.length ? times[(times.length - 1) >> 1] : NaN;
await session.release();
console.log(JSON.stringify({ load, first, median }));
// onnxruntime-web's idle worker pool (threads > 1) would keep the process alive.
process.exit(0);
