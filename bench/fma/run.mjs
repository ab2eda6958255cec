// The FMA peak and GEMM tile shapes for the relaxed builds (issue 26: are wider tiles better
// once the multiply-add is one instruction?), in Node 20 with --experimental-wasm-relaxed-simd
// and in headless Chromium, one thread: GFLOP/s of independent multiply-adds (fused and not) and
// of 4x8, 5x8, 6x8 and 3x16 tiles on MobileNetV2's 1x1-conv shapes (bench/fma/kernels.c, built
// here by clang-16 and wasm-ld-16, which `make setup` installs); in Chromium also MobileNetV2's own
// 1x1 convs in webnx's relaxed and plain builds (bench/fma/model-gemms.mjs), against those peaks.
//
// usage: node bench/fma/run.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_MOUNTS } from '../../scripts/serve.mjs';
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
  const server = await startServer({ ...REPO_MOUNTS, '/bench/': path.join(here, '..'), '/out/': out });
  const browser = await launchBrowser();
  try {
    let page = await openPage(browser, `${server.url}/bench/fma/page.html`);
    const kernels = await page.evaluate(async () => {
      const { measure } = await import('/bench/fma/measure.mjs');
      return measure(await (await fetch('/out/fma-kernels.wasm')).arrayBuffer());
    });
    await page.close();
    const models = [];
    for (const simd of ['relaxed', 'simd']) {  // a page each: the build is chosen once per page
      page = await openPage(browser, `${server.url}/bench/fma/page.html`);
      models.push(await page.evaluate(async (simd) => {
        const { oneByOneGflops } = await import('/bench/fma/model-gemms.mjs');
        return oneByOneGflops('/models/mobilenet_v2.onnx', simd);
      }, simd));
      await page.close();
    }
    return { ...kernels, models };
  } finally {
    await browser.close();
    await server.close();
  }
}

function print(engine, { peaks, tiles, all, models = [] }) {
  console.log(`== ${engine}`);
  for (const [name, gflops] of peaks) console.log(`peak, ${name.padEnd(20)} ${gflops.toFixed(1)} GFLOP/s`);
  const names = Object.keys(all);
  console.log(`${'M x K x N'.padEnd(16)} ${names.map((t) => `tile ${t}`.padStart(10)).join('')}   (GFLOP/s)`);
  for (const [shape, row] of tiles) console.log(`${shape.padEnd(16)} ${names.map((t) => row[t].toFixed(1).padStart(10)).join('')}`);
  console.log(`${'all'.padEnd(16)} ${names.map((t) => all[t].toFixed(1).padStart(10)).join('')}`);
  const peak = (kind) => Math.max(...peaks.filter(([name]) => name.startsWith(kind)).map(([, g]) => g));
  for (const m of models) {
    const of = peak(m.backend.includes('relaxed') ? 'fused' : 'unfused');
    console.log(`MobileNetV2's ${m.convs} pure 1x1 convs in ${m.backend}: ${m.gflops.toFixed(1)} GFLOP/s over ` +
      `${m.ms.toFixed(2)} ms, ${(100 * m.gflops / of).toFixed(0)} % of the peak above`);
  }
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
