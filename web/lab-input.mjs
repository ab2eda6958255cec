// Inputs for the model lab: seeded random tensors for any input, or an image resized and
// normalised per a preset into a [N,C,H,W] (or [N,H,W,C]) float tensor.
import { Tensor } from '../js/index.mjs';
import { seededFloats } from '../js/seeded-floats.mjs';

export const PRESETS = {
  imagenet: { label: 'ImageNet mean/std', mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
  unit: { label: '[0, 1]', mean: [0, 0, 0], std: [1, 1, 1] },
  signed: { label: '[-1, 1]', mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5] },
};

// Concrete dims for a model input: symbolic/unknown batch → 1, image sides → 224, others → 1.
export function concreteDims(meta) {
  const dims = meta.dims ?? [1, 3, 224, 224];
  return dims.map((d, i) => (typeof d === 'number' ? d : dims.length === 4 && i >= 2 ? 224 : 1));
}

function randomTensor(meta, seed) {
  const dims = concreteDims(meta);
  const size = dims.reduce((a, b) => a * b, 1);
  if (meta.type === 'float32') return new Tensor('float32', seededFloats(size, seed), dims);
  if (meta.type === 'int64') return new Tensor('int64', new BigInt64Array(size), dims);
  if (meta.type === 'int32') return new Tensor('int32', new Int32Array(size), dims);
  return new Tensor('bool', new Uint8Array(size), dims);
}

// Where the channels are in a rank-4 image input, or null if it does not look like one.
export function imageLayout(meta) {
  const dims = concreteDims(meta);
  if (meta.type !== 'float32' || dims.length !== 4) return null;
  if (dims[1] === 3 || dims[1] === 1) return { layout: 'NCHW', channels: dims[1], height: dims[2], width: dims[3] };
  if (dims[3] === 3 || dims[3] === 1) return { layout: 'NHWC', channels: dims[3], height: dims[1], width: dims[2] };
  return null;
}

// Centre-crops the image to the input's aspect ratio and resizes it; → { tensor, canvas }.
export function imageTensor(meta, image, presetName) {
  const spec = imageLayout(meta);
  if (!spec) throw new Error(`input '${meta.name}' is not an image-shaped float32 tensor`);
  const { channels, height, width, layout } = spec;
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const scale = Math.max(width / image.width, height / image.height);
  const sw = width / scale;
  const sh = height / scale;
  ctx.drawImage(image, (image.width - sw) / 2, (image.height - sh) / 2, sw, sh, 0, 0, width, height);
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const { mean, std } = PRESETS[presetName];
  const data = new Float32Array(channels * height * width);
  const plane = height * width;
  for (let p = 0; p < plane; p++) {
    const rgb = [rgba[p * 4], rgba[p * 4 + 1], rgba[p * 4 + 2]];
    const values = channels === 3 ? rgb : [(rgb[0] + rgb[1] + rgb[2]) / 3];
    for (let c = 0; c < channels; c++) {
      const v = (values[c] / 255 - mean[c]) / std[c];
      data[layout === 'NCHW' ? c * plane + p : p * channels + c] = v;
    }
  }
  const dims = layout === 'NCHW' ? [1, channels, height, width] : [1, height, width, channels];
  return { tensor: new Tensor('float32', data, dims), canvas };
}

// Feeds for every input: the image for the first image-shaped one when given, random otherwise.
export function makeFeeds(inputs, image, presetName) {
  const feeds = {};
  let preview = null;
  inputs.forEach((meta, i) => {
    if (image && !preview && imageLayout(meta)) {
      const { tensor, canvas } = imageTensor(meta, image, presetName);
      feeds[meta.name] = tensor;
      preview = canvas;
    } else {
      feeds[meta.name] = randomTensor(meta, 1235 + i);
    }
  });
  return { feeds, preview };
}
