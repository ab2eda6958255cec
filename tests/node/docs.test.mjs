// Generated docs stay in step with the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { opListMarkdown } from '../../scripts/gen-op-list.mjs';
import { repoRoot } from './helpers.mjs';

test('docs/ops.md lists the registry (regenerate: node scripts/gen-op-list.mjs --out docs/ops.md)', async () => {
  const onDisk = await readFile(path.join(repoRoot, 'docs/ops.md'), 'utf8');
  assert.equal(onDisk, await opListMarkdown());
});

// Every repository path the architecture and adding-an-operator pages name exists: a file moved
// or renamed without its docs fails here.
test('docs/architecture.md and docs/adding-an-operator.md name only files that exist; README links them', async () => {
  for (const page of ['docs/architecture.md', 'docs/adding-an-operator.md']) {
    const text = await readFile(path.join(repoRoot, page), 'utf8');
    const paths = [...text.matchAll(/`((?:core|kernels|js|wasm|tests|scripts|docs|bench|web)\/[A-Za-z0-9_./<>-]+)`/g)]
      .map((m) => m[1]).filter((p) => !p.includes('<') && !p.includes('*'));
    assert.ok(paths.length > 10, `${page} names too few files`);
    for (const p of paths) assert.ok(existsSync(path.join(repoRoot, p)), `${page} names ${p}, which does not exist`);
  }
  const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  assert.match(readme, /\(docs\/architecture\.md\)/);
  assert.match(readme, /\(docs\/adding-an-operator\.md\)/);
  assert.doesNotMatch(readme, /\.\.\/shared/, 'README must not point outside the repository');
});

// core/ names no operator (docs/architecture.md): what the planner and the graph passes need to
// know of an op, its kernel declares. The JSON loaders are the exception by their job: they
// translate the DSL's op names into ONNX's (core/loaders/json_dsl_ops.cc and its helpers).
test('core/ outside the JSON loaders names no registered operator', async () => {
  const { supportedOps } = await import('../../js/index.mjs');
  const ops = await supportedOps();
  const sources = (dir) => readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : /\.(cc|h)$/.test(e.name) ? [path.join(dir, e.name)] : []);
  const files = sources('core').filter((f) => !f.startsWith(path.join('core', 'loaders', 'json')));
  assert.ok(files.length > 20);
  for (const file of files) {
    const code = (await readFile(path.join(repoRoot, file), 'utf8')).replace(/\/\/.*$/gm, '');
    for (const op of ops) assert.ok(!code.includes(`"${op}"`), `${file} names the op "${op}"`);
  }
});
