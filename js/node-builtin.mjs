// Node built-ins, loaded so that bundlers do not see them: browser bundles then carry no
// node:* stubs and print no "externalized for browser compatibility" warnings.
export async function nodeBuiltin(name) {
  if (typeof process === 'object' && typeof process.getBuiltinModule === 'function') {
    return process.getBuiltinModule(name); // Node >= 20.16: synchronous, no import() at all
  }
  return import(/* webpackIgnore: true */ /* @vite-ignore */ `node:${name}`);
}
