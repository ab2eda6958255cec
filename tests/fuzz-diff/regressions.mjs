// Regression cases the differential fuzzer writes (tests/regressions/<name>/): model.onnx and
// case.json { note, source ('onnxruntime' or 'spec': the expected values' origin), threads,
// runs: [{ inputs: { name: { dims, data } }, expected: { name: { type, dims, data } } }] }.
// tests/node/regressions.test.mjs runs every one in make test.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REGRESSIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../regressions');

// JSON has no infinities or NaN: those are written as strings ("-Infinity"), which Number() reads.
const plain = (t) => ({ ...(t.type ? { type: t.type } : {}), dims: [...t.dims],
  data: Array.from(t.data, (v) => (Number.isFinite(Number(v)) ? Number(v) : String(Number(v)))) });

export async function writeRegression(name, bytes, { note, source, threads, runs }) {
  const dir = path.join(REGRESSIONS, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'model.onnx'), bytes);
  const json = {
    note, source, threads,
    runs: runs.map((r) => ({
      inputs: Object.fromEntries(Object.entries(r.inputs).map(([k, v]) => [k, plain(v)])),
      expected: Object.fromEntries(Object.entries(r.expected).map(([k, v]) => [k, plain(v)])),
    })),
  };
  await writeFile(path.join(dir, 'case.json'), `${JSON.stringify(json)}\n`);
  return dir;
}

export async function readRegressions() {
  let names = [];
  try {
    names = (await readdir(REGRESSIONS, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return [];
  }
  return Promise.all(names.map(async (name) => ({
    name,
    bytes: new Uint8Array(await readFile(path.join(REGRESSIONS, name, 'model.onnx'))),
    ...JSON.parse(await readFile(path.join(REGRESSIONS, name, 'case.json'), 'utf8')),
  })));
}
