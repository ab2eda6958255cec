// Writes the regression cases whose expected values come from the ONNX spec rather than from
// onnxruntime, where onnxruntime departs from it (found by the differential fuzzer):
//   node tests/fuzz-diff/spec-cases.mjs
// onnxruntime 1.30 pads SAME_UPPER/SAME_LOWER pooling windows as if they were not dilated;
// the spec pads them for the dilated extent (tests/fuzz-diff/spec-pool.mjs).
import ort from 'onnxruntime-node';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { Rng } from './generator.mjs';
import { specPool2d } from './spec-pool.mjs';
import { writeRegression } from './regressions.mjs';

const CASES = [
  // From fuzz-diff seed 1226 (minimized): the window rows start 2 rows up per the spec, 1 per onnxruntime.
  { name: 'spec-maxpool-same-lower-dilated', op: 'MaxPool', opset: 20, dims: ['N', 6, 8, 4],
    attrs: { kernel_shape: [3, 2], strides: [3, 2], dilations: [2, 1], auto_pad: 'SAME_LOWER' } },
  { name: 'spec-maxpool-same-upper-dilated', op: 'MaxPool', opset: 12, dims: ['N', 3, 7, 6],
    attrs: { kernel_shape: [2, 3], strides: [2, 1], dilations: [3, 2], auto_pad: 'SAME_UPPER' } },
  // From fuzz-diff seed 1023: AveragePool has dilations from opset 19.
  { name: 'spec-averagepool-same-lower-dilated', op: 'AveragePool', opset: 19, dims: ['N', 2, 5, 7],
    attrs: { kernel_shape: [2, 2], strides: [2, 3], dilations: [1, 2], auto_pad: 'SAME_LOWER', count_include_pad: 0 } },
];

function doc({ op, opset, dims, attrs }) {
  const shape = (ds) => ({ dim: ds.map((d) => (d === 'N' ? { dimParam: 'N' } : { dimValue: String(d) })) });
  const attribute = Object.entries(attrs).map(([name, v]) => (typeof v === 'string'
    ? { name, type: 'STRING', s: Buffer.from(v).toString('base64') }
    : Array.isArray(v) ? { name, type: 'INTS', ints: v.map(String) } : { name, type: 'INT', i: String(v) }));
  return {
    irVersion: '8', opsetImport: [{ domain: '', version: String(opset) }],
    graph: {
      name: op, node: [{ opType: op, input: ['x'], output: ['y'], name: 'pool', attribute }],
      input: [{ name: 'x', type: { tensorType: { elemType: 1, shape: shape(dims) } } }],
      output: [{ name: 'y', type: { tensorType: { elemType: 1 } } }],
    },
  };
}

for (const c of CASES) {
  const bytes = onnxJsonToOnnx(doc(c));
  const ortSession = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
  const runs = [];
  for (const n of [3, 1]) {
    const dims = c.dims.map((d) => (d === 'N' ? n : d));
    const data = Float32Array.from(new Rng(n * 101).floats(dims.reduce((a, b) => a * b, 1), -2, 2));
    const expected = specPool2d(c.op, data, dims, c.attrs);
    const fromOrt = (await ortSession.run({ x: new ort.Tensor('float32', data, dims) })).y;
    const differs = fromOrt.dims.join() !== expected.dims.join() || fromOrt.data.some((v, i) => v !== expected.data[i]);
    console.log(`${c.name} batch ${n}: onnxruntime ${differs ? 'departs from' : 'agrees with'} the spec`);
    runs.push({ inputs: { x: { dims, data } }, expected: { y: { type: 'float32', ...expected } } });
  }
  await writeRegression(c.name, bytes, {
    note: `${c.op} with ${c.attrs.auto_pad} and dilations ${c.attrs.dilations}: onnxruntime 1.30 pads the windows as if ` +
      'they were not dilated; the spec pads them for the dilated extent. Expected values from tests/fuzz-diff/spec-pool.mjs.',
    source: 'spec', threads: [1, 2], runs,
  });
}
