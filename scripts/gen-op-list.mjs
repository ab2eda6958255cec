// Prints the operators webnx implements as a markdown page, straight from the runtime's
// registry (supportedOps()), so the docs cannot drift from the code.
//
// usage: node scripts/gen-op-list.mjs [--out docs/ops.md]
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { supportedOps } from '../js/index.mjs';
import { inspectModel } from '../js/inspect.mjs';
import { getRuntime } from '../js/runtime.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The ONNX backend node tests (read only when present), as the Makefile's NODE_TESTS.
const nodeTests = path.resolve(repoRoot, '../shared/onnx-node-tests');
const nodeTestUrl = 'https://github.com/onnx/onnx/tree/v1.22.0/onnx/backend/test/data/node/';

export async function opListMarkdown() {
  const ops = [...await supportedOps()].sort();
  const lines = [
    '# Operators',
    '',
    `webnx implements these ${ops.length} operators of the default ONNX domain (\`ai.onnx\`). The list is`,
    'generated from the runtime\'s registry by `node scripts/gen-op-list.mjs --out docs/ops.md`;',
    '`supportedOps()` returns the same names at run time, and `npx webnx check model.onnx` says which',
    'ops of a model are missing. Models with other ops fail with `UnsupportedOperator`, naming every',
    'missing op and the nodes that use it.',
    '',
  ];
  // One line per initial letter keeps ~90 names readable.
  const byLetter = new Map();
  for (const op of ops) byLetter.set(op[0], [...(byLetter.get(op[0]) ?? []), op]);
  for (const [letter, names] of byLetter) lines.push(`- **${letter}**: ${names.map((n) => `\`${n}\``).join(', ')}`);
  lines.push(...await versionTable());
  lines.push(...await testTable(ops));
  return `${lines.join('\n')}\n`;
}

// The versions each op is implemented at, with the input and output counts each allows: the
// registry's own declarations (kernels/*.cc, Register...Kernels), which the loader checks.
async function versionTable() {
  const schemas = (await getRuntime()).opSchemas().trim().split('\n').map((line) => {
    const [domain, op, since, ...n] = line.split(' ');
    const [minIn, maxIn, minOut, maxOut] = n.map(Number);
    return { domain: domain === '-' ? '' : domain, op, since: Number(since), inputs: [minIn, maxIn], outputs: [minOut, maxOut] };
  });
  const counts = ([min, max]) => (max === -1 ? `${min}+` : min === max ? `${min}` : `${min}-${max}`);
  const byOp = new Map();
  for (const s of schemas) {
    const name = s.domain ? `${s.domain}:${s.op}` : s.op;
    byOp.set(name, [...(byOp.get(name) ?? []), `${s.since} (${counts(s.inputs)} in, ${counts(s.outputs)} out)`]);
  }
  const lines = ['', '## Versions and arities', '',
    'Each since-version the runtime implements, with the input and output counts it accepts',
    '(positions, optional ones included). A node outside them is a MalformedModel at load.', '',
    '| op | versions (inputs, outputs) |', '|---|---|'];
  for (const [op, versions] of [...byOp].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`| \`${op}\` | ${versions.join(', ')} |`);
  }
  return lines;
}

// The ONNX node tests each op passes (tests/conformance/expected.txt), each attributed to the op
// its name starts with, or to the one op of its model.
async function testTable(ops) {
  const squash = (name) => name.toLowerCase().replace(/_/g, '');
  const passed = (await readFile(path.join(repoRoot, 'tests/conformance/expected.txt'), 'utf8'))
    .split('\n').filter((line) => line && !line.startsWith('#'));
  const nodeTestsOf = new Map(ops.map((op) => [op, []]));
  for (const test of existsSync(nodeTests) ? passed : []) {
    const model = path.join(nodeTests, test, 'model.onnx');
    if (!existsSync(model)) continue;
    const modelOps = inspectModel(new Uint8Array(await readFile(model))).ops.map((o) => o.op);
    const byName = ops.filter((op) => modelOps.includes(op) && squash(test).startsWith(`test${squash(op)}`));
    const owners = byName.length ? [byName.sort((a, b) => b.length - a.length)[0]]
      : new Set(modelOps).size === 1 ? modelOps.slice(0, 1) : [];
    for (const op of owners) nodeTestsOf.get(op)?.push(test);
  }
  const lines = ['', '## Tests', '',
    'The ONNX backend node tests each op passes (`tests/conformance/expected.txt`, checked by',
    '`make test`; the first three linked). Every kernel also has unit tests against hand-computed',
    'values and its scalar reference in `tests/unit/test_<family>.cc`.', '',
    '| op | ONNX node tests passed |', '|---|---|'];
  for (const op of ops) {
    const tests = nodeTestsOf.get(op);
    const links = tests.slice(0, 3).map((t) => `[${t}](${nodeTestUrl}${t})`);
    const more = tests.length > 3 ? `, … ${tests.length} in all` : '';
    lines.push(`| \`${op}\` | ${tests.length ? links.join(', ') + more : '—'} |`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await opListMarkdown();
  const i = process.argv.indexOf('--out');
  if (i >= 0) await writeFile(process.argv[i + 1], text);
  else process.stdout.write(text);
}
