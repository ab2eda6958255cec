// Prints the operators webnx implements as a markdown page, straight from the runtime's
// registry (supportedOps()), so the docs cannot drift from the code.
//
// usage: node scripts/gen-op-list.mjs [--out docs/ops.md]
import { writeFile } from 'node:fs/promises';
import { supportedOps } from '../js/index.mjs';
import { getRuntime } from '../js/runtime.mjs';

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

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await opListMarkdown();
  const i = process.argv.indexOf('--out');
  if (i >= 0) await writeFile(process.argv[i + 1], text);
  else process.stdout.write(text);
}
