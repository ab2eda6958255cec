// Activation ranges for --mode qdq: the float model runs in webnx with the activations to be
// quantized added to its graph outputs, once per calibration sample, and each tensor's min and
// max over all samples are kept.
import { WebnxError } from './errors.mjs';
import { decodeModel, encodeModel } from './onnx-proto.mjs';
import { InferenceSession } from './session.mjs';
import { concreteDims, randomTensor } from './input-tensors.mjs';
import { FLOAT } from './quantize-graph.mjs';

export const DEFAULT_RANDOM_SAMPLES = 8;

// A copy of the model whose graph also outputs `names` (those not already inputs or outputs).
// The added outputs carry a type and no shape: webnx infers it, as for any intermediate.
export function withOutputs(bytes, names) {
  const model = decodeModel(bytes);
  const { graph } = model;
  const known = new Set([...graph.input, ...graph.output].map((v) => v.name));
  const extra = names.filter((n) => !known.has(n)).map((name) => ({ name, type: { tensorType: { elemType: FLOAT } } }));
  graph.output = [...graph.output, ...extra];
  return encodeModel(model);
}

// `count` feeds of seeded random tensors (uniform in [-1, 1) for float inputs), shaped by the
// model's inputs with named dims from `bindings` (others 1; 224 for the sides of a 4-D input).
export function* randomSamples(inputs, count, seed = 1, bindings = {}) {
  for (let k = 0; k < count; k++) {
    const feeds = {};
    inputs.forEach((meta, j) => { feeds[meta.name] = randomTensor(meta, concreteDims(meta, bindings), seed + k * inputs.length + j); });
    yield feeds;
  }
}

// Widens `ranges` by a tensor's values (NaN is ignored).
function observe(ranges, name, data) {
  const r = ranges.get(name) ?? { min: Infinity, max: -Infinity };
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v < r.min) r.min = v;
    if (v > r.max) r.max = v;
  }
  ranges.set(name, r);
}

// { ranges: Map name -> { min, max } over the samples, samples: how many ran }. options: samples (an iterable or async iterable
// of feeds: { inputName: Tensor }), else randomSamples: N (default 8, with a warning) with seed
// and dims; numThreads for the webnx session; warn(message).
export async function calibrate(bytes, names, options = {}) {
  const session = await InferenceSession.create(withOutputs(bytes, names), { numThreads: options.numThreads });
  try {
    let { samples } = options;
    if (!samples) {
      const count = options.randomSamples ?? DEFAULT_RANDOM_SAMPLES;
      if (options.randomSamples === undefined) {
        options.warn?.(`no calibration data: calibrating on ${count} seeded random samples in [-1, 1), ` +
          'which only fits models fed such values; give real inputs for real scales');
      }
      samples = randomSamples(session.inputMetadata, count, options.seed ?? 1, options.dims);
    }
    const wanted = new Set(names);
    const ranges = new Map();
    let runs = 0;
    for await (const feeds of samples) {
      const outputs = await session.run(feeds).catch((e) => {
        throw new WebnxError(e.code ?? 'InvalidInput', `calibration sample ${runs + 1}: ${e.message.replace(`${e.code}: `, '')}`);
      });
      for (const [name, tensor] of [...Object.entries(feeds), ...Object.entries(outputs)]) {
        if (wanted.has(name)) observe(ranges, name, tensor.data);
      }
      runs++;
    }
    if (runs === 0) throw new WebnxError('InvalidArgument', 'calibration needs at least one sample');
    return { ranges, samples: runs };
  } finally {
    await session.release();
  }
}
