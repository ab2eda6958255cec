// The package's types (js/index.d.ts, js/convert.d.ts, js/quantize.d.ts) as an app uses them,
// checked by `tsc` in `make test` (test-types): every line here must type-check, and every line
// marked @ts-expect-error must be an error, so a declaration that drifts from the API fails the suite.
import { InferenceSession, Tensor, WebnxError, env, inspectModel, supportedOps } from 'webnx';
import type { NodeTiming, SessionStats, ValueMetadata } from 'webnx';
import { onnxJsonToOnnx, onnxToOnnxJson } from 'webnx/convert';
import { quantize, quantizeModel } from 'webnx/quantize';
import type { CalibrationSample, QuantizeReport } from 'webnx/quantize';

export async function classify(modelUrl: string, pixels: Float32Array): Promise<number> {
  env.wasmPaths = '/assets/';
  env.simd = 'auto';
  const session = await InferenceSession.create(modelUrl, {
    numThreads: 2,
    worker: true,
    maxCachedPlans: 4,
    onProgress: ({ loaded, total }) => console.log(loaded, total ?? '?'),
    limits: { maxNodes: 10_000 },
  });
  const worker: InferenceSession = session;  // worker sessions are InferenceSessions
  const inputs: ValueMetadata[] = worker.inputMetadata;
  const x = new Tensor('float32', pixels, [1, 3, 224, 224]);
  const out = await session.run({ [inputs[0].name]: x }, { profile: true });
  const logits = out[session.outputNames[0]];
  const profile: NodeTiming[] | null = session.lastProfile;
  const stats: SessionStats = session.stats;
  console.log(profile?.length, stats.plansBuilt, env.backend);
  const warnings: string[] = session.warnings;
  console.log(warnings.length);
  await session.release();
  return logits.data.length;
}

export async function errors(bytes: Uint8Array): Promise<string> {
  try {
    await InferenceSession.create(bytes);
    return 'ok';
  } catch (e) {
    return e instanceof WebnxError ? e.code : 'unknown';
  }
}

export async function misc(bytes: Uint8Array): Promise<void> {
  const ops: string[] = await supportedOps();
  const summary = inspectModel(bytes);
  const json = onnxToOnnxJson(bytes);
  const back: Uint8Array = onnxJsonToOnnx(json);
  const ints = new Tensor('int64', new BigInt64Array([1n, 2n]), [2]);
  console.log(ops.length, summary.inputs.length, back.byteLength, ints.dims);
  const doubles = new Tensor('float64', new Float64Array(1), [1]);
  const halves = new Tensor('float16', new Uint16Array([0x3c00]), [1]);
  const u64 = new Tensor('uint64', new BigUint64Array([1n]), [1]);
  console.log(doubles.type, halves.size, u64.data);
  // @ts-expect-error: not a tensor type webnx has
  new Tensor('bfloat16', new Uint16Array(1), [1]);
  // @ts-expect-error: run takes Tensors, not typed arrays
  await (await InferenceSession.create(bytes)).run({ x: new Float32Array(1) });
  // @ts-expect-error: env.backend is read-only
  env.backend = 'wasm';
  // @ts-expect-error: not a build webnx has
  env.simd = 'fast';
}

export async function quantized(bytes: Uint8Array, samples: CalibrationSample[]): Promise<Uint8Array> {
  const dynamic: Uint8Array = await quantizeModel(bytes, { mode: 'dynamic' });
  const { model, report } = await quantize(bytes, { mode: 'qdq', samples, numThreads: 1, onWarning: console.warn });
  const r: QuantizeReport = report;
  console.log(dynamic.length, r.quantized.map((q) => q.as), r.opset?.to, r.calibrationSamples);
  await quantize(bytes, { mode: 'qdq', randomSamples: 4, seed: 2, dims: { N: 1 } });
  // @ts-expect-error: the modes are 'dynamic' and 'qdq'
  await quantizeModel(bytes, { mode: 'static' });
  return model;
}
