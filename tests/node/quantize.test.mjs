// The quantizer (js/quantize.mjs, `webnx quantize`): quantized zoo models run in webnx and in
// onnxruntime-node with the same results, stay close to the float model, and the digits demo
// keeps its accuracy; plus the graph details (sharing, opsets, what is kept) and the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { decodeModel, encodeModel } from '../../js/onnx-proto.mjs';
import { quantize, quantizeModel } from '../../js/quantize.mjs';
import { activationParams, quantizeBias, quantizeWeights, roundHalfEven } from '../../js/quantize-math.mjs';
import { argmax, modelPath, relativeMaxError, repoRoot, runCli, seededFloats } from './helpers.mjs';

const FLOAT = 1, UINT8 = 2, INT8 = 3, INT32 = 6;

// Node types of a model, counted.
function opCounts(model) {
  const counts = {};
  for (const n of model.graph.node) counts[n.opType] = (counts[n.opType] ?? 0) + 1;
  return counts;
}

// Runs `bytes` on one float input in onnxruntime-node and webnx (1 thread each); every output.
async function runBoth(bytes, feed) {
  const ref = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  const want = await ref.run({ [ref.inputNames[0]]: new ort.Tensor('float32', feed.data, feed.dims) });
  await ref.release();
  const session = await InferenceSession.create(bytes, { numThreads: 1 });
  const got = await session.run({ [session.inputNames[0]]: new Tensor('float32', feed.data, feed.dims) });
  await session.release();
  return { want, got };
}

// A copy of the model that also outputs every QuantizeLinear's result (uint8).
function exposeQuantized(bytes) {
  const model = decodeModel(bytes);
  const names = model.graph.node.filter((n) => n.opType === 'QuantizeLinear').map((n) => n.output[0]);
  model.graph.output.push(...names.map((name) => ({ name, type: { tensorType: { elemType: UINT8 } } })));
  return { bytes: encodeModel(model), names };
}

const differing = (a, b) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);

// The quantized graph holds what the mode writes, and its weights are int8.
function checkStructure(float, quantized, mode) {
  const before = opCounts(float);
  const after = opCounts(quantized);
  const int8 = quantized.graph.initializer.filter((t) => t.dataType === INT8 && (t.dims ?? []).length >= 2);
  if (mode === 'dynamic') {
    assert.equal(after.ConvInteger, before.Conv);
    assert.equal(after.MatMulInteger, before.Gemm ?? 0);
    assert.equal(after.Conv ?? 0, 0);
    assert.equal(after.Gemm ?? 0, 0);
    assert.ok(after.DynamicQuantizeLinear >= 1 && after.DynamicQuantizeLinear <= before.Conv + (before.Gemm ?? 0));
  } else {
    assert.equal(after.Conv, before.Conv);
    assert.ok(after.QuantizeLinear >= 1);
    // One DequantizeLinear per activation, weight and bias.
    assert.ok(after.DequantizeLinear >= after.QuantizeLinear + before.Conv);
    assert.ok(quantized.graph.initializer.some((t) => t.dataType === INT32), 'int32 biases');
    assert.ok(quantized.opsetImport.find((o) => !o.domain).version >= 13);
  }
  assert.equal(int8.length, before.Conv + (before.Gemm ?? 0), 'one int8 weight per Conv/Gemm');
  for (const t of int8) assert.equal(t.rawData.length, t.dims.reduce((a, b) => a * b, 1));
}

const floatOutputs = new Map();  // model -> onnxruntime-node's float output on the test input

