// webnx and onnxruntime-web in headless Chromium (Debian's, driven by playwright-core): the bench
// page (web/bench.html) on the repo's static server on 127.0.0.1, the same thread count for both,
// one thread alternating run by run. The page runs once per webnx build (--simd auto: the relaxed
// build Chromium picks; simd: the plain one), each beside onnxruntime-web. Prints the medians and
// ratios side by side.
//
// quant/<name> times a file of `make quant-models` (its outputs compared with onnxruntime-web's
// on the same file).
//
// usage: node bench/chromium.mjs [--models mobilenet_v2,field/lstm2,quant/resnet18_qdq,...] [--runs 20] [--warmup 3]
//                                [--threads 1] [--simd auto,simd]
import { launchBrowser, openPage, startServer } from '../tests/browser/helpers.mjs';
import { option } from './common.mjs';

const argv = process.argv.slice(2);
const models = option(argv, 'models', 'mobilenet_v2,mobilenet_v3_small,resnet18,field/lstm2,field/gru_bi,field/vad,field/decoder');
const runs = Number(option(argv, 'runs', 20));
const warmup = Number(option(argv, 'warmup', 3));
const threads = Number(option(argv, 'threads', 1));
const builds = option(argv, 'simd', 'auto,simd').split(',');

// One page load: { agent, rows: [{ model, webnxMs, ortMs, ratio, maxDiff, webnxBackend }] }.
async function pageRows(browser, server, simd) {
  const page = await openPage(browser, `${server.url}/web/bench.html?models=${models}&runs=${runs}` +
    `&warmup=${warmup}&threads=${threads}&simd=${simd}&autorun=1`);
  try {
    page.setDefaultTimeout(0);
    await page.waitForSelector('body[data-state=done], body[data-state=error]', { timeout: 0 });
    if ((await page.getAttribute('body', 'data-state')) !== 'done') throw new Error(await page.textContent('#status'));
    const rows = await page.$$eval('#results tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
    const agent = await page.evaluate(() => navigator.userAgent.match(/Chrom(e|ium)\/[\d.]+/)?.[0] ?? '');
    if (page.problems.length) console.log(`page problems (${simd}): ${page.problems.join('; ')}`);
    return { agent, rows };
  } finally {
    await page.close();
  }
}

const server = await startServer();
const browser = await launchBrowser();
try {
  const results = [];
  for (const simd of builds) results.push(await pageRows(browser, server, simd));
  console.log(`${results[0].agent}, ${threads} thread(s) each, ${runs} timed runs after ${warmup} warm-ups, medians;` +
    ' onnxruntime-web timed beside each webnx build');
  const head = results.map((r) => `${`${r.rows[0]?.webnxBackend} ms`.padStart(20)} ${'ort-web ms'.padStart(10)} ${'ratio'.padStart(6)}`);
  console.log(`${'model'.padEnd(18)} ${head.join('  ')}  max rel diff`);
  for (let i = 0; i < results[0].rows.length; i++) {
    const cells = results.map(({ rows }) => `${Number(rows[i].webnxMs).toFixed(2).padStart(20)} ` +
      `${Number(rows[i].ortMs).toFixed(2).padStart(10)} ${Number(rows[i].ratio).toFixed(3).padStart(6)}`);
    const diff = Math.max(...results.map(({ rows }) => Number(rows[i].maxDiff)));
    console.log(`${results[0].rows[i].model.padEnd(18)} ${cells.join('  ')}  ${diff.toExponential(1).padStart(12)}`);
  }
} finally {
  await browser.close();
  await server.close();
}
