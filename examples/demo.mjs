// The main job: classify the held-out handwritten digits with the trained MobileNet-style demo
// model through the wasm build, then time torchvision's MobileNetV2 at 224x224 and check it
// against onnxruntime-node on the same input.
//
// usage: node examples/demo.mjs [--models build/models] [--runs 20]
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor } from '../js/index.mjs';
import { argmax, relativeMaxError, seededFloats } from '../tests/node/helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const modelsDir = option('models', path.join(here, '../build/models'));
const runs = Number(option('runs', 20));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(2)} ms`;

async function digits() {
  const dir = path.join(here, 'digits');
  const heldout = JSON.parse(await readFile(path.join(dir, 'heldout.json'), 'utf8'));
  const t0 = performance.now();
  const session = await InferenceSession.create(path.join(dir, 'digits_mobilenet.onnx'), { numThreads: 1 });
  const loadMs = performance.now() - t0;
  const input = session.inputNames[0];
  const output = session.outputNames[0];
  let correct = 0;
  const times = [];
  for (let i = 0; i < heldout.images.length; i++) {
    const x = new Tensor('float32', Float32Array.from(heldout.images[i], (v) => v / 16), [1, 1, 8, 8]);
    const start = performance.now();
    const out = await session.run({ [input]: x });
    times.push(performance.now() - start);
    if (argmax(out[output].data) === heldout.labels[i]) correct++;
  }
  await session.release();
  const accuracy = correct / heldout.images.length;
  console.log('digits (MobileNet-style, trained on scikit-learn\'s handwritten digits, wasm)');
  console.log(`  held-out accuracy  ${(100 * accuracy).toFixed(2)}% of ${heldout.images.length} ` +
    `(PyTorch: ${(100 * heldout.pytorch_accuracy).toFixed(2)}%)`);
  console.log(`  latency            median ${ms(median(times))} per image (load ${ms(loadMs)})`);
}

async function mobilenet() {
  const file = path.join(modelsDir, 'mobilenet_v2.onnx');
  if (!existsSync(file)) {
    console.log(`mobilenet_v2: ${file} not found (make models generates it)`);
    return;
  }
  const dims = [1, 3, 224, 224];
  const data = seededFloats(3 * 224 * 224, 1235);
  const t0 = performance.now();
  const session = await InferenceSession.create(file, { numThreads: 1 });
  const loadMs = performance.now() - t0;
  const feeds = { [session.inputNames[0]]: new Tensor('float32', data, dims) };
  const first = performance.now();
  let out = (await session.run(feeds))[session.outputNames[0]];
  const firstMs = performance.now() - first;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    out = (await session.run(feeds))[session.outputNames[0]];
    times.push(performance.now() - start);
  }
  await session.release();
  console.log('mobilenet_v2 (torchvision, 224x224, wasm, 1 thread)');
  console.log(`  latency            median ${ms(median(times))} over ${runs} runs ` +
    `(first run ${ms(firstMs)}, load ${ms(loadMs)})`);
  try {
    const ort = await import('onnxruntime-node');
    const ref = await ort.InferenceSession.create(file, { intraOpNumThreads: 1 });
    const want = (await ref.run({ [ref.inputNames[0]]: new ort.Tensor('float32', data, dims) }))[ref.outputNames[0]];
    const err = relativeMaxError(out.data, want.data);
    const same = argmax(out.data) === argmax(want.data);
    console.log(`  vs onnxruntime-node  max |diff| / max |ort| = ${err.toExponential(2)}, ` +
      `top-1 ${same ? 'agrees' : 'DIFFERS'}`);
  } catch (e) {
    console.log(`  onnxruntime-node not available (${e.message}); run npm install`);
  }
}

await digits();
await mobilenet();
