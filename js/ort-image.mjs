// Images to tensors and back for webnx/ort (js/ort.mjs): Tensor.fromImage, toImageData and
// toDataURL with what onnxruntime-common 1.30 observably does, libraries depending on it as it
// is (tests/browser/ort-image.test.mjs compares the two on the same images):
// - fromImage: a float32 [1, C, H, W] tensor of (pixel + bias) / mean per channel (norm defaults:
//   mean 255, bias 0; a 4th value defaults to mean 255, bias 0), C planes in tensorFormat's order
//   ('RGB' by default; 'RBG', 'BGR', 'RGBA'); an HTMLImageElement always gives 'RGBA' (naming
//   another tensorFormat is an error); resizedWidth/resizedHeight crop or pad, they do not scale;
//   NHWC is an error.
// - toImageData / toDataURL: each pixel (value - bias) * mean from planar data ('RGB' or 'RBG'
//   order, alpha 255 without a 4th plane); tensorLayout 'NHWC' only changes which dims are width
//   and height.
// The caller's options object is left as it was.

function canvasOf(width, height) {
  const canvas = typeof document !== 'undefined' ? document.createElement('canvas') : new OffscreenCanvas(1, 1);
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('Can not access image data');
  return { canvas, context };
}

// [four values] from a number or an array of three or four, the 4th defaulting to `fourth`.
function perChannel(value, fallback, fourth) {
  if (value === undefined) return [fallback, fallback, fallback, fallback];
  if (typeof value === 'number') return [value, value, value, value];
  return [value[0], value[1], value[2], value[3] ?? fourth];
}

const PLANE_ORDER = { RGB: [0, 1, 2], RBG: [0, 2, 1], BGR: [2, 1, 0], RGBA: [0, 1, 2, 3] };

// Pixels (RGBA or RGB, interleaved) as a planar float32 tensor.
function pixelsToTensor(pixels, width, height, options, makeTensor) {
  if (options.tensorLayout === 'NHWC') throw new Error('NHWC Tensor layout is not supported yet');
  const mean = perChannel(options.norm?.mean, 255, 255);
  const bias = perChannel(options.norm?.bias, 0, 0);
  const step = (options.format ?? 'RGBA') === 'RGB' ? 3 : 4;
  const format = options.tensorFormat ?? 'RGB';
  const planes = PLANE_ORDER[format] ?? PLANE_ORDER.RGB;  // channel c goes to plane planes[c]
  const channels = format === 'RGBA' ? 4 : 3;
  const stride = width * height;
  const data = new Float32Array(stride * channels);
  for (let i = 0; i < stride; i++) {
    for (let c = 0; c < channels; c++) {
      if (c === 3 && step === 3) continue;
      data[planes[c] * stride + i] = (pixels[i * step + c] + bias[c]) / mean[c];
    }
  }
  return makeTensor('float32', data, [1, channels, height, width]);
}

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.crossOrigin = 'Anonymous';
    image.onload = () => resolve(image);
    image.onerror = reject;
    image.src = url;
  });
}

const is = (name, value) => typeof globalThis[name] !== 'undefined' && value instanceof globalThis[name];

