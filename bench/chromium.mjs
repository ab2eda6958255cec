// webnx and onnxruntime-web in headless Chromium (Debian's, driven by playwright-core): the bench
// page (web/bench.html) on the repo's static server on 127.0.0.1, the same thread count for both,
// one thread alternating run by run. Prints the page's medians and ratios.
//
// usage: node bench/chromium.mjs [--models mobilenet_v2,field/lstm2,...] [--runs 20] [--warmup 3]
//                                [--threads 1]
import { launchBrowser, openPage, startServer } from '../tests/browser/helpers.mjs';
import { option } from './common.mjs';

const argv = process.argv.slice(2);
const models = option(argv, 'models', 'mobilenet_v2,mobilenet_v3_small,resnet18,field/lstm2,field/gru_bi,field/vad,field/decoder');
const runs = Number(option(argv, 'runs', 20));
const warmup = Number(option(argv, 'warmup', 3));
const threads = Number(option(argv, 'threads', 1));

const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await openPage(browser,
    `${server.url}/web/bench.html?models=${models}&runs=${runs}&warmup=${warmup}&threads=${threads}&autorun=1`);
  page.setDefaultTimeout(0);
  await page.waitForSelector('body[data-state=done], body[data-state=error]', { timeout: 0 });
  if ((await page.getAttribute('body', 'data-state')) !== 'done') throw new Error(await page.textContent('#status'));
  const rows = await page.$$eval('#results tbody tr', (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const agent = await page.evaluate(() => navigator.userAgent.match(/Chrom(e|ium)\/[\d.]+/)?.[0] ?? '');
  console.log(`${agent}, ${threads} thread(s) each, ${runs} timed runs after ${warmup} warm-ups, medians`);
  console.log('model               webnx ms  ort-web ms  webnx/ort-web  max rel diff');
  for (const r of rows) {
    console.log(`${r.model.padEnd(18)} ${Number(r.webnxMs).toFixed(2).padStart(9)}  ${Number(r.ortMs).toFixed(2).padStart(10)}` +
      `  ${Number(r.ratio).toFixed(3).padStart(13)}  ${Number(r.maxDiff).toExponential(1).padStart(12)}`);
  }
  if (page.problems.length) console.log(`page problems: ${page.problems.join('; ')}`);
} finally {
  await browser.close();
  await server.close();
}
