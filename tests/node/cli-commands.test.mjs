// `webnx check | run | bench` through the real bin script, as `npx webnx …` runs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { modelPath, repoRoot, runCli } from './helpers.mjs';

const webnx = runCli;

test('check: a supported model lists inputs, outputs, opsets and ops; exit 0', async () => {
  const { code, stdout } = await webnx('check', modelPath('mobilenet_v2.onnx'));
  assert.equal(code, 0);
  assert.match(stdout, /inputs:\n {2}input {2}float32 \[1, 3, 224, 224\]/);
  assert.match(stdout, /outputs:\n {2}output {2}float32 \[1, 1000\]/);
  assert.match(stdout, /opsets: ai\.onnx 13/);
  assert.match(stdout, /✓ Conv\s+52/);
  assert.match(stdout, /✓ webnx supports this model/);
});

test('check: every unsupported op with its reason, and the runtime\'s own error; exit 1', async () => {
  const { code, stdout } = await webnx('check', modelPath('testdata/unknown_ops.onnx'));
  assert.equal(code, 1);
  assert.match(stdout, /✗ FancyOp\s+2 {2}no kernel registered/);
  assert.match(stdout, /✗ com\.example:Magic\s+1 {2}custom domain 'com\.example'/);
  assert.match(stdout, /✓ Conv/);
  assert.match(stdout, /UnsupportedOperator: 2 unsupported operators/);
});

test('check: an unsupported opset is reported with the supported range', async () => {
  const { code, stdout } = await webnx('check', modelPath('testdata/opset6_add.onnx'), '--json');
  assert.equal(code, 1);
  const report = JSON.parse(stdout);
  assert.equal(report.error.code, 'UnsupportedOpset');
  assert.deepEqual(report.opsets, [{ domain: '', version: 6 }]);
  assert.equal(report.supported, false);
});

test('run: random input by default, files (.npy, .json) when given; prints outputs and timing', async () => {
  const tiny = modelPath('testdata/tiny_conv.onnx');
  const random = await webnx('run', tiny, '--dim', 'N=2');
  assert.equal(random.code, 0);
  assert.match(random.stdout, /input {2}x {2}float32 \[2, 2, 5, 5\] {2}from random \(seed 1\)/);
  assert.match(random.stdout, /y {2}float32 \[2, 4, 5, 5\] {2}min/);
  assert.match(random.stdout, /run: \d+\.\d+ ms/);

  const dir = await mkdtemp(path.join(repoRoot, 'build/tmp-cli-'));
  try {
    // A hand-made .npy (version 1.0 header) and the same values as JSON must give the same output.
    const values = Float32Array.from({ length: 50 }, (_, i) => Math.sin(i));
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 5, 5), }";
    header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
    const npy = Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0]),
      Buffer.from(Uint16Array.of(header.length).buffer), Buffer.from(header, 'latin1'), Buffer.from(values.buffer)]);
    await writeFile(path.join(dir, 'x.npy'), npy);
    await writeFile(path.join(dir, 'x.json'), JSON.stringify({ dims: [1, 2, 5, 5], data: Array.from(values) }));
    const a = JSON.parse((await webnx('run', tiny, '--input', `x=${path.join(dir, 'x.npy')}`, '--json')).stdout);
    const b = JSON.parse((await webnx('run', tiny, '--input', path.join(dir, 'x.json'), '--json')).stdout);
    assert.equal(a.inputs[0].from, path.join(dir, 'x.npy'));
    assert.deepEqual(a.outputs.y.dims, [1, 4, 5, 5]);
    assert.deepEqual(a.outputs.y.data, b.outputs.y.data);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('bench: median and p90 over N runs', async () => {
  const { code, stdout } = await webnx('bench', modelPath('testdata/tiny_conv.onnx'), '--runs', '5', '--warmup', '1');
  assert.equal(code, 0);
  assert.match(stdout, /median \d+\.\d+ ms {2}p90 \d+\.\d+ ms {2}min \d+\.\d+ ms {2}over 5 runs/);
});

test('usage: no command prints every command', async () => {
  const { code, stderr } = await webnx();
  assert.equal(code, 0);
  for (const c of ['convert', 'check', 'run', 'bench']) assert.match(stderr, new RegExp(`webnx ${c}`));
});
