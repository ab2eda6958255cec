// A session is a pure function of its model and this run's feeds, through the public API:
// - the order of input shapes never changes an output: one session fed batches 4, 1, 7, 1, 16
//   (and spatial sizes or sequence lengths up and down) gives, for every shape, bitwise the
//   output of a fresh session, with 1 and 2 threads, in-thread and in a worker;
// - a failed run stages nothing a later run can see;
// - a document object too deep to serialize is MalformedModel, as its text is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const TOLERANCE = 1e-4;  // max |webnx - ort| / max |ort|, float32 models

async function expectCode(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

function sameBits(a, b) {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

function input(dims, seed) {
  return new Tensor('float32', seededFloats(dims.reduce((n, d) => n * d, 1), seed), dims);
}

// One session runs `shapes` in order; each output must equal a fresh session's bit for bit.
async function expectOrderFree(source, shapes, options) {
  const session = await InferenceSession.create(source, options);
  const name = session.inputNames[0];
  const fresh = new Map();  // shape -> a fresh session's outputs
  try {
    for (const [i, dims] of shapes.entries()) {
      const x = input(dims, 500 + dims[0] * 7 + dims.at(-1));
      const got = await session.run({ [name]: x });
      const key = dims.join('x');
      if (!fresh.has(key)) {
        const once = await InferenceSession.create(source, options);
        fresh.set(key, await once.run({ [name]: x }));
        await once.release();
      }
      for (const [out, want] of Object.entries(fresh.get(key))) {
        assert.ok(sameBits(got[out].data, want.data),
          `output '${out}' at [${dims}] (run ${i} of the order) differs from a fresh session's`);
      }
    }
  } finally {
    await session.release();
  }
}

const BATCHES = [4, 1, 7, 1, 16];

// A NeatapticTS-style ONNX-JSON MLP 5 -> 8 -> 6 -> 3: Gemm with transB = 1 (as every nn.Linear
// export), Tanh between layers.
function mlpDocument() {
  const sizes = [5, 8, 6, 3];
  const valueInfo = (name, width) => ({
    name, type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: width }] } } },
  });
  const initializer = [];
  const node = [];
  let x = 'input';
  for (let l = 0; l < 3; l++) {
    const [i, o] = [sizes[l], sizes[l + 1]];
    initializer.push({ name: `W${l}`, data_type: 1, dims: [o, i], float_data: Array.from(seededFloats(o * i, 60 + l)) });
    initializer.push({ name: `B${l}`, data_type: 1, dims: [o], float_data: Array.from(seededFloats(o, 70 + l)) });
    const y = l === 2 ? 'output' : `Gemm_${l}`;
    node.push({ op_type: 'Gemm', input: [x, `W${l}`, `B${l}`], output: [y], name: `gemm_l${l}`,
      attributes: [{ name: 'transB', type: 'INT', i: 1 }] });
    if (l < 2) node.push({ op_type: 'Tanh', input: [y], output: [`Layer_${l}`], name: `act_l${l}` });
    x = `Layer_${l}`;
  }
  return {
    ir_version: 9, opset_import: [{ version: 18, domain: '' }], producer_name: 'neataptic-ts',
    graph: { inputs: [valueInfo('input', 5)], outputs: [valueInfo('output', 3)], initializer, node },
  };
}

test('an MLP of transB Gemms (NeatapticTS export): batch 4 then 1 is right, in every order', async () => {
  const doc = mlpDocument();
  const ref = await ort.InferenceSession.create(onnxJsonToOnnx(doc));
  for (const numThreads of [1, 2]) {
    for (const worker of [false, true]) {
      const session = await InferenceSession.create(doc, { numThreads, worker });
      try {
        for (const n of [4, 1, 4, 1]) {
          const x = input([n, 5], 40 + n);
          const got = (await session.run({ input: x })).output.data;
          const want = (await ref.run({ input: new ort.Tensor('float32', x.data, x.dims) })).output.data;
          const err = relativeMaxError(got, want);
          assert.ok(err <= TOLERANCE, `batch ${n}, ${numThreads} threads, worker ${worker}: error ${err}`);
        }
      } finally {
        await session.release();
      }
    }
  }
  for (const numThreads of [1, 2]) {
    await expectOrderFree(doc, BATCHES.map((n) => [n, 5]), { numThreads });
  }
});

