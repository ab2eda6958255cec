// Deterministic uniform floats in [-1, 1) (mulberry32): the CLI's random inputs, the tests'
// and the demo pages' inputs all come from here, so a seed means the same tensor everywhere.
export function seededFloats(count, seed) {
  let a = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}
