// webnx/ort used as a library written for onnxruntime-web uses it: checked by `make test-types`.
import { InferenceSession, Tensor, env } from 'webnx/ort';

env.wasm.numThreads = 1;
env.wasm.simd = true;
env.wasm.wasmPaths = '/assets/';
env.logLevel = 'error';
const version: string = env.versions.web;

async function classify(model: ArrayBuffer): Promise<number> {
  const session = await InferenceSession.create(model, 0, model.byteLength, {
    executionProviders: ['webgpu', 'wasm'],
    graphOptimizationLevel: 'all',
  });
  const input = new Tensor('float32', new Float32Array(3 * 224 * 224), [1, 3, 224, 224]);
  const mask = new Tensor([true, false]);
  const out = await session.run({ [session.inputNames[0]]: input }, [session.outputNames[0]]);
  const logits = (await out[session.outputNames[0]].getData()) as Float32Array;
  const shape: ReadonlyArray<number | string> = session.inputMetadata[0].shape;
  input.reshape([3, 224, 224]).dispose();
  mask.dispose();
  await session.release();
  return logits[0] + shape.length + version.length + (input.location === 'cpu' ? 1 : 0);
}
void classify;
