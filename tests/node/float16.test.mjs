// float16 models. Weights stored as float16 behind Casts (scripts/gen_fp16_models.py, as
// onnxconverter-common's keep_io_types writes them) are widened once at load: no Cast runs, and
// the outputs match onnxruntime-node's on the same file. Graphs whose values are float16 take
// and return float16 tensors and compute in float32 inside (core/passes/float16_in_float32.h),
// rounding once at each output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx } from '../../js/convert.mjs';
import { argmax, halfToNumber, modelsDir, relativeMaxError, seededFloats, toHalfBits } from './helpers.mjs';

for (const name of ['mobilenet_v2', 'resnet18']) {
  const file = path.join(modelsDir, 'fp16', `${name}_fp16w.onnx`);
  test(`${name} with float16 weights: widened at load, matches onnxruntime-node`, { skip: !existsSync(file) && 'make models' }, async () => {
    const bytes = readFileSync(file);
    const data = Float32Array.from(seededFloats(3 * 224 * 224, 5));
    const dims = [1, 3, 224, 224];
    const reference = await ort.InferenceSession.create(bytes);
    const want = (await reference.run({ [reference.inputNames[0]]: new ort.Tensor('float32', data, dims) }));
    const expected = want[reference.outputNames[0]].data;
    await reference.release();
    for (const numThreads of [1, 2]) {
      const session = await InferenceSession.create(bytes, { numThreads });
      const out = await session.run({ [session.inputMetadata[0].name]: new Tensor('float32', data, dims) },
        { profile: true });
      const got = out[session.outputMetadata[0].name].data;
      assert.ok(relativeMaxError(got, expected) < 1e-4, `${numThreads} threads: ${relativeMaxError(got, expected)}`);
      const casts = session.lastProfile.filter((p) => p.op === 'Cast').length;
      assert.equal(casts, 0, 'the weights\' Casts were folded at load');
      await session.release();
    }
  });
}

const vi = (name, elemType, dims) => ({ name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimValue: String(d) })) } } } });

test('a float16 graph: inputs and outputs float16, elementwise ops computed widened, as onnxruntime-node', async () => {
  const bytes = onnxJsonToOnnx({
    irVersion: '8',
    opsetImport: [{ version: '17' }],
    graph: {
      name: 'half',
      node: [
        { opType: 'Mul', input: ['x', 'x'], output: ['sq'], name: 'sq' },
        { opType: 'Sigmoid', input: ['sq'], output: ['s'], name: 'sig' },
        { opType: 'Add', input: ['s', 'x'], output: ['a'], name: 'add' },
        { opType: 'ReduceMax', input: ['a'], output: ['m'], name: 'max', attribute: [{ name: 'axes', type: 'INTS', ints: ['1'] }] },
        { opType: 'Transpose', input: ['a'], output: ['t'], name: 't' },
      ],
      input: [vi('x', 10, [4, 6])],
      output: [vi('m', 10, [4, 1]), vi('t', 10, [6, 4])],
    },
  });
  const halves = Uint16Array.from(seededFloats(24, 2), (v) => 0x3c00 + Math.floor((v + 1) * 600));  // [1, 2)
  const reference = await ort.InferenceSession.create(bytes);
  const want = await reference.run({ x: new ort.Tensor('float16', halves, [4, 6]) });
  await reference.release();
  const session = await InferenceSession.create(bytes);
  const got = await session.run({ x: new Tensor('float16', halves, [4, 6]) });
  for (const name of ['m', 't']) {
    assert.equal(got[name].type, 'float16');
    assert.ok(got[name].data instanceof Uint16Array);
    // One half ulp: onnxruntime's float16 Sigmoid and Mul may round their own way.
    for (let i = 0; i < want[name].data.length; i++) {
      assert.ok(Math.abs(got[name].data[i] - want[name].data[i]) <= 1, `${name}[${i}]: ${got[name].data[i]} vs ${want[name].data[i]}`);
    }
  }
  await session.release();
});

// MobileNetV2 and ResNet18 float16 throughout. onnxruntime-node runs them through its own casts
// to float32; the two round to float16 in different places, so: 1e-2 relative and the same
// top-1 class. (This zoo's MobileNetV2 has untrained weights: its outputs are ~0 in float16,
// in both runtimes; ResNet18's are not.)
for (const name of ['mobilenet_v2', 'resnet18']) {
  const file = path.join(modelsDir, 'fp16', `${name}_fp16.onnx`);
  test(`${name} in float16 throughout: float16 in and out, matches onnxruntime-node`, { skip: !existsSync(file) && 'make models' }, async () => {
    const bytes = readFileSync(file);
    const half = toHalfBits(seededFloats(3 * 224 * 224, 5));
    const dims = [1, 3, 224, 224];
    const reference = await ort.InferenceSession.create(bytes);
    const want = (await reference.run({ [reference.inputNames[0]]: new ort.Tensor('float16', half, dims) }));
    const expected = Float64Array.from(want[reference.outputNames[0]].data, halfToNumber);
    await reference.release();
    for (const numThreads of [1, 2]) {
      const session = await InferenceSession.create(bytes, { numThreads });
      assert.equal(session.inputMetadata[0].type, 'float16');
      const out = await session.run({ [session.inputMetadata[0].name]: new Tensor('float16', half, dims) });
      const y = out[session.outputMetadata[0].name];
      assert.equal(y.type, 'float16');
      const got = Float64Array.from(y.data, halfToNumber);
      assert.ok(relativeMaxError(got, expected) < 1e-2, `${numThreads} threads: ${relativeMaxError(got, expected)}`);
      assert.equal(argmax(got), argmax(expected));
      await session.release();
    }
  });
}

test('a float16 Conv computes in float32 and rounds once: within one half ulp of onnxruntime-node', async () => {
  const w = toHalfBits(seededFloats(2 * 3 * 9, 4));
  const bytes = onnxJsonToOnnx({
    irVersion: '8',
    opsetImport: [{ version: '17' }],
    graph: {
      name: 'conv16',
      node: [
        { opType: 'Conv', input: ['x', 'w'], output: ['c'], name: 'half_conv' },
        { opType: 'Relu', input: ['c'], output: ['y'], name: 'relu' },
      ],
      initializer: [{ name: 'w', dims: ['2', '3', '3', '3'], dataType: 10, rawData: Buffer.from(w.buffer).toString('base64') }],
      input: [vi('x', 10, [1, 3, 6, 7])],
      output: [vi('y', 10, [1, 2, 4, 5])],
    },
  });
  const x = toHalfBits(seededFloats(3 * 6 * 7, 9));
  const reference = await ort.InferenceSession.create(bytes);
  const want = (await reference.run({ x: new ort.Tensor('float16', x, [1, 3, 6, 7]) })).y.data;
  await reference.release();
  const session = await InferenceSession.create(bytes);
  const got = (await session.run({ x: new Tensor('float16', x, [1, 3, 6, 7]) })).y;
  assert.equal(got.type, 'float16');
  assert.deepEqual(got.dims, [1, 2, 4, 5]);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(got.data[i] - want[i]) <= 1, `y[${i}]: ${got.data[i]} vs ${want[i]}`);
  }
  await session.release();
});
