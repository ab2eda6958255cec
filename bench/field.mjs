// Models beyond the image zoo (scripts/gen_field_models.py): LSTM and GRU layers, a streaming
// VAD (If + LSTM), a scripted Loop, a ConvTranspose decoder and a Conv3d video net. webnx vs
// onnxruntime-web (wasm, 1 thread) vs onnxruntime-node (1 intra-op thread), one process, runs
// alternating, the same seeded feeds; every runtime's outputs are checked against
// onnxruntime-node's before timing. Prints medians and the ratio webnx / onnxruntime-web.
//
// usage: node bench/field.mjs [--models build/models] [--only lstm2,...] [--runs 30] [--warmup 5]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { relativeMaxError, seededFloats } from '../tests/node/helpers.mjs';
import { option, quantile, sessionMaker } from './common.mjs';

const argv = process.argv.slice(2);
const modelsDir = option(argv, 'models', 'build/models');
const runs = Number(option(argv, 'runs', 30));
const warmup = Number(option(argv, 'warmup', 5));

const f32 = (dims, seed) => ['float32', dims, seededFloats(dims.reduce((a, b) => a * b, 1), seed)];
const zeros = (dims) => ['float32', dims, new Float32Array(dims.reduce((a, b) => a * b, 1))];
const MODELS = {
  lstm2: { what: '2-layer LSTM 64->128, 100 steps', feeds: { x: f32([100, 1, 64], 1), h0: zeros([2, 1, 128]), c0: zeros([2, 1, 128]) } },
  gru_bi: { what: 'bidirectional GRU 40->48, 100 steps', feeds: { x: f32([1, 100, 40], 2) } },
  vad: { what: 'VAD chunk: If(sr) + Conv1d + LSTM, 512 samples', feeds: {
    x: f32([1, 512], 3), h: zeros([1, 1, 32]), c: zeros([1, 1, 32]), sr: ['int64', [], BigInt64Array.from([16000n])] } },
  recurrence: { what: 'Loop of tanh(h W + x[t]), 100 steps', feeds: { x: f32([100, 16], 4) } },
  decoder: { what: '3 stride-2 ConvTranspose, 16x16 -> 128x128', feeds: { z: f32([1, 64, 16, 16], 5) } },
  video: { what: '2 Conv3d on 3x8x32x32', feeds: { clip: f32([1, 3, 8, 32, 32], 6) } },
};
const only = option(argv, 'only', '') ? option(argv, 'only', '').split(',') : Object.keys(MODELS);

const runtimes = ['webnx', 'ort-web', 'ort-node'];
const makers = {};
for (const name of runtimes) makers[name] = await sessionMaker(name, 1);

console.log('model        webnx ms  ort-web ms  ort-node ms  webnx/ort-web  what');
for (const name of only) {
  const { what, feeds } = MODELS[name];
  const bytes = await readFile(path.join(modelsDir, 'field', `${name}.onnx`));
  const sessions = {};
  for (const rt of runtimes) sessions[rt] = await makers[rt].create(new Uint8Array(bytes));
  const feedsOf = (rt) => Object.fromEntries(Object.entries(feeds).map(([k, [t, d, v]]) => [k, new makers[rt].Tensor(t, v, d)]));
  const reference = await sessions['ort-node'].run(feedsOf('ort-node'));
  for (const rt of runtimes) {
    const out = await sessions[rt].run(feedsOf(rt));
    for (const o of Object.keys(reference)) {
      const err = relativeMaxError(out[o].data, reference[o].data);
      if (!(err <= 1e-4)) throw new Error(`${name}: ${rt} output '${o}' differs from onnxruntime-node by ${err}`);
    }
  }
  const times = Object.fromEntries(runtimes.map((rt) => [rt, []]));
  for (let i = 0; i < warmup + runs; ++i) {
    for (const rt of runtimes) {
      const f = feedsOf(rt);
      const t = performance.now();
      await sessions[rt].run(f);
      if (i >= warmup) times[rt].push(performance.now() - t);
    }
  }
  const med = Object.fromEntries(runtimes.map((rt) => [rt, quantile(times[rt], 0.5)]));
  console.log(`${name.padEnd(12)} ${med.webnx.toFixed(2).padStart(8)}  ${med['ort-web'].toFixed(2).padStart(10)}  ` +
    `${med['ort-node'].toFixed(2).padStart(11)}  ${(med.webnx / med['ort-web']).toFixed(3).padStart(13)}  ${what}`);
  for (const rt of runtimes) await sessions[rt].release?.();
}
