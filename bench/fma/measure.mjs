// The measurements of bench/fma/run.mjs, in whatever engine imports this (Node or a page):
// { peaks: [[name, GFLOP/s]], tiles: [[shape, { tile: GFLOP/s }]], all: { tile: GFLOP/s } }.
// Each function runs once before it is timed (a whole pass), so the timed pass sees optimized code.
const SHAPES = [[24, 144, 3136], [144, 24, 3136], [32, 192, 784], [64, 384, 196], [96, 576, 196],
  [160, 960, 49], [1280, 320, 49]];  // MobileNetV2's 1x1 convs: M = Cout, K = Cin, N = H * W
const TILES = ['4x2', '5x2', '6x2', '3x4'];

function median(times) {
  const s = [...times].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function measurePass(e) {
  const peaks = [];
  for (const kind of ['unfused', 'fused']) {
    for (const n of [8, 10, 12]) {
      const f = e[`peak_${kind}_${n}`], iters = 2_000_000, times = [];
      for (let r = 0; r < 7; r++) { const t = performance.now(); f(iters, 1e-3); times.push(performance.now() - t); }
      peaks.push([`${kind} ${n} accumulators`, iters * n * 8 / Math.min(...times) / 1e6]);
    }
  }
  const base = e.buffer(), heap = new Float32Array(e.memory.buffer, base, 3 << 20);
  for (let i = 0; i < heap.length; i++) heap[i] = (i % 97) / 97 - 0.5;
  const [a, b, c] = [0, 1, 2].map((i) => base + 4 * (i << 20));
  const tiles = [], total = Object.fromEntries(TILES.map((t) => [t, 0]));
  let flopsAll = 0;
  for (const [m0, k, n0] of SHAPES) {
    const m = Math.ceil(m0 / 60) * 60, n = Math.ceil(n0 / 16) * 16, flops = 2 * m * n * k;
    flopsAll += flops;
    const row = {};
    for (const tile of TILES) {
      const f = e[`tile_${tile}`], times = [];
      for (let r = 0; r < 11; r++) { const t = performance.now(); f(m, n, k, a, b, c); times.push(performance.now() - t); }
      total[tile] += median(times);
      row[tile] = flops / median(times) / 1e6;
    }
    tiles.push([`${m0}x${k}x${n0}`, row]);
  }
  const all = Object.fromEntries(TILES.map((t) => [t, flopsAll / total[t] / 1e6]));
  return { peaks, tiles, all };
}

export async function measure(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes);
  measurePass(instance.exports);
  return measurePass(instance.exports);
}
