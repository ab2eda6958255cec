// A small static server for the demo pages and the browser tests: 127.0.0.1 only, with the
// COOP/COEP headers that make pages cross-origin isolated (SharedArrayBuffer, threads), and
// the MIME types module scripts and streaming wasm compilation need.
//
// usage: node scripts/serve.mjs [--port 8080]        (0 picks a free port)
// Mounts: /web/ → web/, /dist/ → dist/, /js/ → js/, /examples/ → examples/, /bench/ → bench/
//         (the field models' feeds), /models/ → build/models/ (index.json lists the .onnx files), /node_modules/onnxruntime-web/dist/
import http from 'node:http';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const REPO_MOUNTS = {
  '/web/': path.join(repo, 'web'),
  '/dist/': path.join(repo, 'dist'),
  '/js/': path.join(repo, 'js'),
  '/examples/': path.join(repo, 'examples'),
  '/bench/': path.join(repo, 'bench'),
  '/models/': path.join(repo, 'build/models'),
  '/node_modules/onnxruntime-web/dist/': path.join(repo, 'node_modules/onnxruntime-web/dist'),
};

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.svg': 'image/svg+xml', '.onnx': 'application/octet-stream', '.bin': 'application/octet-stream',
  '.map': 'application/json', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

// A real server's 404 is an HTML page; the "got HTML instead of webnx.wasm" check relies on that.
function sendNotFound(res, urlPath, headers) {
  res.writeHead(404, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><title>404</title><h1>Not found</h1><p>${urlPath.replace(/[<>&]/g, '')}</p>`);
}

// build/models/index.json: the models a page can offer, found on disk at request time.
async function modelIndex(dir) {
  const list = [];
  for (const sub of ['', 'testdata/']) {
    const names = await readdir(path.join(dir, sub)).catch(() => []);
    for (const name of names.sort()) {
      if (!name.endsWith('.onnx')) continue;
      const { size } = await stat(path.join(dir, sub, name));
      list.push({ name: sub + name, size });
    }
  }
  return list;
}

// mounts: { '/prefix/': '/abs/dir', … }; '/' redirects to `home`. isolated: false leaves out
// COOP/COEP, as on most hosting, to check the single-threaded fallback; headers are added to
// every response (say a Content-Security-Policy).
export function createServer(mounts = REPO_MOUNTS, { home = '/web/', isolated = true, headers = {} } = {}) {
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  const HEADERS = { ...(isolated ? ISOLATION_HEADERS : { 'Cache-Control': 'no-store' }), ...headers };
  const notFound = (res, urlPath) => sendNotFound(res, urlPath, HEADERS);
  return http.createServer(async (req, res) => {
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
    } catch {
      return notFound(res, '');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, HEADERS);
      return res.end();
    }
    if (urlPath === '/' && home !== '/') {
      res.writeHead(302, { ...HEADERS, Location: home });
      return res.end();
    }
    if (mounts['/models/'] && urlPath === '/models/index.json') {
      const body = JSON.stringify(await modelIndex(mounts['/models/']));
      res.writeHead(200, { ...HEADERS, 'Content-Type': 'application/json' });
      return res.end(body);
    }
    const prefix = prefixes.find((p) => urlPath.startsWith(p));
    if (!prefix) return notFound(res, urlPath);
    const root = mounts[prefix];
    let file = path.join(root, urlPath.slice(prefix.length));
    if (file !== root && !file.startsWith(root + path.sep)) return notFound(res, urlPath); // no ../ escapes
    let info = await stat(file).catch(() => null);
    if (info?.isDirectory()) {
      file = path.join(file, 'index.html');
      info = await stat(file).catch(() => null);
    }
    if (!info?.isFile()) return notFound(res, urlPath);
    res.writeHead(200, {
      ...HEADERS,
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': info.size,
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
}

// Resolves to { server, url } once listening on 127.0.0.1.
export function listen(server, port = 0) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port');
  const port = i >= 0 ? Number(process.argv[i + 1]) : 8080;
  const { url } = await listen(createServer(), port);
  console.log(`serving the webnx demos at ${url}/web/ (digits.html, lab.html, bench.html); Ctrl-C stops`);
}
