// One runtime's cold start, in a process of its own: bytes -> ready (the runtime's wasm
// instantiated on the way, as on a page's first load) and the first run, then `runs` more runs
// for that process's median. Prints one JSON line. run.mjs starts it once per runtime and
// repetition, in turn, so no runtime starts in a process another one has already warmed or
// loaded (their module compiles and background jobs would land on each other's timings).
//
// usage: node bench/cold-start.mjs webnx|ort-web|ort-node model.onnx [threads] [runs]
import { readFile } from 'node:fs/promises';
import { benchInput, INPUT_DIMS, sessionMaker } from './common.mjs';

const [name, file, threadsArg = '1', runsArg = '11'] = process.argv.slice(2);
const runs = Number(runsArg);

const rt = await sessionMaker(name, Number(threadsArg));
const bytes = new Uint8Array(await readFile(file));
const data = benchInput();
let t = performance.now();
const session = await rt.create(bytes);
const load = performance.now() - t;
const feeds = () => ({ [session.inputNames[0]]: new rt.Tensor('float32', data, INPUT_DIMS) });
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
