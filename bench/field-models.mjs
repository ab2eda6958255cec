// The models beyond the zoo (scripts/gen_field_models.py, in build/models/field) that
// bench/field.mjs times in Node and web/bench.html in the browser: what each is, and its feeds,
// the same seeded values everywhere.
import { seededFloats } from '../js/seeded-floats.mjs';

const count = (dims) => dims.reduce((a, b) => a * b, 1);
const f32 = (dims, seed) => ['float32', dims, seededFloats(count(dims), seed)];
const zeros = (dims) => ['float32', dims, new Float32Array(count(dims))];

export const FIELD_MODELS = {
  lstm2: { what: '2-layer LSTM 64->128, 100 steps', feeds: { x: f32([100, 1, 64], 1), h0: zeros([2, 1, 128]), c0: zeros([2, 1, 128]) } },
  gru_bi: { what: 'bidirectional GRU 40->48, 100 steps', feeds: { x: f32([1, 100, 40], 2) } },
  vad: { what: 'VAD chunk: If(sr) + Conv1d + LSTM, 512 samples', feeds: {
    x: f32([1, 512], 3), h: zeros([1, 1, 32]), c: zeros([1, 1, 32]), sr: ['int64', [], BigInt64Array.from([16000n])] } },
  recurrence: { what: 'Loop of tanh(h W + x[t]), 100 steps', feeds: { x: f32([100, 16], 4) } },
  decoder: { what: '3 stride-2 ConvTranspose, 16x16 -> 128x128', feeds: { z: f32([1, 64, 16, 16], 5) } },
  video: { what: '2 Conv3d on 3x8x32x32', feeds: { clip: f32([1, 3, 8, 32, 32], 6) } },
};

// A model's feeds as tensors of a runtime's Tensor class (webnx's or onnxruntime's), over the
// same arrays each time.
export function fieldFeeds(name, Tensor) {
  const { feeds } = FIELD_MODELS[name];
  return Object.fromEntries(Object.entries(feeds).map(([k, [type, dims, values]]) => [k, new Tensor(type, values, dims)]));
}
