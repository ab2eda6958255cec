// The files of a small app that uses the installed webnx package three ways: a Vite build
// (index.html), a plain <script type=module> page with an import map (plain.html), and Node
// (node-check.mjs). All run MobileNetV2 on the same seeded input as the test's reference.
import { seededFloats } from '../node/helpers.mjs';
import { exportDocument, forwardOne, makeNetwork } from '../node/neataptic-export.mjs';

export const SEED = 1235;

// A NeatapticTS export without a batch dimension (its rules live in a module the package
// imports only for such documents: the bundle must carry it as a chunk) and its network's output.
const NEATAPTIC_NET = makeNetwork({ inputSize: 3, layers: [{ size: 4, act: 'Tanh' }, { size: 2, act: 'Sigmoid' }] }, 5);
const NEATAPTIC_INPUT = [0.5, -1, 2];
export const NEATAPTIC_EXPECTED = forwardOne(NEATAPTIC_NET, NEATAPTIC_INPUT);

// Browser side; URL parameters: ?worker (worker: true), ?wasmPaths=/x/ (env.wasmPaths).
const APP_JS = `import { InferenceSession, Tensor, env } from 'webnx';

${seededFloats.toString()}

const params = new URLSearchParams(location.search);
const result = document.getElementById('result');
if (params.get('wasmPaths')) env.wasmPaths = params.get('wasmPaths');
try {
  const session = await InferenceSession.create(params.get('model') ?? '/models/mobilenet_v2.onnx',
    { worker: params.has('worker') });
  const x = new Tensor('float32', seededFloats(3 * 224 * 224, ${SEED}), [1, 3, 224, 224]);
  const out = await session.run({ [session.inputNames[0]]: x });
  window.webnxOutput = Array.from(out[session.outputNames[0]].data);
  await session.release();
  const neataptic = await InferenceSession.create(${JSON.stringify(exportDocument(NEATAPTIC_NET, { batch: false }))},
    { worker: params.has('worker') });
  const y = await neataptic.run({ input: new Tensor('float32', new Float32Array(${JSON.stringify(NEATAPTIC_INPUT)}), [3]) });
  window.webnxNeataptic = { output: Array.from(y.output.data), dims: y.output.dims, warnings: neataptic.warnings };
  await neataptic.release();
  result.textContent = 'top-1 class ' + window.webnxOutput.indexOf(Math.max(...window.webnxOutput));
  result.dataset.state = 'done';
} catch (e) {
  result.textContent = e.message;
  result.dataset.code = e.code;
  result.dataset.state = 'error';
}
`;

const page = (head) => `<!doctype html>
<html><head><meta charset="utf-8"><title>webnx consumer</title>${head}</head>
<body><h1>webnx from npm</h1><pre id="result">running…</pre><script type="module" src="./app.js"></script></body></html>
`;

const NODE_CHECK = `import { InferenceSession, Tensor } from 'webnx';

${seededFloats.toString()}

const out = {};
for (const worker of [false, true]) {
  const session = await InferenceSession.create(process.argv[2], { worker });
  const x = new Tensor('float32', seededFloats(3 * 224 * 224, ${SEED}), [1, 3, 224, 224]);
  const y = await session.run({ [session.inputNames[0]]: x });
  out[worker ? 'worker' : 'direct'] = Array.from(y[session.outputNames[0]].data);
  await session.release();
}
console.log(JSON.stringify(out));
`;

export const FILES = {
  'package.json': JSON.stringify({ name: 'webnx-consumer', private: true, type: 'module' }, null, 2),
  'app.js': APP_JS,
  'index.html': page(''),
  // Without a bundler, an import map tells the browser where the bare specifier 'webnx' lives.
  'plain.html': page('<script type="importmap">{ "imports": { "webnx": "./node_modules/webnx/js/index.mjs" } }</script>'),
  'node-check.mjs': NODE_CHECK,
};
