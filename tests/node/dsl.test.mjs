// The JSON graph DSL end to end: the zoo's MobileNetV2 converted to both JSON dialects gives the
// .onnx's output; the NHWC MobileNetV2 example and the NeatapticTS-style examples match plain-JS
// forward passes written here; hostile documents are MalformedModel with a JSON Pointer; and
// create() takes a document as an object, a JSON string, a .json path or bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { onnxJsonToOnnx, onnxToOnnxJson, onnxToWebnxGraph, fromBase64 } from '../../js/convert.mjs';
import { modelPath, openFiles, relativeMaxError, repoRoot, seededFloats } from './helpers.mjs';

const examples = path.join(repoRoot, 'examples/dsl');
const readJson = async (file) => JSON.parse(await readFile(path.join(examples, file), 'utf8'));

async function expectCode(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.code, code, `expected ${code}, got ${e.code}: ${e.message}`);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

async function runOnce(source, feeds, options) {
  const session = await InferenceSession.create(source, options);
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

// --- (a) the zoo's MobileNetV2 through both dialects ---------------------------------------

test('MobileNetV2 as ONNX-JSON and as webnx-graph matches the .onnx', async () => {
  const onnx = new Uint8Array(await readFile(modelPath('mobilenet_v2.onnx')));
  const input = { input: new Tensor('float32', seededFloats(3 * 224 * 224, 11), [1, 3, 224, 224]) };
  const want = (await runOnce(onnx, input)).output.data;
  const check = (got, what) => {
    const err = relativeMaxError(got.output.data, want);
    assert.ok(err <= 1e-5, `${what}: relative error ${err}`);
  };

  const onnxJson = onnxToOnnxJson(onnx);
  assert.equal(typeof onnxJson.graph.initializer[0].rawData, 'string');
  assert.equal(typeof onnxJson.irVersion, 'string');  // int64 as a string
  check(await runOnce(JSON.stringify(onnxJson), input), 'ONNX-JSON text');
  check(await runOnce(onnxJsonToOnnx(onnxJson), input), 'ONNX-JSON back to .onnx');

  const { doc, bin } = onnxToWebnxGraph(onnx, { binName: 'mnv2.bin', threshold: 1024 });
  assert.ok(bin.length > 1e6 && Object.values(doc.tensors).some((t) => t.file === 'mnv2.bin'));
  check(await runOnce(doc, input, { files: { 'mnv2.bin': bin } }), 'webnx-graph object + files');

  const dir = await mkdtemp(path.join(os.tmpdir(), 'webnx-dsl-'));
  try {
    await writeFile(path.join(dir, 'mnv2.json'), JSON.stringify(doc));
    await writeFile(path.join(dir, 'mnv2.bin'), bin);
    check(await runOnce(path.join(dir, 'mnv2.json'), input), 'webnx-graph .json path, side file read');
    check(await runOnce(pathToFileURL(path.join(dir, 'mnv2.json')), input), 'webnx-graph file URL');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// --- (b) examples against plain-JS forward passes ------------------------------------------

function tensorValues(t) {
  if (t.base64 !== undefined) {
    const bytes = fromBase64(t.base64);
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  }
  return Float32Array.from(t.data.flat(Infinity));
}

// NHWC reference of the DSL ops the MobileNetV2 example uses. Values: { data, shape }.
function nhwcReference(doc, image, shape) {
  const values = new Map([[doc.inputs[0].name, { data: image, shape }]]);
  for (const [name, t] of Object.entries(doc.tensors)) values.set(name, { data: tensorValues(t), shape: t.shape });
  const conv = (x, k, a, depthwise) => {
    const [n, h, w, c] = x.shape;
    const [kh, kw, kc, kout] = k.shape;
    const [sh, sw] = a.strides ?? [1, 1];
    const [top, left, bottom, right] = a.pads ?? [0, 0, 0, 0];
    const cout = depthwise ? kc * kout : kout;
    const oh = Math.floor((h + top + bottom - kh) / sh) + 1;
    const ow = Math.floor((w + left + right - kw) / sw) + 1;
    const y = new Float32Array(n * oh * ow * cout);
    for (let b = 0; b < n; b++) for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) {
      for (let o = 0; o < cout; o++) {
        let acc = 0;
        for (let u = 0; u < kh; u++) for (let v = 0; v < kw; v++) {
          const yy = i * sh - top + u, xx = j * sw - left + v;
          if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
          const base = ((b * h + yy) * w + xx) * c;
          if (depthwise) {
            const ch = Math.floor(o / kout);
            acc += x.data[base + ch] * k.data[((u * kw + v) * kc + ch) * kout + (o % kout)];
          } else {
            for (let ci = 0; ci < c; ci++) acc += x.data[base + ci] * k.data[((u * kw + v) * kc + ci) * kout + o];
          }
        }
        y[((b * oh + i) * ow + j) * cout + o] = acc;
      }
    }
    return { data: y, shape: [n, oh, ow, cout] };
  };
  const map = (x, f) => ({ data: x.data.map(f), shape: x.shape });
  for (const node of doc.nodes) {
    const ins = node.inputs.map((name) => values.get(name));
    const a = node.attrs ?? {};
    let out;
    switch (node.op) {
      case 'Conv2D': out = conv(ins[0], ins[1], a, false); break;
      case 'DepthwiseConv2D': out = conv(ins[0], ins[1], a, true); break;
      case 'BatchNorm': {
        const [x, g, beta, mean, v] = ins;  // also [C] tensors given without a shape
        const c = x.shape[3];
        out = { data: x.data.map((val, i) => g.data[i % c] * (val - mean.data[i % c]) / Math.sqrt(v.data[i % c] + (a.epsilon ?? 1e-5)) + beta.data[i % c]), shape: x.shape };
        break;
      }
      case 'Relu6': out = map(ins[0], (v) => Math.min(Math.max(v, 0), 6)); break;
      case 'Add': {
        const [x, y] = ins;
        out = { data: x.data.map((v, i) => v + y.data[i % y.data.length]), shape: x.shape };
        break;
      }
      case 'GlobalAveragePool': {
        const [n, h, w, c] = ins[0].shape;
        const y = new Float32Array(n * c);
        ins[0].data.forEach((v, i) => { y[Math.floor(i / (h * w * c)) * c + (i % c)] += v / (h * w); });
        out = { data: y, shape: [n, 1, 1, c] };
        break;
      }
      case 'Reshape': out = { data: ins[0].data, shape: [ins[0].data.length / a.shape[1], a.shape[1]] }; break;
      case 'MatMul': {  // transB
        const [x, wt] = ins;
        const [m, k] = x.shape;
        const nOut = wt.shape[0];
        const y = new Float32Array(m * nOut);
        for (let i = 0; i < m; i++) for (let j = 0; j < nOut; j++) {
          let acc = 0;
          for (let t = 0; t < k; t++) acc += x.data[i * k + t] * wt.data[j * k + t];
          y[i * nOut + j] = acc;
        }
        out = { data: y, shape: [m, nOut] };
        break;
      }
      default: throw new Error(`reference has no ${node.op}`);
    }
    values.set(node.outputs?.[0] ?? node.output ?? node.id, out);
  }
  return values.get(doc.outputs[0]);
}

test('the NHWC MobileNetV2 example matches a plain-JS NHWC forward pass', async () => {
  const doc = await readJson('mobilenet_v2_block.json');
  const shape = [2, 32, 32, 3];
  const image = seededFloats(2 * 32 * 32 * 3, 5);
  const want = nhwcReference(doc, image, shape);
  const got = await runOnce(path.join(examples, 'mobilenet_v2_block.json'),
    { image: new Tensor('float32', image, shape) });
  assert.deepEqual(got.logits.dims, want.shape);
  const err = relativeMaxError(got.logits.data, want.data);
  assert.ok(err <= 1e-4, `relative error ${err}`);
  // Inside, the chain of NHWC ops runs NCHW: no layout change between the stem and the pool.
  const session = await InferenceSession.create(doc);
  await session.run({ image: new Tensor('float32', image, shape) }, { profile: true });
  const transposes = session.lastProfile.filter((p) => p.op === 'Transpose').length;
  assert.ok(transposes <= 2, `${transposes} Transpose steps`);
  await session.release();
});

test('the worked inverted residual block in docs/dsl.md runs, NCHW inside', async () => {
  const markdown = await readFile(path.join(repoRoot, 'docs/dsl.md'), 'utf8');
  const block = /<!-- example: inverted-residual -->\s*```json\n([\s\S]*?)```/.exec(markdown);
  assert.ok(block, 'the example is in docs/dsl.md');
  const doc = JSON.parse(block[1]);
  const shape = [2, 4, 4, 2];
  const x = seededFloats(64, 9).map((v) => v * 3);
  const want = nhwcReference(doc, x, shape);
  const session = await InferenceSession.create(block[1]);
  const got = await session.run({ x: new Tensor('float32', x, shape) }, { profile: true });
  assert.deepEqual(got.y.dims, shape);
  assert.ok(relativeMaxError(got.y.data, want.data) <= 1e-5);
  assert.equal(session.lastProfile.filter((p) => p.op === 'Transpose').length, 2);
  await session.release();
});

// Plain-JS ONNX for the NeatapticTS documents: evaluates what the outputs need (the exporter's
// unread fused GRU is never touched).
function onnxReference(doc, feeds) {
  const g = doc.graph;
  const values = new Map(Object.entries(feeds));
  for (const t of g.initializer) values.set(t.name, { data: Float32Array.from(t.float_data), shape: t.dims });
  const producer = new Map();
  for (const n of g.node) for (const o of n.output) producer.set(o, n);
  const attr = (n, name, fallback) => {
    const a = (n.attributes ?? []).find((x) => x.name === name);
    return a === undefined ? fallback : a.ints ?? a.i ?? a.f;
  };
  const evaluate = (name) => {
    if (values.has(name)) return values.get(name);
    const n = producer.get(name);
    const ins = n.input.map(evaluate);
    const unary = (f) => ({ data: ins[0].data.map(f), shape: ins[0].shape });
    let out;
    switch (n.op_type) {
      case 'Gemm': {  // alpha = beta = 1, transB = 1
        const [x, w, b] = ins;
        const [m, k] = x.shape;
        const cols = w.shape[0];
        const y = new Float32Array(m * cols);
        for (let i = 0; i < m; i++) for (let j = 0; j < cols; j++) {
          let acc = b ? b.data[j % b.data.length] : 0;
          for (let t = 0; t < k; t++) acc += x.data[i * k + t] * w.data[j * k + t];
          y[i * cols + j] = acc;
        }
        out = { data: y, shape: [m, cols] };
        break;
      }
      case 'Relu': out = unary((v) => Math.max(v, 0)); break;
      case 'Tanh': out = unary(Math.tanh); break;
      case 'Sigmoid': out = unary((v) => 1 / (1 + Math.exp(-v))); break;
      case 'Identity': out = ins[0]; break;
      case 'Add': out = { data: ins[0].data.map((v, i) => v + ins[1].data[i]), shape: ins[0].shape }; break;
      case 'Concat': {  // axis 1 of [N, k] pieces
        const m = ins[0].shape[0];
        const width = ins.reduce((s, t) => s + t.shape[1], 0);
        const y = new Float32Array(m * width);
        for (let i = 0; i < m; i++) {
          let col = 0;
          for (const t of ins) for (let j = 0; j < t.shape[1]; j++) y[i * width + col++] = t.data[i * t.shape[1] + j];
        }
        out = { data: y, shape: [m, width] };
        break;
      }
      case 'Conv': {  // NCHW, no padding, stride 1
        const [x, w, b] = ins;
        const [nb, c, h, wd] = x.shape;
        const [co, , kh, kw] = w.shape;
        const oh = h - kh + 1, ow = wd - kw + 1;
        const y = new Float32Array(nb * co * oh * ow);
        for (let bi = 0; bi < nb; bi++) for (let o = 0; o < co; o++) for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) {
          let acc = b.data[o];
          for (let ci = 0; ci < c; ci++) for (let u = 0; u < kh; u++) for (let v = 0; v < kw; v++) {
            acc += x.data[((bi * c + ci) * h + i + u) * wd + j + v] * w.data[((o * c + ci) * kh + u) * kw + v];
          }
          y[((bi * co + o) * oh + i) * ow + j] = acc;
        }
        out = { data: y, shape: [nb, co, oh, ow] };
        break;
      }
      case 'MaxPool': {  // kernel = stride, no padding
        const [k] = attr(n, 'kernel_shape');
        const [nb, c, h, wd] = ins[0].shape;
        const oh = Math.floor(h / k), ow = Math.floor(wd / k);
        const y = new Float32Array(nb * c * oh * ow).fill(-Infinity);
        for (let p = 0; p < nb * c; p++) for (let i = 0; i < oh * k; i++) for (let j = 0; j < ow * k; j++) {
          const at = (p * oh + Math.floor(i / k)) * ow + Math.floor(j / k);
          y[at] = Math.max(y[at], ins[0].data[(p * h + i) * wd + j]);
        }
        out = { data: y, shape: [nb, c, oh, ow] };
        break;
      }
      case 'Flatten': out = { data: ins[0].data, shape: [ins[0].shape[0], ins[0].data.length / ins[0].shape[0]] }; break;
      default: throw new Error(`reference has no ${n.op_type}`);
    }
    values.set(name, out);
    return out;
  };
  return evaluate(g.outputs[0].name);
}

const neatapticCases = [
  ['neataptic_mlp.json', { input: [3, 4] }],
  ['neataptic_mixed_activation.json', { input: [3, 3] }],
  ['neataptic_recurrent.json', { input: [2, 3], hidden_prev: [2, 8] }],
  ['neataptic_conv.json', { input: [2, 1, 6, 6] }],
];

for (const [file, shapes] of neatapticCases) {
  test(`${file} matches a plain-JS forward pass`, async () => {
    const doc = await readJson(file);
    const feeds = {};
    const plain = {};
    let seed = 1;
    for (const [name, shape] of Object.entries(shapes)) {
      const data = seededFloats(shape.reduce((a, b) => a * b, 1), seed++).map((v) => v * 2);
      feeds[name] = new Tensor('float32', data, shape);
      plain[name] = { data, shape };
    }
    const want = onnxReference(doc, plain);
    const got = await runOnce(path.join(examples, file), feeds);
    assert.deepEqual(got.output.dims, want.shape);
    const err = relativeMaxError(got.output.data, want.data);
    assert.ok(err <= 1e-5, `relative error ${err}`);
  });
}

// --- (c) hostile documents -----------------------------------------------------------------

function convDoc() {
  return {
    format: 'webnx-graph', version: 1,
    inputs: [{ name: 'x', shape: [1, 4, 4, 1] }],
    outputs: ['y'],
    tensors: { k: { shape: [1, 1, 1, 1], data: [1] } },
    nodes: [{ id: 'y', op: 'Conv2D', inputs: ['x', 'k'], attrs: { strides: [1, 1] } }],
  };
}

const hostile = [
  ['strides with 3 values', (d) => { d.nodes[0].attrs.strides = [1, 1, 1]; },
    /^MalformedModel: \/nodes\/0\/attrs\/strides: expected 2 integers, got 3$/],
  ['a dangling name', (d) => { d.nodes[0].inputs[1] = 'missing'; }, /\/nodes\/0\/inputs\/1: 'missing' is not defined/],
  ['a cycle', (d) => { d.nodes.push({ id: 'a', op: 'Relu', inputs: ['b'] }, { id: 'b', op: 'Relu', inputs: ['a'] }); },
    /\/nodes\/\d: the graph has a cycle: '(a|b)' -> '(a|b)' -> '(a|b)'/],
  ['data shorter than the shape', (d) => { d.tensors.k.shape = [1, 1, 1, 4]; },
    /\/tensors\/k\/data: has 1 values but the shape \[1,1,1,4\] needs 4/],
  ['a huge shape', (d) => { d.tensors.k.shape = [1e9, 1e9, 1e9, 1]; }, /\/tensors\/k\/data: the shape .* is too large/],
  ['a wrong type', (d) => { d.inputs = 'x'; }, /^MalformedModel: \/inputs: expected an array, got a string/],
  ['a missing field', (d) => { delete d.nodes[0].op; }, /\/nodes\/0: the node has no op/],
  ['an unknown attribute', (d) => { d.nodes[0].attrs = { stride: [1, 1] }; }, /\/nodes\/0\/attrs\/stride: Conv2D has no attribute 'stride'/],
  ['bad base64', (d) => { d.tensors.k = { shape: [1, 1, 1, 1], base64: '!!!!' }; }, /\/tensors\/k\/base64: not valid base64/],
];

for (const [what, mutate, pattern] of hostile) {
  test(`hostile JSON: ${what} is MalformedModel with a pointer`, async () => {
    const doc = convDoc();
    mutate(doc);
    await expectCode(InferenceSession.create(doc), 'MalformedModel', pattern);
  });
}

test('hostile JSON text: syntax errors, deep nesting, wrong roots; the runtime keeps working', async () => {
  await expectCode(InferenceSession.create('{"format": "webnx-graph", "nodes": [}'), 'MalformedModel',
    /not valid JSON: parse error at line 1, column \d+/);
  const deep = `{"format": "webnx-graph", "metadata": {"m": ${'['.repeat(100000)}`;
  await expectCode(InferenceSession.create(deep), 'MalformedModel', /\/metadata\/m\/0\/0.*nests deeper than 256 levels/);
  await expectCode(InferenceSession.create(new TextEncoder().encode('{"graph": 5}')), 'MalformedModel',
    /\/graph: expected an object, got an integer/);
  await expectCode(InferenceSession.create('{}'), 'MalformedModel', /not a webnx-graph or ONNX-JSON document/);
  const onnxJson = { graph: { input: [{ name: 'x' }], output: [{ name: 'y' }], node: [] } };
  await expectCode(InferenceSession.create(onnxJson), 'MalformedModel', /\/graph\/input\/0: graph input 'x' needs a tensor type/);
  const out = await runOnce(convDoc(), { x: new Tensor('float32', new Float32Array(16).fill(2), [1, 4, 4, 1]) });
  assert.deepEqual(Array.from(out.y.data), new Array(16).fill(2));
});

test('mutated documents never abort the wasm instance', async () => {
  const bases = [JSON.stringify(convDoc()), await readFile(path.join(examples, 'neataptic_conv.json'), 'utf8')];
  const alphabet = '{}[]",:0123456789-eE.tfn \\/';
  let state = 99;
  const next = (n) => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state % n; };
  for (const base of bases) {
    for (let trial = 0; trial < 200; trial++) {
      let text = base;
      for (let e = 1 + next(3); e > 0; e--) {
        const at = next(text.length);
        const c = alphabet[next(alphabet.length)];
        text = [text.slice(0, at) + c + text.slice(at + 1), text.slice(0, at) + text.slice(at + 1 + next(6)),
          text.slice(0, at) + c + text.slice(at)][next(3)];
      }
      try {
        const session = await InferenceSession.create(text.trimStart().startsWith('{') ? text : `{${text}`);
        await session.release();
      } catch (e) {
        assert.ok(e.code && e.code !== 'Internal', `${e.code}: ${e.message}`);
      }
    }
  }
  const out = await runOnce(convDoc(), { x: new Tensor('float32', new Float32Array(16).fill(3), [1, 4, 4, 1]) });
  assert.equal(out.y.data[0], 3);
});

// --- (d) every kind of source --------------------------------------------------------------

test('create() takes a document object, JSON text, a .json path or URL, and bytes', async () => {
  const file = path.join(examples, 'neataptic_mlp.json');
  const text = await readFile(file, 'utf8');
  const bytes = new Uint8Array(await readFile(file));
  const feeds = { input: new Tensor('float32', seededFloats(8, 3), [2, 4]) };
  const want = Array.from((await runOnce(file, feeds)).output.data);
  const sources = {
    object: JSON.parse(text),
    'JSON text': `\n  ${text}`,
    'file URL': pathToFileURL(file),
    Uint8Array: bytes,
    ArrayBuffer: bytes.slice().buffer,
    Blob: new Blob([bytes]),
    'bytes with a byte order mark': new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]),
  };
  for (const [kind, source] of Object.entries(sources)) {
    assert.deepEqual(Array.from((await runOnce(source, feeds)).output.data), want, kind);
  }
});

