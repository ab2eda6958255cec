// Prints the operators webnx implements as a markdown page, straight from the runtime's
// registry (supportedOps()), so the docs cannot drift from the code.
//
// usage: node scripts/gen-op-list.mjs [--out docs/ops.md]
import { writeFile } from 'node:fs/promises';
import { supportedOps } from '../js/index.mjs';

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
  return `${lines.join('\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await opListMarkdown();
  const i = process.argv.indexOf('--out');
  if (i >= 0) await writeFile(process.argv[i + 1], text);
  else process.stdout.write(text);
}
