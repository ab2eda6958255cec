// Writes examples/dsl/neataptic_export_*.json: documents exactly as NeatapticTS' exportToONNX
// writes them (tests/node/neataptic-export.mjs), one per group of compatibility rules in
// docs/dsl.md. tests/node/neataptic.test.mjs checks that the files are what this writes and
// that each runs as the network does.
//   node scripts/gen-neataptic-examples.mjs [--check]
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportDocument, makeNetwork } from '../tests/node/neataptic-export.mjs';

const examples = path.join(path.dirname(fileURLToPath(import.meta.url)), '../examples/dsl');

// name -> [network, export options]
export const NEATAPTIC_EXAMPLES = {
  // Dangling 'output', no batch dimension (1-D input, Gemm on 1-D), no metadata.
  'neataptic_export_no_batch.json': [{ inputSize: 5, layers: [{ size: 4, act: 'Tanh' }, { size: 2, act: 'Sigmoid' }] }, { batch: false }],
  // Conv over a flat vector (conv2d_specs), a MaxPool + Flatten the next layer's weights do not see.
  'neataptic_export_conv_pool.json': [{ inputSize: 36, layers: [
    { act: 'Relu', conv: { inC: 1, inH: 6, inW: 6, k: 3, outC: 2 }, pool: true, flatten: true }, { size: 2, act: 'Sigmoid' }] },
  { metadata: true }],
  // Experimental fused LSTM beside a single-step recurrent layer (hidden_prev); nothing reads it.
  'neataptic_export_fused_lstm.json': [{ inputSize: 3, layers: [
    { size: 10, act: 'Tanh', recurrent: true, fused: 'LSTM' }, { size: 2, act: 'Identity' }] }, { metadata: true }],
};

export const exampleText = (name) => {
  const [spec, options] = NEATAPTIC_EXAMPLES[name];
  return `${JSON.stringify(exportDocument(makeNetwork(spec, 7), options), null, 1)}\n`;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  for (const name of Object.keys(NEATAPTIC_EXAMPLES)) {
    const file = path.join(examples, name);
    if (!check) await writeFile(file, exampleText(name));
    else if ((await readFile(file, 'utf8')) !== exampleText(name)) throw new Error(`${name} is stale`);
  }
}
