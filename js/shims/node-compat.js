// Emscripten 3.1.6's ESM glue assumes CommonJS under Node and prefers `fetch` whenever it
// exists. Under Node we give it `require`/`__dirname` and hide `fetch`, so it reads the .wasm
// from disk; in browsers nothing changes. (Runs at module scope, outside the factory.)
const __webnxIsNode = typeof process == 'object' && typeof process.versions == 'object' &&
                      typeof process.versions.node == 'string';
let require, __dirname;
var fetch = __webnxIsNode ? undefined : globalThis.fetch;
if (__webnxIsNode) {
  require = (await import('node:module')).createRequire(import.meta.url);
  __dirname = (await import('node:url')).fileURLToPath(new URL('.', import.meta.url));
}
