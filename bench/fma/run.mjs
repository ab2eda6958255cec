// The FMA peak and GEMM tile shapes for the relaxed builds (issue 26: are wider tiles better
// once the multiply-add is one instruction?), in Node 20 with --experimental-wasm-relaxed-simd
// and in headless Chromium, one thread: GFLOP/s of independent multiply-adds (fused and not) and
// of 4x8, 5x8, 6x8 and 3x16 tiles on MobileNetV2's 1x1-conv shapes (bench/fma/kernels.c, built
// here by clang-16 and wasm-ld-16, which `make setup` installs).
//
// usage: node bench/fma/run.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, openPage, startServer } from '../../tests/browser/helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, '../../build/bench');
const wasm = path.join(out, 'fma-kernels.wasm');

function build() {
  mkdirSync(out, { recursive: true });
  const object = path.join(out, 'fma-kernels.o');
  execFileSync('clang-16', ['--target=wasm32', '-O2', '-msimd128', '-mrelaxed-simd', '-c', '-o', object,
    path.join(here, 'kernels.c')]);
  execFileSync('wasm-ld-16', ['--no-entry', '--export-memory', '-o', wasm, object]);
}

async function inChromium() {
  const server = await startServer({ '/fma/': here, '/out/': out });
  const browser = await launchBrowser();
  try {
    const page = await openPage(browser, `${server.url}/fma/page.html`);
    return await page.evaluate(async () => {
      const { measure } = await import('/fma/measure.mjs');
      return measure(await (await fetch('/out/fma-kernels.wasm')).arrayBuffer());
    });
  } finally {
    await browser.close();
    await server.close();
  }
}

function print(engine, { peaks, tiles, all }) {
  console.log(`== ${engine}`);
  for (const [name, gflops] of peaks) console.log(`peak, ${name.padEnd(20)} ${gflops.toFixed(1)} GFLOP/s`);
  const names = Object.keys(all);
  console.log(`${'M x K x N'.padEnd(16)} ${names.map((t) => `tile ${t}`.padStart(10)).join('')}   (GFLOP/s)`);
  for (const [shape, row] of tiles) console.log(`${shape.padEnd(16)} ${names.map((t) => row[t].toFixed(1).padStart(10)).join('')}`);
  console.log(`${'all'.padEnd(16)} ${names.map((t) => all[t].toFixed(1).padStart(10)).join('')}`);
}

if (process.argv[2] === '--node-child') {
  const { measure } = await import('./measure.mjs');
  process.stdout.write(JSON.stringify(await measure(readFileSync(wasm))));
} else {
  build();
  const node = JSON.parse(execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', fileURLToPath(import.meta.url), '--node-child']));
  print(`Node ${process.version} (--experimental-wasm-relaxed-simd)`, node);
  print('Chromium', await inChromium());
}