for (const name of ['mobilenet_v2', 'resnet18']) {
  for (const mode of ['dynamic', 'qdq']) {
    test(`${name} ${mode}: runs in onnxruntime-node and webnx alike, close to the float model`, async () => {
      const file = modelPath(`${name}.onnx`);
      assert.ok(existsSync(file), `${file} is missing: run make models`);
      const bytes = new Uint8Array(await readFile(file));
      const { model, report } = await quantize(bytes, { mode, randomSamples: 4, numThreads: 1 });
      checkStructure(decodeModel(bytes), decodeModel(model), mode);
      assert.equal(report.skipped.length, 0);
      const ratio = model.length / bytes.length;
      assert.ok(ratio < 0.3, `${name} ${mode}: ${model.length} bytes is ${ratio.toFixed(3)} of the float model`);

      const feed = { data: seededFloats(3 * 224 * 224, 1235), dims: [1, 3, 224, 224] };
      if (!floatOutputs.has(name)) floatOutputs.set(name, Object.values((await runBoth(bytes, feed)).want)[0].data);
      const float = floatOutputs.get(name);
      const { want, got } = await runBoth(model, feed);
      const [w, g] = [Object.values(want)[0].data, Object.values(got)[0].data];
      const vsOrt = relativeMaxError(g, w);
      const vsFloat = relativeMaxError(w, float);
      console.log(`${name} ${mode}: ${(ratio * 100).toFixed(1)}% of the float size; webnx vs onnxruntime ` +
        `${vsOrt.toExponential(2)}; quantized vs float ${vsFloat.toExponential(2)}; top-1 float ${argmax(float)}, ` +
        `onnxruntime ${argmax(w)}, webnx ${argmax(g)}`);
      // Dynamic: integer products are exact, the float epilogue is elementwise, and the float ops
      // between quantized layers (Clip, Relu, Add) give the same bits in both runtimes, so they
      // agree to float rounding (docs/quantize.md: models with sigmoids do not). QDQ: the float Conv between two requantizations sums in
      // a different order in each runtime; a value landing within an ulp of a .5 quantum boundary
      // then rounds to neighbouring integers (seen: 79.49999 vs 79.50001), and those one-quantum
      // flips compound over 20+ layers to ~5e-3 of the output's range (measured 4e-3..8e-3).
      assert.ok(vsOrt <= (mode === 'dynamic' ? 1e-4 : 2e-2), `webnx vs onnxruntime: ${vsOrt}`);
      assert.equal(argmax(g), argmax(w));
      assert.equal(argmax(w), argmax(float), 'top-1 as the float model');
      assert.ok(vsFloat < 0.06, `quantized vs float: ${vsFloat}`);
      if (mode === 'qdq') await checkQdqFlips(model, feed, name);
    });
  }
}

// Where QDQ results part: quantizing the graph input (identical in both runtimes) is bit-exact;
// after the first Conv, only elements at a rounding boundary (a handful) move, by one quantum.
async function checkQdqFlips(model, feed, name) {
  const exposed = exposeQuantized(model);
  const { want, got } = await runBoth(exposed.bytes, feed);
  const [first, second] = exposed.names;
  assert.equal(differing(got[first].data, want[first].data), 0, `${first}: bit-exact`);
  const flips = differing(got[second].data, want[second].data);
  const size = want[second].data.length;
  for (let i = 0; i < size; i++) assert.ok(Math.abs(got[second].data[i] - want[second].data[i]) <= 1);
  console.log(`${name} qdq: ${second}: ${flips} of ${size} elements one quantum apart`);
  assert.ok(flips <= size * 1e-4, `${flips} flips`);
}

// --- the digits demo ---------------------------------------------------------------------------

