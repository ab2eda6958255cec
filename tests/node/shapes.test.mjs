// Dynamic-shape models run at three input shapes in the order A, B, A, C, B: every output
// matches onnxruntime-node on the same seeded input (max |webnx - ort| / max |ort| <= 1e-4),
// exactly three plans are built and two runs hit the plan cache, and no plan keeps a
// shape-computing step at run time (the shape subgraphs all fold when the plan is made).
// Models: build/models/shapes/*.onnx from scripts/gen_shape_models.py, and the zoo's
// dynamic-batch exports from scripts/gen_zoo.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { modelPath, relativeMaxError, seededFloats } from './helpers.mjs';

const TOLERANCE = 1e-4;
const ORDER = ['A', 'B', 'A', 'C', 'B'];

const MODELS = [
  {
    file: 'shapes/lraspp.onnx',
    shapes: { A: [1, 3, 64, 64], B: [2, 3, 96, 64], C: [1, 3, 72, 88] },
  },
  {
    file: 'shapes/transformer.onnx',
    shapes: { A: [1, 7, 32], B: [2, 12, 32], C: [3, 5, 32] },
  },
  {
    file: 'shapes/detr_patterns.onnx',
    shapes: { A: [1, 16, 8, 12], B: [2, 16, 10, 6], C: [3, 16, 7, 9] },
  },
  {
    file: 'shufflenet_v2_x1_0_dyn.onnx',
    shapes: { A: [1, 3, 224, 224], B: [2, 3, 224, 224], C: [3, 3, 224, 224] },
  },
  {
    file: 'mobilenet_v2_dyn.onnx',
    shapes: { A: [1, 3, 224, 224], B: [2, 3, 224, 224], C: [3, 3, 224, 224] },
  },
];

function requireModel(file) {
  const path = modelPath(file);
  const how = file.startsWith('shapes/') ? 'scripts/gen_shape_models.py' : 'make models';
  assert.ok(existsSync(path), `${path} is missing: run ${how}`);
  return path;
}

function seededInput(dims, key) {
  const count = dims.reduce((a, b) => a * b, 1);
  return seededFloats(count, 4242 + key.charCodeAt(0));
}

async function reference(ref, dims, data) {
  return ref.run({ [ref.inputNames[0]]: new ort.Tensor('float32', data, dims) });
}

function ms(value) {
  return `${value.toFixed(1)} ms`;
}

for (const { file, shapes } of MODELS) {
  test(`${file}: shapes ${ORDER.join(', ')} match onnxruntime-node with 3 plans and no shape steps`,
    async () => {
      const path = requireModel(file);
      const session = await InferenceSession.create(path);
      const ref = await ort.InferenceSession.create(path, { intraOpNumThreads: 1 });
      const timings = {};
      for (const key of ORDER) {
        const dims = shapes[key];
        const data = seededInput(dims, key);
        const feeds = { [session.inputNames[0]]: new Tensor('float32', data, dims) };
        const start = performance.now();
        const out = await session.run(feeds);
        const elapsed = performance.now() - start;
        (timings[key] ??= []).push(elapsed);

        const want = await reference(ref, dims, data);
        assert.deepEqual(session.outputNames, ref.outputNames);
        for (const name of ref.outputNames) {
          assert.deepEqual(out[name].dims, want[name].dims, `${file} ${key} output '${name}' dims`);
          const err = relativeMaxError(out[name].data, want[name].data);
          assert.ok(err <= TOLERANCE,
            `${file} at ${JSON.stringify(dims)}: output '${name}' error ${err} > ${TOLERANCE}`);
        }
        const stats = session.stats;
        assert.equal(stats.shapeSteps, 0,
          `${file} at ${JSON.stringify(dims)}: ${stats.shapeSteps} shape-computing steps run`);
      }
      const stats = session.stats;
      assert.equal(stats.plansBuilt, 3, `${file}: plans built`);
      assert.equal(stats.planCacheHits, 2, `${file}: plan cache hits`);
      console.log(`${file}: loadedNodes ${stats.loadedNodes}, graphNodes ${stats.graphNodes}, ` +
        `runSteps ${stats.runSteps}, foldedNodes ${stats.foldedNodes}, ` +
        `shapeSteps ${stats.shapeSteps}`);
      for (const key of ['A', 'B']) {
        const [first, cached] = timings[key];
        console.log(`${file}: ${JSON.stringify(shapes[key])} first run (plan built) ` +
          `${ms(first)}, cached run ${ms(cached)}`);
      }
      await session.release();
      await ref.release();
    });
}

test('a named dim bound to different sizes by two inputs is ShapeMismatch', async () => {
  const session = await InferenceSession.create(requireModel('shapes/two_inputs.onnx'));
  const input = (n, seed) => new Tensor('float32', seededFloats(n * 4, seed), [n, 4]);
  await assert.rejects(session.run({ x: input(2, 1), y: input(3, 2) }), (e) => {
    assert.equal(e.code, 'ShapeMismatch', `got ${e.code}: ${e.message}`);
    assert.match(e.message, /'N'/);
    return true;
  });
  // The session still runs once the dims agree.
  const out = await session.run({ x: input(3, 1), y: input(3, 2) });
  assert.deepEqual(out.z.dims, [3, 4]);
  await session.release();
});
