// Shared by the node:test files: model paths, seeded inputs, and comparison with onnxruntime-node.
import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const modelsDir = process.env.WEBNX_MODELS || path.join(repoRoot, 'build/models');

export function modelPath(name) {
  return path.join(modelsDir, name);
}

export { seededFloats } from '../../js/seeded-floats.mjs';

// max |a - b| / max |b|: the error measure the model tests bound (1e-4).
export function relativeMaxError(actual, expected) {
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(actual[i] - expected[i]));
    maxRef = Math.max(maxRef, Math.abs(expected[i]));
  }
  return maxRef === 0 ? maxDiff : maxDiff / maxRef;
}

export function argmax(data, offset = 0, length = data.length) {
  let best = offset;
  for (let i = offset; i < offset + length; i++) if (data[i] > data[best]) best = i;
  return best - offset;
}

// The files this process holds open (Linux: /proc/self/fd), for checks that a load closed its own.
export function openFiles() {
  return readdirSync('/proc/self/fd').map((fd) => {
    try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; }  // closed meanwhile
  });
}

// `webnx <args>` through the real bin script, as `npx webnx …` runs it: { code, stdout, stderr }.
export async function runCli(...args) {
  try {
    const cli = path.join(repoRoot, 'js/cli.mjs');
    const { stdout, stderr } = await promisify(execFile)('node', [cli, ...args], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    if (typeof e.code !== 'number') throw e;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