// The held-out split (examples/digits/heldout.json; the training split is not stored): every
// sixth image calibrates, the other 300 evaluate, so calibration never sees an evaluated image.
test('digits: dynamic and qdq keep held-out top-1 accuracy within 1 point of the float model', async () => {
  const digitsDir = path.join(repoRoot, 'examples/digits');
  const heldout = JSON.parse(await readFile(path.join(digitsDir, 'heldout.json'), 'utf8'));
  const bytes = new Uint8Array(await readFile(path.join(digitsDir, 'digits_mobilenet.onnx')));
  const images = heldout.images.map((img) => Float32Array.from(img, (v) => v / 16));
  const calibration = images.filter((_, i) => i % 6 === 0);
  const evaluation = images.map((img, i) => ({ img, label: heldout.labels[i] })).filter((_, i) => i % 6 !== 0);
  // One image per run, as the demo classifies: dynamic quantization's activation scales are
  // per run, so a batch would share them across images.
  const accuracy = async (model) => {
    const session = await InferenceSession.create(model, { numThreads: 1 });
    let correct = 0;
    for (const { img, label } of evaluation) {
      const out = await session.run({ input: new Tensor('float32', img, [1, 1, 8, 8]) });
      if (argmax(out.logits.data) === label) correct++;
    }
    await session.release();
    return correct / evaluation.length;
  };
  const samples = calibration.map((img) => ({ input: new Tensor('float32', img, [1, 1, 8, 8]) }));
  const dynamic = await quantize(bytes, { mode: 'dynamic' });
  const qdq = await quantize(bytes, { mode: 'qdq', samples, numThreads: 1 });
  assert.equal(qdq.report.calibrationSamples, calibration.length);
  for (const { report } of [dynamic, qdq]) assert.equal(report.quantized.length, 15);  // 14 Conv, 1 Gemm
  const acc = { float: await accuracy(bytes), dynamic: await accuracy(dynamic.model), qdq: await accuracy(qdq.model) };
  console.log(`digits accuracy on ${evaluation.length} held-out images: float ${(acc.float * 100).toFixed(2)}%, ` +
    `dynamic ${(acc.dynamic * 100).toFixed(2)}%, qdq ${(acc.qdq * 100).toFixed(2)}% (qdq calibrated on ${calibration.length})`);
  assert.ok(acc.float >= 0.95);
  assert.ok(Math.abs(acc.dynamic - acc.float) <= 0.01, `dynamic ${acc.dynamic} vs float ${acc.float}`);
  assert.ok(Math.abs(acc.qdq - acc.float) <= 0.01, `qdq ${acc.qdq} vs float ${acc.float}`);
});

// --- the arithmetic ------------------------------------------------------------------------------

test('math: symmetric per-channel int8 weights, asymmetric uint8 activations holding 0, int32 biases', () => {
  assert.deepEqual([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4].map(roundHalfEven), [0, 2, 2, -0, -2, -2, 2]);
  // [2, 3] along axis 0 (rows) and axis 1 (columns); an all-zero channel gets scale 1.
  const w = Float32Array.of(1.27, -0.635, 0.005, 0, 0, 0);
  const rows = quantizeWeights(w, [2, 3], 0);
  assert.deepEqual(Array.from(rows.scales), [Math.fround(0.01), 1]);
  assert.deepEqual(Array.from(rows.q), [127, -64, 0, 0, 0, 0]);  // -63.5 rounds to even
  const cols = quantizeWeights(Float32Array.of(1, -4, 0.5, 2, 3, -1), [2, 3], 1);
  assert.deepEqual(Array.from(cols.scales), [2 / 127, 4 / 127, 1 / 127].map(Math.fround));
  assert.deepEqual(Array.from(cols.q), [64, -127, 64, 127, 95, -127]);
  assert.equal(quantizeWeights(Float32Array.of(1, NaN), [2, 1], 0), null);
  // The range widens to hold 0: [-1, 3] -> scale 4/255, zero point round(63.75); [2, 5] -> [0, 5].
  assert.deepEqual(activationParams(-1, 3), { scale: Math.fround(4 / 255), zeroPoint: 64 });
  assert.deepEqual(activationParams(2, 5), { scale: Math.fround(5 / 255), zeroPoint: 0 });
  assert.deepEqual(activationParams(-6, -2), { scale: Math.fround(6 / 255), zeroPoint: 255 });
  assert.deepEqual(activationParams(0, 0), { scale: 1, zeroPoint: 0 });
  const bias = quantizeBias(Float32Array.of(0.5, -1), 0.1, Float32Array.of(0.01, 0.02));
  assert.deepEqual(Array.from(bias.q), [500, -500]);
  assert.equal(quantizeBias(Float32Array.of(1e6), 1e-6, Float32Array.of(1e-6)), null);  // beyond int32
});

// --- graph details on small models -------------------------------------------------------------

const dim = (d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d });
const vi = (name, dims, elemType = FLOAT) => ({ name, type: { tensorType: { elemType, shape: { dim: dims.map(dim) } } } });
const weights = (name, dims, seed) => {
  const data = seededFloats(dims.reduce((a, b) => a * b, 1), seed);
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer) };
};
const node = (opType, input, output, attribute = []) => ({ opType, input, output, name: `${opType}_${output[0]}`, attribute });
const ints = (name, list) => ({ name, type: 7, ints: list });
const int = (name, i) => ({ name, type: 2, i });
const float = (name, f) => ({ name, type: 1, f });

