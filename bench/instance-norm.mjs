// InstanceNormalization [1, 64, 56, 56] and [4, 32, 28, 28]: median of 200 runs, single thread,
// of the webnx.wasm given (compare two builds by alternating runs of this script):
//   taskset -c 1 node bench/instance-norm.mjs dist/webnx.wasm main
import fs from 'node:fs';
import { InferenceSession, Tensor, env } from '../js/index.mjs';
import { onnxJsonToOnnx } from '../js/convert.mjs';
env.wasmBinary = fs.readFileSync(process.argv[2]);
for (const dims of [[1, 64, 56, 56], [4, 32, 28, 28]]) {
  const c = dims[1];
  const doc = { irVersion: '8', opsetImport: [{ domain: '', version: '13' }], graph: { name: 'g',
    node: [{ opType: 'InstanceNormalization', input: ['x', 's', 'b'], output: ['y'], name: 'n' }],
    initializer: [{ name: 's', dims: [c], dataType: 1, floatData: Array(c).fill(1.5) }, { name: 'b', dims: [c], dataType: 1, floatData: Array(c).fill(0.25) }],
    input: [{ name: 'x', type: { tensorType: { elemType: 1, shape: { dim: dims.map((d) => ({ dimValue: String(d) })) } } } }],
    output: [{ name: 'y', type: { tensorType: { elemType: 1 } } }] } };
  const s = await InferenceSession.create(onnxJsonToOnnx(doc), { numThreads: 1 });
  const x = new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b) }, (_, i) => Math.sin(i) + 3), dims);
  for (let i = 0; i < 20; i++) await s.run({ x });
  const t = [];
  for (let i = 0; i < 200; i++) { const t0 = performance.now(); await s.run({ x }); t.push(performance.now() - t0); }
  t.sort((a, b) => a - b);
  console.log(`${process.argv[3]} [${dims}] median ${t[100].toFixed(3)} ms`);
}
