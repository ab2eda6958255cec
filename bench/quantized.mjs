// Quantized and half-precision variants of MobileNetV2 and ResNet18 (issue 25's table): the
// float32 file, its float16-weight copy and its float16-throughout copy, fed float16
// (scripts/gen_fp16_models.py), and webnx's own
// quantizer's dynamic and QDQ (per-channel) files (`make quant-models`). webnx and
// onnxruntime-web (wasm, 1 thread) run each file in one process, alternating, the same seeded
// image; before timing, each runtime's output is checked against onnxruntime-node's on the same
// file (float32 and float16 weights: 1e-4 relative; float16 throughout: 1e-2 relative, the
// runtimes rounding to float16 in different places; quantized files: the same top-1 class and
// 2e-2 relative, as QDQ outputs move by one quantum where rounding lands apart). Each file runs
// in a fresh process: a model loaded after another in one process ran up to 1.35x slower (the
// float16-weight MobileNetV2 after the float32 one). Prints medians, webnx / onnxruntime-web,
// and webnx / webnx-float32 on the same model.
//
// --runtimes webnx times webnx alone (a peer's run can slow the run after it: docs/performance.md,
// "float16").
//
// usage: node bench/quantized.mjs [--models build/models] [--runs 20] [--warmup 3]
//                                 [--runtimes webnx,ort-web]
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argmax, halfToNumber, relativeMaxError, toHalfBits } from '../tests/node/helpers.mjs';
import { INPUT_DIMS, alternatingMedians, benchInput, option, sessionMaker } from './common.mjs';

const argv = process.argv.slice(2);
const modelsDir = option(argv, 'models', 'build/models');
const runs = Number(option(argv, 'runs', 20));
const warmup = Number(option(argv, 'warmup', 3));

const VARIANTS = {
  float32: (m) => `${m}.onnx`,
  fp16w: (m) => `fp16/${m}_fp16w.onnx`,
  fp16: (m) => `fp16/${m}_fp16.onnx`,
  dynamic: (m) => `quant/${m}_dynamic.onnx`,
  qdq: (m) => `quant/${m}_qdq.onnx`,
};
const runtimes = option(argv, 'runtimes', 'webnx,ort-web').split(',');
const makers = Object.fromEntries(await Promise.all(['webnx', 'ort-web', 'ort-node'].map(
  async (rt) => [rt, await sessionMaker(rt, 1)])));
const input = benchInput();
const halfInput = toHalfBits(input);

async function checked(file, variant) {
  const bytes = new Uint8Array(await readFile(file));
  const sessions = {};
  for (const rt of [...runtimes, 'ort-node']) sessions[rt] = await makers[rt].create(bytes);
  const half = variant === 'fp16';
  const feeds = (rt) => ({
    [sessions[rt].inputNames[0]]: half ? new makers[rt].Tensor('float16', halfInput, INPUT_DIMS)
      : new makers[rt].Tensor('float32', input, INPUT_DIMS),
  });
  const first = (out) => {
    const { data } = out[Object.keys(out)[0]];
    return half ? Float64Array.from(data, halfToNumber) : data;
  };
  const want = first(await sessions['ort-node'].run(feeds('ort-node')));
  const quantized = variant === 'dynamic' || variant === 'qdq';
  for (const rt of runtimes) {
    const got = first(await sessions[rt].run(feeds(rt)));
    const err = relativeMaxError(got, want);
    const tolerance = quantized ? 2e-2 : half ? 1e-2 : 1e-4;
    if (!(err <= tolerance) || (quantized && argmax(got) !== argmax(want))) {
      throw new Error(`${file}: ${rt} differs from onnxruntime-node (relative ${err})`);
    }
  }
  await sessions['ort-node'].release?.();
  return { sessions, feeds };
}

// --one FILE VARIANT: time one file in this process and print "webnx_ms ort_web_ms".
const one = argv.indexOf('--one');
if (one >= 0) {
  const [file, variant] = argv.slice(one + 1, one + 3);
  const { sessions, feeds } = await checked(file, variant);
  const med = await alternatingMedians(sessions, runtimes, feeds, warmup, runs);
  console.log(runtimes.map((rt) => med[rt]).join(' '));
  process.exit(0);
}

console.log('model         variant   webnx ms  ort-web ms  webnx/ort-web  webnx/webnx-fp32');
for (const model of ['mobilenet_v2', 'resnet18']) {
  let float32 = NaN;
  for (const [variant, fileOf] of Object.entries(VARIANTS)) {
    const file = path.join(modelsDir, fileOf(model));
    if (!existsSync(file)) {
      console.log(`${model.padEnd(13)} ${variant.padEnd(8)}  missing ${file} (make quant-models)`);
      continue;
    }
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--runs', String(runs),
      '--warmup', String(warmup), '--runtimes', runtimes.join(','), '--one', file, variant],
    { encoding: 'utf8' });
    const [webnx, ortWeb = NaN] = out.trim().split('\n').pop().split(' ').map(Number);
    if (variant === 'float32') float32 = webnx;
    console.log(`${model.padEnd(13)} ${variant.padEnd(8)} ${webnx.toFixed(2).padStart(9)}  ` +
      `${ortWeb.toFixed(2).padStart(10)}  ${(webnx / ortWeb).toFixed(3).padStart(13)}  ` +
      `${(webnx / float32).toFixed(3).padStart(16)}`);
  }
}