// Two Convs on one input, two MatMuls on one weight, Gemm with transB/alpha/beta, and parts the
// quantizer must keep as they are (Softmax, value_info, metadata, another domain's import).
function mixedModel(opset = 13) {
  return encodeModel({
    irVersion: 8, producerName: 'quantize.test', docString: 'mixed', modelVersion: 7,
    opsetImport: [{ domain: '', version: opset }, { domain: 'ai.onnx.ml', version: 3 }],
    metadataProps: [{ key: 'author', value: 'test' }],
    graph: {
      name: 'mixed',
      input: [vi('x', ['N', 4, 6, 6]), vi('y', ['N', 3, 8]), vi('z', ['N', 8])],
      output: [vi('c1', ['N', 5, 6, 6]), vi('c2', ['N', 3, 3, 3]), vi('m1', ['N', 3, 5]), vi('m2', ['N', 3, 5]),
        vi('g1', ['N', 5]), vi('g2', ['N', 5]), vi('s', ['N', 5])],
      valueInfo: [vi('ry', ['N', 3, 8])],
      initializer: [weights('W1', [5, 4, 3, 3], 11), weights('B1', [5], 12), weights('W2', [3, 4, 1, 1], 13),
        weights('M', [8, 5], 14), weights('G', [5, 8], 15), weights('C', [5], 16), weights('G2', [8, 5], 17)],
      node: [
        node('Conv', ['x', 'W1', 'B1'], ['c1'], [ints('pads', [1, 1, 1, 1])]),
        node('Conv', ['x', 'W2'], ['c2'], [ints('strides', [2, 2])]),
        node('MatMul', ['y', 'M'], ['m1']),
        node('Relu', ['y'], ['ry']),
        node('MatMul', ['ry', 'M'], ['m2']),
        node('Gemm', ['z', 'G', 'C'], ['g1'], [int('transB', 1), float('alpha', 0.5), float('beta', 2)]),
        node('Gemm', ['z', 'G2'], ['g2']),
        node('Softmax', ['g1'], ['s'], [int('axis', 1)]),
      ],
    },
  });
}

const mixedFeeds = (T, n = 2, seed = 21) => ({
  x: new T('float32', seededFloats(n * 144, seed).map((v) => v * 3 + 1), [n, 4, 6, 6]),  // in [-2, 4)
  y: new T('float32', seededFloats(n * 24, seed + 1), [n, 3, 8]),
  z: new T('float32', seededFloats(n * 8, seed + 2), [n, 8]),
});

async function runMixed(bytes) {
  const ref = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
  const want = await ref.run(mixedFeeds(ort.Tensor));
  const session = await InferenceSession.create(bytes, { numThreads: 1 });
  const got = await session.run(mixedFeeds(Tensor));
  await session.release();
  return { want, got };
}

// Every output of the quantized model: webnx vs onnxruntime within 1e-4, and near the float model.
async function compareMixed(model, bytes, mode) {
  const { want, got } = await runMixed(model);
  const float = await runMixed(bytes);
  let worst = 0;
  let worstFloat = 0;
  for (const name of Object.keys(want)) {
    const err = relativeMaxError(got[name].data, want[name].data);
    assert.ok(err <= 1e-4, `${name}: webnx vs onnxruntime ${err}`);
    const vsFloat = relativeMaxError(want[name].data, float.want[name].data);
    assert.ok(vsFloat < 0.03, `${name}: quantized vs float ${vsFloat}`);
    [worst, worstFloat] = [Math.max(worst, err), Math.max(worstFloat, vsFloat)];
  }
  console.log(`mixed ${mode}: webnx vs onnxruntime ${worst.toExponential(2)}, quantized vs float ${worstFloat.toExponential(2)} (worst output)`);
}

