// GFLOP/s of MobileNetV2's pure 1x1 convs as webnx runs them in a page (the projections and the
// head conv: the expansions run fused with their depthwise conv, in one profile entry), from the
// per-node times of profiled runs (median of each node over `runs`) and each conv's multiply-adds
// (its weights' shape and its output's). In the page: import this, call oneByOneGflops(env.simd).
import { InferenceSession, Tensor, env } from '../../js/index.mjs';
import { decodeModel } from '../../js/onnx-proto.mjs';

const PURE_1X1 = /conv\.2\/Conv$|features\.18\.0\/Conv$/;

export async function oneByOneGflops(modelUrl, simd, runs = 40) {
  env.simd = simd;
  const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
  const graph = decodeModel(bytes).graph;
  const weights = new Map(graph.initializer.map((t) => [t.name, t.dims.map(Number)]));
  const session = await InferenceSession.create(bytes, { numThreads: 1 });
  const x = new Tensor('float32', new Float32Array(3 * 224 * 224).map((_, i) => Math.sin(i)), [1, 3, 224, 224]);
  for (let i = 0; i < 5; i++) await session.run({ [session.inputNames[0]]: x });
  const times = new Map(), shapes = new Map();
  for (let i = 0; i < runs; i++) {
    await session.run({ [session.inputNames[0]]: x }, { profile: true });
    for (const p of session.lastProfile) {
      if (!times.has(p.node)) times.set(p.node, []);
      times.get(p.node).push(p.ms);
      shapes.set(p.node, JSON.parse(p.shape));
    }
  }
  await session.release();
  let flops = 0, ms = 0, convs = 0;
  for (const node of graph.node) {
    if (node.opType !== 'Conv' || !PURE_1X1.test(node.name) || !times.has(node.name)) continue;
    const [, cin, kh, kw] = weights.get(node.input[1]);
    const [, cout, h, w] = shapes.get(node.name);
    const sorted = times.get(node.name).sort((a, b) => a - b);
    flops += 2 * cout * h * w * cin * kh * kw;
    ms += sorted[sorted.length >> 1];
    convs++;
  }
  return { backend: env.backend, convs, ms, gflops: flops / ms / 1e6 };
}