export async function tensorFromImage(image, options, makeTensor) {
  const resized = options?.resizedWidth !== undefined && options?.resizedHeight !== undefined;
  if (is('HTMLImageElement', image)) {
    if (options?.tensorFormat !== undefined) throw new Error('Image input config format must be RGBA for HTMLImageElement');
    const width = resized ? options.resizedWidth : image.width, height = resized ? options.resizedHeight : image.height;
    const { context } = canvasOf(image.width, image.height);
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, width, height).data;
    return pixelsToTensor(pixels, width, height, { ...options, tensorFormat: 'RGBA' }, makeTensor);
  }
  if (is('ImageData', image)) {
    const width = resized ? options.resizedWidth : image.width, height = resized ? options.resizedHeight : image.height;
    let pixels = image.data;
    if (options !== undefined) {  // through a canvas of the (resized) size, as onnxruntime does
      const { context } = canvasOf(width, height);
      context.putImageData(image, 0, 0);
      pixels = context.getImageData(0, 0, width, height).data;
    }
    return pixelsToTensor(pixels, width, height, { ...options, format: 'RGBA' }, makeTensor);
  }
  if (is('ImageBitmap', image)) {
    if (options === undefined) throw new Error('Please provide image config with format for Imagebitmap');
    const { context } = canvasOf(image.width, image.height);
    context.drawImage(image, 0, 0, image.width, image.height);
    const pixels = context.getImageData(0, 0, image.width, image.height).data;
    return pixelsToTensor(pixels, image.width, image.height, options, makeTensor);
  }
  if (typeof image === 'string') {
    const loaded = await loadImage(image);
    const { context } = canvasOf(loaded.width, loaded.height);
    context.drawImage(loaded, 0, 0, loaded.width, loaded.height);
    const pixels = context.getImageData(0, 0, loaded.width, loaded.height).data;
    return pixelsToTensor(pixels, loaded.width, loaded.height, options ?? {}, makeTensor);
  }
  throw new Error('Input data provided is not supported - aborted tensor creation');
}

// Each pixel's (R, G, B, A) from planar data, (value - bias) * mean.
function forEachPixel(tensor, stride, format, mean, bias, visit) {
  const order = format === 'RBG' ? [0, 2, 1] : [0, 1, 2];
  const alpha = format === 'RGBA';
  for (let i = 0; i < stride; i++) {
    const v = (c) => (tensor.data[order[c] * stride + i] - bias[c]) * mean[c];
    visit(i, v(0), v(1), v(2), alpha ? (tensor.data[3 * stride + i] - bias[3]) * mean[3] : 255);
  }
}

export function tensorToImageData(tensor, options) {
  const nhwc = options?.tensorLayout === 'NHWC';
  const width = nhwc ? tensor.dims[2] : tensor.dims[3];
  const height = nhwc ? tensor.dims[1] : tensor.dims[2];
  const channels = nhwc ? tensor.dims[3] : tensor.dims[1];
  const format = options?.format ?? 'RGB';
  if (options !== undefined && ((options.format !== undefined && channels === 4 && options.format !== 'RGBA') ||
      (channels === 3 && options.format !== 'RGB' && options.format !== 'BGR'))) {
    throw new Error("Tensor format doesn't match input tensor dims");
  }
  const { context } = canvasOf(1, 1);
  const image = context.createImageData(width, height);
  forEachPixel(tensor, width * height, format, perChannel(options?.norm?.mean, 255, 255),
    perChannel(options?.norm?.bias, 0, 0), (i, r, g, b, a) => {
      image.data[4 * i] = r;
      image.data[4 * i + 1] = g;
      image.data[4 * i + 2] = b;
      image.data[4 * i + 3] = a;
    });
  return image;
}

export function tensorToDataURL(tensor, options) {
  const nhwc = options?.tensorLayout === 'NHWC';
  const width = nhwc ? tensor.dims[2] : tensor.dims[3];
  const height = nhwc ? tensor.dims[3] : tensor.dims[2];
  const { canvas, context } = canvasOf(tensor.dims[3], tensor.dims[2]);
  // Here an array's 4th mean and bias default to 0.
  forEachPixel(tensor, width * height, options?.format ?? 'RGB', perChannel(options?.norm?.mean, 255, 0),
    perChannel(options?.norm?.bias, 0, 0), (i, r, g, b, a) => {
      context.fillStyle = `rgba(${r},${g},${b},${a})`;
      context.fillRect(i % width, Math.floor(i / width), 1, 1);
    });
  if (!('toDataURL' in canvas)) throw new Error('toDataURL is not supported');
  return canvas.toDataURL();
}
