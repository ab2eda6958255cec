// NHWC exports (scripts/gen_nhwc_models.py: a Transpose before and after every conv and pool)
// against the NCHW export of the same model, in one process, runs alternating, one thread:
// prints webnx's median for each layout, the ratio NHWC / NCHW, and the load times. webnx folds
// the transposes at load (core/passes/fold_transposes.cc), so the ratio should be about 1.
//
// usage: node bench/nhwc.mjs [--models build/models] [--runs 30] [--warmup 5]
import path from 'node:path';
import { InferenceSession, Tensor } from '../js/index.mjs';
import { benchInput, option, quantile } from './common.mjs';

const argv = process.argv.slice(2);
const models = option(argv, 'models', 'build/models');
const runs = Number(option(argv, 'runs', 30));
const warmup = Number(option(argv, 'warmup', 5));

async function open(file, dims, data) {
  const t = performance.now();
  const session = await InferenceSession.create(file, { numThreads: 1 });
  const load = performance.now() - t;
  const feeds = { [session.inputNames[0]]: new Tensor('float32', data, dims) };
  return { session, feeds, load, times: [] };
}

for (const name of ['mobilenet_v2', 'resnet18']) {
  const data = benchInput();
  const nchw = await open(path.join(models, `${name}.onnx`), [1, 3, 224, 224], data);
  // The same values in NHWC order (only timing matters here; outputs are checked in
  // tests/node/nhwc.test.mjs).
  const nhwc = await open(path.join(models, 'nhwc', `${name}_nhwc.onnx`), [1, 224, 224, 3], data);
  for (let i = 0; i < warmup + runs; i++) {
    for (const s of [nchw, nhwc]) {
      const t = performance.now();
      await s.session.run(s.feeds);
      if (i >= warmup) s.times.push(performance.now() - t);
    }
  }
  const [a, b] = [quantile(nchw.times, 0.5), quantile(nhwc.times, 0.5)];
  console.log(`${name.padEnd(14)} NCHW ${a.toFixed(2)} ms  NHWC ${b.toFixed(2)} ms  NHWC/NCHW ${(b / a).toFixed(3)}` +
    `  load ${nchw.load.toFixed(0)} / ${nhwc.load.toFixed(0)} ms`);
  await nchw.session.release();
  await nhwc.session.release();
}
