// The differential fuzzer's fixed-seed sample (tests/fuzz-diff/; make fuzz-diff runs as many as
// asked): generated graphs give webnx's and onnxruntime-node's answers within the stated
// tolerances, 1 and 2 threads, with input shapes changing within a session. And its minimizer
// shrinks a failing graph to what fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateCase } from '../fuzz-diff/generator.mjs';
import { OPS } from '../fuzz-diff/ops.mjs';
import { runCase } from '../fuzz-diff/differential.mjs';
import { minimize } from '../fuzz-diff/minimize.mjs';
import { addCoverage } from '../fuzz-diff/cli.mjs';

const SAMPLE = 1500;
const FIRST_SEED = 1;

test(`${SAMPLE} generated graphs (seeds ${FIRST_SEED}..) match onnxruntime-node`, async () => {
  const coverage = new Map();
  const mismatches = [];
  let run = 0;
  for (let seed = FIRST_SEED; run < SAMPLE; seed++) {
    const c = generateCase(seed);
    if (!c) continue;
    const result = await runCase(c);
    if (result.status === 'rejected') continue;
    run++;
    addCoverage(coverage, c);
    if (result.status === 'mismatch') mismatches.push(`seed ${seed}: ${result.detail}`);
  }
  assert.deepEqual(mismatches, [], 'minimize each into tests/regressions/: node tests/fuzz-diff/cli.mjs --seed S --graphs 1 --write');
  // The sample exercises every op the generator knows.
  assert.deepEqual(OPS.map((o) => o.name).filter((op) => !coverage.has(op)), []);
});

test('the minimizer cuts a failing graph down to the node that fails', async () => {
  // A graph with a Softmax somewhere in a chain; "fails" stands for a mismatch in Softmax.
  let c;
  for (let seed = 1; !c; seed++) {
    const candidate = generateCase(seed);
    const ops = candidate?.doc.graph.node.map((n) => n.opType) ?? [];
    if (ops.length > 6 && ops.indexOf('Softmax') > 2) c = candidate;
  }
  const fails = async (doc) => doc.graph.node.some((n) => n.opType === 'Softmax');
  const small = await minimize(c.doc, [3, 1, 3], c.shapes, fails);
  assert.ok(small.doc.graph.node.length < c.doc.graph.node.length);
  assert.equal(small.doc.graph.node.at(-1).opType, 'Softmax');
  assert.deepEqual(small.batches, [1]);
  // Whatever remains still loads and runs in both runtimes.
  assert.notEqual((await runCase({ ...c, doc: small.doc }, { batches: [1] })).status, 'mismatch');
});

test('a difference grown inside a float64 island is traced to the island op that grew it', async () => {
  // Seed 27047827: a LayerNormalization over two nearly equal values, cast to double, summed
  // there with cancellation (1.49n - 1.22n), cast back. The float32 value out of the island is
  // the first to differ; the double ReduceSum before it, fed onnxruntime's double inputs alone,
  // agrees: rounding grown by an ill-conditioned sum, not a wrong answer.
  const result = await runCase(generateCase(27047827));
  assert.equal(result.status, 'unstable', result.detail);
  assert.match(result.detail, /ReduceSum 'v45' agrees alone/);
});

test('a difference that only a fused quantized conv makes is traced with the pattern\'s values hidden', async () => {
  // Seed 27291140: QuantizeLinear -> DequantizeLinear -> Conv (fused into one int8 conv, whose
  // integer sums are exact where onnxruntime's unfused float conv rounds), then Cos(Tanh) and a
  // LayerNormalization that grows the last bits, and a Det. With the pattern's values exposed it
  // runs unfused and nothing differs; hidden, the LayerNormalization is the first value to differ,
  // and it agrees alone on onnxruntime's inputs.
  const result = await runCase(generateCase(27291140));
  assert.equal(result.status, 'unstable', result.detail);
  assert.match(result.detail, /LayerNormalization 'v24' agrees alone/);
});
