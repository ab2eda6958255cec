// webnx/ort's image conversions (js/ort-image.mjs) against onnxruntime-web's own Tensor in the
// same Chromium page, on the same images: Tensor.fromImage from ImageData, an HTMLImageElement,
// an ImageBitmap and a URL, with norm, tensorFormat and resized sizes; toImageData and toDataURL
// with formats, norm and layouts; the same errors where onnxruntime-web has them. Equal means
// equal: the same data, element for element, and the same data URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, sharedBrowser } from './helpers.mjs';

const shared = sharedBrowser();

// Runs every case with both Tensor classes in the page: { name: [webnx result, ort result] }.
async function bothInPage() {
  const page = await openPage(shared.browser, `${shared.server.url}/web/style.css`);
  try {
    return await page.evaluate(async () => {
      const webnx = (await import('/js/ort.mjs')).Tensor;
      const ort = (await import('/node_modules/onnxruntime-web/dist/ort.min.mjs')).Tensor;
      let seed = 11;
      const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
      const pixels = new Uint8ClampedArray(5 * 4 * 4).map((_, i) => (i % 4 === 3 ? (i % 3 ? 255 : 128) : random() * 256));
      const imageData = new ImageData(pixels, 5, 4);
      const canvas = document.createElement('canvas');
      canvas.width = 5;
      canvas.height = 4;
      canvas.getContext('2d').putImageData(new ImageData(pixels.map((v, i) => (i % 4 === 3 ? 255 : v)), 5, 4), 0, 0);
      const url = canvas.toDataURL();
      const element = new Image();
      element.src = url;
      await element.decode();
      const bitmap = await createImageBitmap(imageData);
      const norm = { mean: [2, 3, 4], bias: [0.5, -1, 2] };
      const fromImage = {
        'ImageData': [imageData],
        'ImageData, norm, BGR': [imageData, { norm, tensorFormat: 'BGR' }],
        'ImageData, RGBA, scalar norm': [imageData, { tensorFormat: 'RGBA', norm: { mean: 127.5, bias: -127.5 } }],
        'ImageData, RBG, resized': [imageData, { tensorFormat: 'RBG', resizedWidth: 3, resizedHeight: 6 }],
        'HTMLImageElement': [element],
        'HTMLImageElement, resized': [element, { resizedWidth: 2, resizedHeight: 3 }],
        'HTMLImageElement, tensorFormat (an error)': [element, { tensorFormat: 'RGB' }],
        'ImageBitmap': [bitmap, { norm }],
        'ImageBitmap without options (an error)': [bitmap],
        'URL': [url, { tensorFormat: 'BGR' }],
        'NHWC (an error)': [imageData, { tensorLayout: 'NHWC' }],
      };
      const out = {};
      const settle = async (f) => {
        try {
          const v = await f();
          return v instanceof ImageData ? { width: v.width, height: v.height, data: Array.from(v.data) }
            : typeof v === 'string' ? v : { type: v.type, dims: v.dims, data: Array.from(v.data) };
        } catch (e) {
          return 'error';
        }
      };
      for (const [name, args] of Object.entries(fromImage)) {
        out[`fromImage: ${name}`] = [await settle(() => webnx.fromImage(...args)), await settle(() => ort.fromImage(...args))];
      }
      // One tensor's data for both classes.
      const planar = (c, h, w) => {
        const data = Float32Array.from({ length: c * h * w }, () => random());
        return [new webnx('float32', data, [1, c, h, w]), new ort('float32', data, [1, c, h, w])];
      };
      const rgb = planar(3, 4, 5), rgba = planar(4, 3, 3), wide = planar(3, 2, 6);
      const conversions = {
        'toImageData': [rgb, undefined],
        'toImageData, BGR': [rgb, { format: 'BGR', norm: { mean: 200, bias: 0.1 } }],
        'toImageData, RGBA': [rgba, { format: 'RGBA', norm: { mean: [255, 200, 100, 255], bias: [0, 0.1, 0.2, 0] } }],
        'toImageData, RGB on 4 channels (an error)': [rgba, { format: 'RGB' }],
        'toImageData, NHWC': [wide, { tensorLayout: 'NHWC', format: 'RGB' }],
        'toDataURL': [rgb, undefined],
        'toDataURL, RBG': [rgb, { format: 'RBG', norm: { mean: [250, 240, 230] } }],
        'toDataURL, RGBA': [rgba, { format: 'RGBA' }],
      };
      for (const [name, [pair, options]] of Object.entries(conversions)) {
        const method = name.startsWith('toImageData') ? 'toImageData' : 'toDataURL';
        out[name] = [await settle(() => pair[0][method](options)), await settle(() => pair[1][method](options))];
      }
      return out;
    });
  } finally {
    await page.close();
  }
}

test('fromImage, toImageData and toDataURL give what onnxruntime-web gives on the same images', async () => {
  const cases = await bothInPage();
  assert.ok(Object.keys(cases).length >= 19);
  for (const [name, [ours, theirs]] of Object.entries(cases)) {
    assert.deepEqual(ours, theirs, name);
    if (!name.includes('error')) assert.notEqual(ours, 'error', name);
  }
});
