// Under Node, resolve the .wasm as a plain file path next to the glue (not a file:// URL).
if (typeof process == 'object' && typeof process.versions == 'object' &&
    typeof process.versions.node == 'string' && !Module['locateFile']) {
  Module['locateFile'] = function (path, dir) { return dir + path; };
}
