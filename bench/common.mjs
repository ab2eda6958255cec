// What the benchmark scripts share: the zoo, their option parsing, the input, and how each
// runtime makes a session.
import { seededFloats } from '../tests/node/helpers.mjs';

export const ZOO = ['mobilenet_v2', 'mobilenet_v3_small', 'mobilenet_v3_large', 'resnet18',
  'squeezenet1_1', 'efficientnet_b0', 'shufflenet_v2_x1_0'];

// The value after `--name` in argv, or `fallback`.
export function option(argv, name, fallback) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
}

// The q-quantile of xs, interpolating between neighbours (q = 0.5: the median).
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
}

// Every runtime sees the same seeded image.
export const INPUT_DIMS = [1, 3, 224, 224];
export const benchInput = () => seededFloats(3 * 224 * 224, 1235);

// { create(bytes) -> session, Tensor } of 'webnx', 'ort-web' (wasm backend) or 'ort-node',
// each on `threads` threads; only that runtime's package is imported.
export async function sessionMaker(name, threads) {
  if (name === 'webnx') {
    const { InferenceSession, Tensor } = await import('../js/index.mjs');
    return { create: (bytes) => InferenceSession.create(bytes, { numThreads: threads }), Tensor };
  }
  if (name === 'ort-web') {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.simd = true;
    return {
      create: (bytes) => ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] }),
      Tensor: ort.Tensor,
    };
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

// Median run time of each runtime's session, runs alternating between the runtimes: `warmup`
// untimed rounds, then `runs` timed ones; feedsOf(rt) gives that runtime's feeds.
export async function alternatingMedians(sessions, runtimes, feedsOf, warmup, runs) {
  const times = Object.fromEntries(runtimes.map((rt) => [rt, []]));
  for (let i = 0; i < warmup + runs; ++i) {
    for (const rt of runtimes) {
      const f = feedsOf(rt);
      const t = performance.now();
      await sessions[rt].run(f);
      if (i >= warmup) times[rt].push(performance.now() - t);
    }
  }
  return Object.fromEntries(runtimes.map((rt) => [rt, quantile(times[rt], 0.5)]));
}
