// Every case in tests/regressions/ (written by the differential fuzzer, tests/fuzz-diff/): the
// model runs its inputs in order in one session per thread count and matches the expected
// outputs (from onnxruntime, or from the spec where onnxruntime departs from it) within the
// fuzzer's tolerances.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '../../js/index.mjs';
import { firstMismatch } from '../fuzz-diff/differential.mjs';
import { readRegressions } from '../fuzz-diff/regressions.mjs';

const cases = await readRegressions();

test('tests/regressions/ holds cases', () => assert.ok(cases.length > 0));

for (const c of cases) {
  test(`regression ${c.name}: ${c.note}`, async () => {
    for (const threads of c.threads) {
      const session = await InferenceSession.create(c.bytes, { numThreads: threads });
      try {
        for (const [r, run] of c.runs.entries()) {
          const feeds = Object.fromEntries(Object.entries(run.inputs).map(([name, t]) => [name, new Tensor('float32', Float32Array.from(t.data), t.dims)]));
          const got = await session.run(feeds);
          for (const [name, want] of Object.entries(run.expected)) {
            const where = `${threads} thread(s), run ${r + 1}, output '${name}'`;
            assert.deepEqual(got[name].dims, want.dims, where);
            const m = firstMismatch(want.type ?? 'float32', got[name].data, want.data);
            assert.equal(m, null, `${where}: ${JSON.stringify(m)}`);
          }
        }
      } finally {
        await session.release();
      }
    }
  });
}
