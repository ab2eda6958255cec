// Emscripten 3.1.6's ESM glue assumes CommonJS under Node and prefers `fetch` whenever it
// exists. webnx always hands the glue a ready instance (js/wasm-loader.mjs, instantiateWasm),
// so the glue's own file reading is not used; these stand-ins only keep its Node branch from
// throwing. No top-level await: bundlers reject it in classic (iife) worker bundles, which
// is how Vite builds `new Worker(...)` by default. (Runs at module scope, outside the factory.)
const __webnxIsNode = typeof process == 'object' && typeof process.versions == 'object' &&
                      typeof process.versions.node == 'string';
var fetch = __webnxIsNode ? undefined : globalThis.fetch;
let __dirname = __webnxIsNode
  ? decodeURIComponent(import.meta.url.replace(/^file:\/\//, '').replace(/[^/]*$/, '')) : undefined;
let require = __webnxIsNode && typeof process.getBuiltinModule == 'function'
  ? process.getBuiltinModule('module').createRequire(import.meta.url) : undefined;
// The threaded build starts its pthread pool with worker_threads at load. Unref'd workers never
// keep Node alive on their own: a script exits when its work is done (and when loading failed),
// while a running computation still holds the process through the blocked main thread.
if (require) {
  const __webnxRequire = require;
  require = function (name) {
    const module = __webnxRequire(name);
    if (name !== 'worker_threads') return module;
    return Object.assign({}, module, {
      Worker: class extends module.Worker {
        constructor(...args) {
          super(...args);
          this.unref();
        }
      },
    });
  };
}
