// Models beyond the image zoo (scripts/gen_field_models.py): LSTM and GRU layers, a streaming
// VAD (If + LSTM), a scripted Loop, a ConvTranspose decoder and a Conv3d video net. webnx vs
// onnxruntime-web (wasm, 1 thread) vs onnxruntime-node (1 intra-op thread), one process, runs
// alternating, the same seeded feeds; every runtime's outputs are checked against
// onnxruntime-node's before timing. Prints medians and the ratio webnx / onnxruntime-web.
//
// usage: node bench/field.mjs [--models build/models] [--only lstm2,...] [--runs 30] [--warmup 5]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { relativeMaxError } from '../tests/node/helpers.mjs';
import { alternatingMedians, option, sessionMaker } from './common.mjs';
import { FIELD_MODELS, fieldFeeds } from './field-models.mjs';

const argv = process.argv.slice(2);
const modelsDir = option(argv, 'models', 'build/models');
const runs = Number(option(argv, 'runs', 30));
const warmup = Number(option(argv, 'warmup', 5));

const only = option(argv, 'only', '') ? option(argv, 'only', '').split(',') : Object.keys(FIELD_MODELS);

const runtimes = ['webnx', 'ort-web', 'ort-node'];
const makers = {};
for (const name of runtimes) makers[name] = await sessionMaker(name, 1);

console.log('model        webnx ms  ort-web ms  ort-node ms  webnx/ort-web  what');
for (const name of only) {
  const { what } = FIELD_MODELS[name];
  const bytes = await readFile(path.join(modelsDir, 'field', `${name}.onnx`));
  const sessions = {};
  for (const rt of runtimes) sessions[rt] = await makers[rt].create(new Uint8Array(bytes));
  const feedsOf = (rt) => fieldFeeds(name, makers[rt].Tensor);
  const reference = await sessions['ort-node'].run(feedsOf('ort-node'));
  for (const rt of runtimes) {
    const out = await sessions[rt].run(feedsOf(rt));
    for (const o of Object.keys(reference)) {
      const err = relativeMaxError(out[o].data, reference[o].data);
      if (!(err <= 1e-4)) throw new Error(`${name}: ${rt} output '${o}' differs from onnxruntime-node by ${err}`);
    }
  }
  const med = await alternatingMedians(sessions, runtimes, feedsOf, warmup, runs);
  console.log(`${name.padEnd(12)} ${med.webnx.toFixed(2).padStart(8)}  ${med['ort-web'].toFixed(2).padStart(10)}  ` +
    `${med['ort-node'].toFixed(2).padStart(11)}  ${(med.webnx / med['ort-web']).toFixed(3).padStart(13)}  ${what}`);
  for (const rt of runtimes) await sessions[rt].release?.();
}
