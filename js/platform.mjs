// What the code runs on, probed once: Node (process.versions.node) or a browser or worker.
export const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';