test('side files: options.files as an object or a Map, typed arrays inside documents, missing files', async () => {
  const weights = new Float32Array([0, 0, 1, 2, 3, 4]);
  const doc = {
    format: 'webnx-graph',
    inputs: [{ name: 'x', shape: [4] }],
    outputs: ['y'],
    tensors: {
      w: { shape: [4], file: 'w.bin', offset: 8 },
      b: { shape: [4], data: new Float32Array([10, 20, 30, 40]) },
    },
    nodes: [{ id: 'm', op: 'Mul', inputs: ['x', 'w'] }, { id: 'y', op: 'Add', inputs: ['m', 'b'] }],
  };
  const feeds = { x: new Tensor('float32', new Float32Array([1, 1, 1, 2]), [4]) };
  const files = { 'w.bin': new Uint8Array(weights.buffer) };
  assert.deepEqual(Array.from((await runOnce(doc, feeds, { files })).y.data), [11, 22, 33, 48]);
  assert.deepEqual(Array.from((await runOnce(doc, feeds, { files: new Map(Object.entries(files)) })).y.data),
    [11, 22, 33, 48]);
  await expectCode(InferenceSession.create(doc), 'InvalidArgument', /\/tensors\/w: the side file 'w.bin' was not provided/);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webnx-dsl-'));
  try {
    const json = path.join(dir, 'model.json');
    await writeFile(json, JSON.stringify(doc, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
    await expectCode(InferenceSession.create(json), 'InvalidArgument', /cannot read side file 'w.bin'/);
    await writeFile(path.join(dir, 'w.bin'), files['w.bin']);
    assert.deepEqual(Array.from((await runOnce(json, feeds)).y.data), [11, 22, 33, 48]);
    // Side files read in Node go straight into the heap; none stays open, whether the load
    // succeeds, another side file is missing, or the load fails before reading them.
    const openInDir = () => openFiles().filter((file) => file.startsWith(dir));
    assert.deepEqual(openInDir(), []);
    await expectCode(InferenceSession.create(json, { limits: { maxNode: 1 } }), 'InvalidArgument');
    const two = { ...doc, tensors: { ...doc.tensors, b: { shape: [4], file: 'b.bin' } } };
    await writeFile(json, JSON.stringify(two, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
    await expectCode(InferenceSession.create(json), 'InvalidArgument', /cannot read side file 'b.bin'/);
    assert.deepEqual(openInDir(), []);
    doc.tensors.w.file = '../w.bin';
    await writeFile(json, JSON.stringify(doc, (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
    await expectCode(InferenceSession.create(json), 'InvalidArgument', /must be a relative path beside the model/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