test('dynamic: one DynamicQuantizeLinear per activation, one int8 weight per matrix, the rest kept', async () => {
  const bytes = mixedModel();
  const { model, report } = await quantize(bytes, { mode: 'dynamic' });
  const q = decodeModel(model);
  const ops = opCounts(q);
  assert.equal(ops.DynamicQuantizeLinear, 4);  // x (two Convs), y, ry, z (two Gemms)
  assert.equal(ops.ConvInteger, 2);
  assert.equal(ops.MatMulInteger, 4);
  assert.equal(ops.Softmax, 1);
  assert.equal(report.quantized.length, 6);
  assert.deepEqual(q.graph.initializer.filter((t) => t.dataType === INT8 && t.dims?.length).map((t) => t.name).sort(),
    ['G2_quantized', 'G_quantized', 'M_quantized', 'W1_quantized', 'W2_quantized']);
  assert.ok(!q.graph.initializer.some((t) => ['W1', 'W2', 'M', 'G', 'G2'].includes(t.name)), 'float weights dropped');
  // ConvInteger keeps the Conv's attributes; the weight scales broadcast over the outputs.
  assert.deepEqual(q.graph.node.find((n) => n.opType === 'ConvInteger' && n.output[0].startsWith('c2')).attribute, [ints('strides', [2, 2])]);
  assert.deepEqual(q.graph.initializer.find((t) => t.name === 'W1_scale').dims, [5, 1, 1]);
  assert.deepEqual(q.graph.initializer.find((t) => t.name === 'M_scale').dims, [5]);
  const original = decodeModel(bytes);
  for (const key of ['producerName', 'docString', 'modelVersion', 'metadataProps', 'opsetImport', 'irVersion']) {
    assert.deepEqual(q[key], original[key], key);
  }
  assert.deepEqual(q.graph.valueInfo, original.graph.valueInfo);
  assert.deepEqual(q.graph.output, original.graph.output);

  await compareMixed(model, bytes, 'dynamic');
});

test('qdq: one Q/DQ pair per activation, per-channel weight DequantizeLinear, int32 bias where exact', async () => {
  const bytes = mixedModel();
  const samples = [mixedFeeds(Tensor, 1, 100), mixedFeeds(Tensor, 3, 200), mixedFeeds(Tensor, 2, 300)];
  const { model, report } = await quantize(bytes, { mode: 'qdq', samples, numThreads: 1 });
  const q = decodeModel(model);
  // x's scale and zero point come from its range over the three samples.
  const xs = samples.flatMap((f) => Array.from(f.x.data));
  const { scale, zeroPoint } = activationParams(Math.min(...xs), Math.max(...xs));
  const init = (name) => q.graph.initializer.find((t) => t.name === name).rawData;
  assert.equal(new Float32Array(init('x_scale').slice().buffer)[0], scale);
  assert.equal(init('x_zero_point')[0], zeroPoint);
  assert.ok(scale > 5.9 / 255 && scale < 6 / 255 && zeroPoint > 80 && zeroPoint < 88, `${scale} ${zeroPoint}`);
  const ops = opCounts(q);
  assert.equal(ops.QuantizeLinear, 4);
  // 4 activations, 5 weights (M once: both MatMuls read it along the same axis), 1 bias (B1;
  // the Gemm's C stays float as alpha and beta are not 1).
  assert.equal(ops.DequantizeLinear, 10);
  assert.equal(report.quantized.length, 6);
  assert.equal(report.calibrationSamples, 3);
  const axis = (w) => q.graph.node.find((n) => n.opType === 'DequantizeLinear' && n.input[0] === `${w}_quantized`).attribute[0].i;
  assert.deepEqual(['W1', 'W2', 'M', 'G', 'G2'].map(axis), [0, 0, 1, 0, 1]);
  assert.equal(q.graph.initializer.find((t) => t.name === 'B1_quantized').dataType, INT32);
  assert.ok(q.graph.node.some((n) => n.opType === 'Gemm' && n.input[2] === 'C'));

  // One quantized layer: no requantized sum for a rounding to part the runtimes.
  await compareMixed(model, bytes, 'qdq');
});

