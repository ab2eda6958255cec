// Generated docs stay in step with the code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { opListMarkdown } from '../../scripts/gen-op-list.mjs';
import { repoRoot } from './helpers.mjs';

test('docs/ops.md lists the registry (regenerate: node scripts/gen-op-list.mjs --out docs/ops.md)', async () => {
  const onDisk = await readFile(path.join(repoRoot, 'docs/ops.md'), 'utf8');
  assert.equal(onDisk, await opListMarkdown());
});
