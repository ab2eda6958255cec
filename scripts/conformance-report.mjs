// webnx's conformance against onnxruntime's: of the ONNX node tests onnxruntime-node passes
// (tests/conformance/ort-passes.txt, from scripts/ort-node-tests.mjs), and of those using only
// float32/int32/int64/bool tensors, how many webnx passes (tests/conformance/expected.txt), how
// many it skips (tests/conformance/skip.txt, with their reasons) and which ops the rest need.
//
// usage: node scripts/conformance-report.mjs [--list]
import { readFileSync } from 'node:fs';

const lines = (file) => readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const ort = lines('tests/conformance/ort-passes.txt');
const subset = ort.filter((l) => l.endsWith(' *')).map((l) => l.slice(0, -2));
const all = ort.map((l) => l.replace(/ \*$/, ''));
const passed = new Set(lines('tests/conformance/expected.txt'));
const skipped = new Map(lines('tests/conformance/skip.txt').map((l) => [l.split(' ')[0], l.slice(l.indexOf(' ') + 1)]));

const count = (names) => {
  const pass = names.filter((n) => passed.has(n));
  const skip = names.filter((n) => !passed.has(n) && skipped.has(n));
  const rest = names.filter((n) => !passed.has(n) && !skipped.has(n));
  return { pass, skip, rest };
};
const whole = count(all);
const part = count(subset);
console.log(`onnxruntime-node passes ${all.length}: webnx passes ${whole.pass.length}, skips ${whole.skip.length}, does not run ${whole.rest.length}`);
console.log(`of them float32/int32/int64/bool only: ${subset.length}: webnx passes ${part.pass.length}, skips ${part.skip.length}, does not run ${part.rest.length}`);
if (process.argv.includes('--list')) {
  for (const n of part.skip) console.log(`skipped  ${n}: ${skipped.get(n)}`);
  for (const n of part.rest) console.log(`not run  ${n}`);
}