test('opsets: raised to what the new ops need, refused when an op changed in between', async () => {
  const conv = (opset, extra = []) => encodeModel({
    irVersion: 5, opsetImport: [{ domain: '', version: opset }],
    graph: {
      name: 'g', input: [vi('x', [1, 2, 5, 5])], output: [vi('y', [1, 3, 5, 5]), ...extra.map((n) => vi(n.output[0], [1, 3, 5, 5]))],
      initializer: [weights('w', [3, 2, 3, 3], 5)],
      node: [node('Conv', ['x', 'w'], ['y'], [ints('pads', [1, 1, 1, 1])]), ...extra],
    },
  });
  const feeds = (T) => ({ x: new T('float32', seededFloats(50, 6), [1, 2, 5, 5]) });
  for (const [mode, opset] of [['dynamic', 11], ['qdq', 13]]) {
    const { model, report } = await quantize(conv(10), { mode, randomSamples: 2 });
    assert.deepEqual(report.opset, { from: 10, to: opset });
    assert.match(report.warnings.join('\n'), new RegExp(`opset from 10 to ${opset}`));
    const q = decodeModel(model);
    assert.equal(q.opsetImport[0].version, opset);
    assert.ok(q.irVersion >= 6);
    const want = await (await ort.InferenceSession.create(model)).run(feeds(ort.Tensor));
    const session = await InferenceSession.create(model, { numThreads: 1 });
    const got = await session.run(feeds(Tensor));
    await session.release();
    assert.ok(relativeMaxError(got.y.data, want.y.data) <= 1e-4);
  }
  // Softmax's meaning changed in opset 13: a qdq model would need it, dynamic only needs 11.
  const withSoftmax = conv(11, [node('Softmax', ['y'], ['s'])]);
  await assert.rejects(quantize(withSoftmax, { mode: 'qdq' }), (e) => e.code === 'UnsupportedOpset' && /Softmax/.test(e.message));
  assert.equal((await quantize(withSoftmax, { mode: 'dynamic' })).report.opset, null);
});

test('nothing to quantize: a warning and the model unchanged; nodes left in float say why', async () => {
  const relu = encodeModel({
    irVersion: 8, opsetImport: [{ domain: '', version: 13 }],
    graph: { name: 'g', input: [vi('x', [2, 3])], output: [vi('y', [2, 3])], node: [node('Relu', ['x'], ['y'])] },
  });
  const warnings = [];
  const { model, report } = await quantize(relu, { mode: 'qdq', onWarning: (w) => warnings.push(w) });
  assert.deepEqual(model, relu);
  assert.match(warnings[0], /nothing to quantize/);
  assert.equal(report.quantized.length, 0);
  // A weight fed at run time is not constant.
  const fed = encodeModel({
    irVersion: 8, opsetImport: [{ domain: '', version: 13 }],
    graph: { name: 'g', input: [vi('a', [2, 3]), vi('b', [3, 4])], output: [vi('y', [2, 4])], node: [node('MatMul', ['a', 'b'], ['y'])] },
  });
  const skipped = await quantize(fed, { mode: 'dynamic' });
  assert.deepEqual(skipped.report.skipped, [{ node: 'MatMul_y', op: 'MatMul', reason: 'its weight is not a constant' }]);
});

test('errors: a bad mode, bytes that are not a model, an empty calibration', async () => {
  const bytes = mixedModel();
  await assert.rejects(quantize(bytes, { mode: 'static' }), (e) => e.code === 'InvalidArgument' && /dynamic' or 'qdq/.test(e.message));
  await assert.rejects(quantize(new TextEncoder().encode('{"graph": {}}'), { mode: 'dynamic' }), (e) => e.code === 'MalformedModel');
  await assert.rejects(quantize(Uint8Array.of(0x0a, 0xff, 0xff), { mode: 'dynamic' }), (e) => e.code === 'MalformedModel');
  await assert.rejects(quantize(bytes, { mode: 'qdq', samples: [] }), (e) => e.code === 'InvalidArgument' && /at least one sample/.test(e.message));
  assert.ok((await quantizeModel(bytes, { mode: 'dynamic' })) instanceof Uint8Array);
});

// --- the command line --------------------------------------------------------------------------

const webnx = runCli;

// A float32 .npy (format 1.0) of `values` shaped `dims`.
function npy(values, dims) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')},), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  return Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0]),
    Buffer.from(Uint16Array.of(header.length).buffer), Buffer.from(header, 'latin1'), Buffer.from(Float32Array.from(values).buffer)]);
}

