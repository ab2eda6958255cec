// Shared by the browser tests: headless Chromium (playwright-core + Debian's chromium, fresh
// profile each launch), the repo's static server on 127.0.0.1, screenshots under build/artifacts.
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { after, before } from 'node:test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer, listen, REPO_MOUNTS } from '../../scripts/serve.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const artifactsDir = path.join(repoRoot, 'build/artifacts');

export async function launchBrowser() {
  const profile = await mkdtemp(path.join(repoRoot, 'build/tmp-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export async function startServer(mounts = REPO_MOUNTS, options) {
  const { server, url } = await listen(createServer(mounts, options));
  return {
    url,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

// One browser and one server (the repository's mounts) for a test file: `browser` and `server`
// are set once its `before` has run, and both closed `after` it.
export function sharedBrowser() {
  const shared = {};
  before(async () => {
    shared.server = await startServer();
    shared.browser = await launchBrowser();
  });
  after(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  return shared;
}

// Run in a page before its scripts: WebAssembly as in an engine without relaxed SIMD (Safari,
// Firefox before 146), which Chromium 156 no longer has a flag for. A module holding
// f32x4.relaxed_madd (bytes fd 85 02; the plain builds hold none) does not validate, compile or
// instantiate.
export const WITHOUT_RELAXED_SIMD = `(() => {
  const W = WebAssembly;
  const relaxed = (bytes) => {
    const b = bytes instanceof ArrayBuffer ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i + 2 < b.length; i++) if (b[i] === 0xfd && b[i + 1] === 0x85 && b[i + 2] === 0x02) return true;
    return false;
  };
  const { validate, compile, instantiate } = W;
  const refuse = () => Promise.reject(new W.CompileError('relaxed SIMD is not enabled'));
  W.validate = (b) => !relaxed(b) && validate.call(W, b);
  W.compile = (b) => (relaxed(b) ? refuse() : compile.call(W, b));
  W.instantiate = (b, imports) => (!(b instanceof W.Module) && relaxed(b) ? refuse() : instantiate.call(W, b, imports));
  W.compileStreaming = async (r) => W.compile(await (await r).arrayBuffer());
  W.instantiateStreaming = async (r, imports) => W.instantiate(await (await r).arrayBuffer(), imports);
})();`;

// A page whose console errors and uncaught exceptions are kept (and echoed when WEBNX_DEBUG is
// set); `initScript` runs before the page's own scripts.
export async function openPage(browser, url, { initScript } = {}) {
  const page = await browser.context.newPage();
  if (initScript) await page.addInitScript(initScript);
  page.problems = [];
  page.on('console', (msg) => {
    if (process.env.WEBNX_DEBUG) console.log(`[page ${msg.type()}] ${msg.text()}`);
    if (msg.type() === 'error' && !/favicon/.test(msg.text()) && !/404 \(Not Found\)/.test(msg.text())) {
      page.problems.push(msg.text());
    }
  });
  page.on('pageerror', (e) => page.problems.push(`uncaught: ${e.message}`));
  page.setDefaultTimeout(60_000);
  await page.goto(url);
  return page;
}

export async function screenshot(page, name) {
  await mkdir(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
