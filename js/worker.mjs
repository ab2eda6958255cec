// The Worker side of InferenceSession.create(src, { worker: true }): holds one session and
// answers the messages js/worker-session.mjs sends. Runs as a module Worker in browsers and
// as a worker_threads worker in Node.
import { InferenceSession } from './session.mjs';
import { Tensor } from './tensor.mjs';
import { env } from './env.mjs';
import { nodeBuiltin } from './node-builtin.mjs';
import { isNode } from './platform.mjs';

let session = null;
let port = null;

function describe(error) {
  return error && typeof error.code === 'string'
    ? { code: error.code, message: error.message }
    : { code: 'Internal', message: `Internal: ${error?.message ?? error}` };
}

// Tensors go back as { type, data, dims }; their buffers are transferred, not copied.
function pack(tensors, transfer) {
  const out = {};
  for (const [name, t] of Object.entries(tensors)) {
    out[name] = { type: t.type, data: t.data, dims: t.dims };
    transfer.push(t.data.buffer);
  }
  return out;
}

async function handle(msg, transfer) {
  switch (msg.type) {
    case 'create': {
      Object.assign(env, msg.env);
      const onProgress = msg.progress ? (p) => port.postMessage({ type: 'progress', id: msg.id, ...p }) : undefined;
      session = await InferenceSession.create(msg.model, { ...msg.options, onProgress });
      return { inputMetadata: session.inputMetadata, outputMetadata: session.outputMetadata, stats: session.stats,
        warnings: session.warnings };
    }
    case 'run': {
      const feeds = {};
      for (const [name, f] of Object.entries(msg.feeds)) feeds[name] = new Tensor(f.type, f.data, f.dims);
      const outputs = await session.run(feeds, msg.options);
      return { outputs: pack(outputs, transfer), stats: session.stats, lastProfile: session.lastProfile };
    }
    case 'release':
      await session?.release();
      session = null;
      return {};
    default:
      throw new Error(`unknown message '${msg.type}'`);
  }
}

function listen(workerPort, unwrap) {
  port = workerPort;
  const onMessage = async (data) => {
    const msg = unwrap(data);
    const transfer = [];
    try {
      const result = await handle(msg, transfer);
      port.postMessage({ id: msg.id, ok: true, result }, transfer);
    } catch (error) {
      port.postMessage({ id: msg.id, ok: false, error: describe(error) });
    }
  };
  if (isNode) port.on('message', onMessage);
  else port.addEventListener('message', onMessage);
  port.postMessage({ type: 'ready' }); // messages sent before this point could be lost
}

// No top-level await here: bundlers that emit classic (iife) workers reject it.
if (isNode) {
  nodeBuiltin('worker_threads').then(({ parentPort }) => listen(parentPort, (data) => data));
} else {
  listen(self, (event) => event.data);
}