test('cli: webnx quantize with a calibration directory and in dynamic mode; the output loads', async () => {
  const tiny = modelPath('testdata/tiny_conv.onnx');  // x [N, 2, 5, 5] -> Conv -> Relu -> y
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webnx-quantize-'));
  try {
    // Both layouts: DIR/*.npy and DIR/<sample>/<input>.npy.
    await mkdir(path.join(dir, 'cal', 'sample3'), { recursive: true });
    await writeFile(path.join(dir, 'cal', 'a.npy'), npy(seededFloats(50, 1), [1, 2, 5, 5]));
    await writeFile(path.join(dir, 'cal', 'b.npy'), npy(seededFloats(100, 2), [2, 2, 5, 5]));
    await writeFile(path.join(dir, 'cal', 'sample3', 'x.npy'), npy(seededFloats(50, 3), [1, 2, 5, 5]));
    for (const args of [['--mode', 'qdq', '--calibration', path.join(dir, 'cal')], ['--mode', 'dynamic']]) {
      const out = path.join(dir, `${args[1]}.onnx`);
      const { code, stdout, stderr } = await webnx('quantize', tiny, out, ...args);
      assert.equal(code, 0, stderr);
      assert.match(stdout, new RegExp(`quantized 1 of 1 Conv/MatMul/Gemm nodes \\(${args[1]}\\): 1 Conv -> ${args[1] === 'qdq' ? 'QDQ' : 'ConvInteger'}`));
      if (args[1] === 'qdq') assert.match(stdout, /calibrated on 3 sample\(s\)/);
      assert.match(stdout, /wrote .*\.onnx/);
      const bytes = new Uint8Array(await readFile(out));
      assert.ok(opCounts(decodeModel(bytes))[args[1] === 'qdq' ? 'QuantizeLinear' : 'ConvInteger'] === 1);
      const session = await InferenceSession.create(bytes, { numThreads: 1 });
      const y = await session.run({ x: new Tensor('float32', seededFloats(50, 4), [1, 2, 5, 5]) });
      assert.deepEqual(y.y.dims, [1, 4, 5, 5]);
      await session.release();
      await (await ort.InferenceSession.create(bytes)).release();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('cli: bad arguments exit 2 with a message; a missing model exits 1 naming it', async () => {
  const tiny = modelPath('testdata/tiny_conv.onnx');
  for (const [args, message] of [
    [[tiny, 'out.onnx', '--mode', 'fast'], /--mode is dynamic or qdq, got 'fast'/],
    [[tiny, 'out.onnx'], /--mode is dynamic or qdq/],
    [[tiny, '--mode', 'qdq'], /takes an input and an output model/],
    [[tiny, 'out.onnx', '--mode', 'qdq', '--random', 'many'], /--random takes a sample count/],
    [[tiny, 'out.onnx', '--mode', 'dynamic', '--random', '4'], /--calibration and --random are for --mode qdq/],
    [[tiny, 'out.onnx', '--mode', 'qdq', '--frobnicate'], /Unknown option '--frobnicate'/],
  ]) {
    const { code, stderr } = await webnx('quantize', ...args);
    assert.equal(code, 2, args.join(' '));
    assert.match(stderr, message);
    assert.match(stderr, /usage: webnx quantize/);
  }
  const missing = await webnx('quantize', path.join(os.tmpdir(), 'no-such-model.onnx'), 'out.onnx', '--mode', 'dynamic');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /webnx quantize: InvalidArgument: cannot read model .*no-such-model\.onnx/);
  const noSamples = await webnx('quantize', tiny, path.join(os.tmpdir(), 'x.onnx'), '--mode', 'qdq', '--calibration', os.tmpdir() + '/no-such-dir');
  assert.equal(noSamples.code, 1);
  assert.match(noSamples.stderr, /cannot read calibration directory/);
  // A sample of the wrong shape: the runtime's error, the sample's number and its file.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webnx-quantize-'));
  try {
    await writeFile(path.join(dir, 'a.npy'), npy(new Float32Array(75), [1, 3, 5, 5]));
    const bad = await webnx('quantize', tiny, path.join(dir, 'out.onnx'), '--mode', 'qdq', '--calibration', dir);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /ShapeMismatch: calibration sample 1: input 'x' has shape \[1,3,5,5\].*\(.*a\.npy\)/);
    assert.ok(!existsSync(path.join(dir, 'out.onnx')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
