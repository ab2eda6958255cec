// Bad models and bad inputs give coded errors, and the session keeps working afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { modelPath, seededFloats } from './helpers.mjs';

const tinyPath = modelPath('testdata/tiny_conv.onnx');

async function expectCode(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

function tinyInput(n = 1) {
  return new Tensor('float32', seededFloats(n * 2 * 25, 7), [n, 2, 5, 5]);
}

test('truncated model is MalformedModel', async () => {
  const bytes = await readFile(tinyPath);
  for (const cut of [1, 10, Math.floor(bytes.length / 2), bytes.length - 3]) {
    await expectCode(InferenceSession.create(bytes.subarray(0, cut)), 'MalformedModel');
  }
});

test('garbage bytes and empty input are MalformedModel', async () => {
  const garbage = new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24);
  await expectCode(InferenceSession.create(garbage), 'MalformedModel');
  await expectCode(InferenceSession.create(new Uint8Array(0)), 'MalformedModel', /empty/);
});

test('every unsupported operator is listed at once', async () => {
  await expectCode(InferenceSession.create(modelPath('testdata/unknown_ops.onnx')),
    'UnsupportedOperator', /FancyOp.*'fancy_a', 'fancy_b'.*com\.example:Magic.*'magic'|com\.example:Magic.*FancyOp/s);
});

test('an opset below 7 runs where every op has a version that old, else is UnsupportedOpset', async () => {
  const old = await InferenceSession.create(modelPath('testdata/opset6.onnx'));
  const current = await InferenceSession.create(tinyPath);
  const x = tinyInput();
  assert.deepEqual((await old.run({ x })).y.data, (await current.run({ x })).y.data);
  await old.release();
  await current.release();
  await expectCode(InferenceSession.create(modelPath('testdata/opset6_add.onnx')), 'UnsupportedOpset',
    /opset 6 of the default domain.*Add at opset 6/);
});

test('missing file is InvalidArgument', async () => {
  await expectCode(InferenceSession.create(modelPath('testdata/does-not-exist.onnx')), 'InvalidArgument');
});

test('wrong input name, shape, dtype: coded errors and the session still works', async () => {
  const session = await InferenceSession.create(tinyPath);
  assert.deepEqual(session.inputNames, ['x']);
  assert.deepEqual(session.outputNames, ['y']);
  const good = await session.run({ x: tinyInput() });
  await expectCode(session.run({ wrong: tinyInput() }), 'InvalidInput', /unknown input 'wrong'.*'x'/);
  await expectCode(session.run({}), 'InvalidInput', /missing/);
  await expectCode(session.run({ x: new Tensor('float32', seededFloats(2 * 2 * 25, 1), [1, 2, 10, 5]) }),
    'ShapeMismatch', /\[1,2,10,5\].*\[N,2,5,5\]/);
  await expectCode(session.run({ x: new Tensor('float32', seededFloats(50, 1), [2, 25]) }), 'ShapeMismatch');
  await expectCode(session.run({ x: new Tensor('int32', new Int32Array(50), [1, 2, 5, 5]) }),
    'InvalidInput', /float32.*int32/);
  await expectCode(session.run({ x: 'not a tensor' }), 'InvalidInput');
  const again = await session.run({ x: tinyInput() });
  assert.deepEqual(Array.from(again.y.data), Array.from(good.y.data));
  await session.release();
  await expectCode(session.run({ x: tinyInput() }), 'InvalidArgument', /released/);
});

test('Tensor rejects bad data', () => {
  assert.throws(() => new Tensor('float32', new Float32Array(3), [2, 2]), { code: 'InvalidArgument' });
  assert.throws(() => new Tensor('bfloat16', new Uint16Array(4), [4]), { code: 'UnsupportedDtype' });
  assert.throws(() => new Tensor('string', ['a'], [1]), { code: 'UnsupportedDtype' });
  assert.throws(() => new Tensor('float32', new Float32Array(4), [-4]), { code: 'InvalidArgument' });
});