const ZOO = ['mobilenet_v2_dyn.onnx', 'resnet18_dyn.onnx', 'mobilenet_v3_small_dyn.onnx'];
for (const file of ZOO) {
  test(`${file}: batches ${BATCHES.join(', ')} in one session give a fresh session's bits, 1 and 2 threads`, async () => {
    const source = modelPath(file);
    assert.ok(existsSync(source), `${source} is missing: run make models`);
    for (const numThreads of [1, 2]) {
      await expectOrderFree(source, BATCHES.map((n) => [n, 3, 224, 224]), { numThreads });
    }
  });
}

const SHAPE_MODELS = [
  // Spatial sizes up and down: every conv strategy of a segmentation net (LR-ASPP).
  { file: 'shapes/lraspp.onnx', shapes: [[2, 3, 96, 64], [1, 3, 32, 48], [1, 3, 128, 96], [1, 3, 32, 48]] },
  // Sequence lengths up and down: LayerNorm, Softmax, MatMul (a transformer encoder).
  { file: 'shapes/transformer.onnx', shapes: [[3, 40, 32], [1, 1, 32], [2, 64, 32], [1, 1, 32], [4, 7, 32]] },
];
for (const { file, shapes } of SHAPE_MODELS) {
  test(`${file}: shapes large -> small -> back give a fresh session's bits, 1 and 2 threads`, async () => {
    const source = modelPath(file);
    assert.ok(existsSync(source), `${source} is missing: run make models`);
    for (const numThreads of [1, 2]) await expectOrderFree(source, shapes, { numThreads });
  });
}

const SUM = {
  format: 'webnx-graph',
  inputs: [{ name: 'A', shape: [2] }, { name: 'B', shape: [2] }],
  outputs: ['Y'],
  nodes: [{ id: 'Y', op: 'Add', inputs: ['A', 'B'] }],
};

for (const worker of [false, true]) {
  test(`a failed run leaves no feed behind${worker ? ' (worker)' : ''}`, async () => {
    const session = await InferenceSession.create(SUM, { worker });
    try {
      const a = new Tensor('float32', new Float32Array([100, 200]), [2]);
      const bent = new Tensor('float32', new Float32Array([1, 1]), [2]);
      bent.dims = [3];  // changed after it was made: the run must refuse it
      await expectCode(session.run({ A: a, B: bent }), 'InvalidInput', /feed 'B'/);
      const b = new Tensor('float32', new Float32Array([1, 1]), [2]);
      await expectCode(session.run({ B: b }), 'InvalidInput', /input 'A' is missing/);
      // A feed the runtime refuses after others were staged: none of them stays either.
      await expectCode(session.run({ A: a, B: b, C: b }), 'InvalidInput', /unknown input 'C'/);
      await expectCode(session.run({ B: b }), 'InvalidInput', /input 'A' is missing/);
      assert.deepEqual(Array.from((await session.run({ A: a, B: b })).Y.data), [101, 201]);
    } finally {
      await session.release();
    }
  });
}

test('a document object nested 10,000 levels deep is MalformedModel, as its text is', async () => {
  let deep = {};
  const doc = { format: 'webnx-graph', inputs: [], outputs: [], nodes: [], extra: deep };
  for (let i = 0; i < 10000; i++) deep = deep.next = {};
  await expectCode(InferenceSession.create(doc), 'MalformedModel');
  const cyclic = { format: 'webnx-graph', inputs: [], outputs: [], nodes: [] };
  cyclic.self = cyclic;
  await expectCode(InferenceSession.create(cyclic), 'MalformedModel', /cannot be serialized/);
  // The session-less path still works afterwards.
  const session = await InferenceSession.create(SUM);
  await session.release();
});
