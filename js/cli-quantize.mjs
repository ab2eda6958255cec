// `webnx quantize in.onnx out.onnx --mode dynamic|qdq [--calibration DIR | --random N]`:
// js/quantize.mjs on files, with calibration samples read from a directory of .npy files.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WebnxError } from './errors.mjs';
import { readModelBytes } from './fetch-model.mjs';
import { inspectModel } from './inspect.mjs';
import { parseBindings, parseNpy } from './cli-inputs.mjs';
import { MODES, quantize as quantizeBytes } from './quantize.mjs';

export const USAGE = 'webnx quantize <in.onnx> <out.onnx> --mode dynamic|qdq [--calibration DIR | --random N]\n' +
  '               [--seed N] [--dim NAME=SIZE]...\n' +
  '  int8 weights (symmetric, per output channel) for Conv, MatMul and Gemm with constant weights.\n' +
  '  dynamic: ConvInteger/MatMulInteger; activations are quantized at run time (no calibration).\n' +
  '  qdq: QuantizeLinear/DequantizeLinear pairs, activation ranges calibrated in webnx on DIR:\n' +
  '    DIR/*.npy, one sample per file (single-input models), or DIR/<sample>/<input name>.npy;\n' +
  '    else on N seeded random samples in [-1, 1) (default --random 8). docs/quantize.md.';

const kb = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);

// A .npy file's name for an input: the name itself, or with characters a file name cannot
// hold (or that are awkward in one) replaced by '_'.
const fileNames = (input) => [...new Set([`${input}.npy`, `${input.replace(/[^A-Za-z0-9._-]/g, '_')}.npy`])];

async function listDir(dir) {
  try {
    return (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  } catch (e) {
    throw new WebnxError('InvalidArgument', `cannot read calibration directory '${dir}': ${e.message}`);
  }
}

async function readNpy(file) {
  let bytes;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    throw new WebnxError('InvalidArgument', `cannot read calibration sample '${file}': ${e.message}`);
  }
  return parseNpy(bytes, file);
}

// One sample (feeds) from DIR/<sample>/: a .npy file per input.
async function sampleFromDir(dir, inputs) {
  const names = new Set((await listDir(dir)).map((e) => e.name));
  const feeds = {};
  for (const input of inputs) {
    const file = fileNames(input).find((f) => names.has(f));
    if (!file) throw new WebnxError('InvalidArgument', `calibration sample '${dir}' has no ${fileNames(input).join(' or ')}`);
    feeds[input] = await readNpy(path.join(dir, file));
  }
  return feeds;
}

// The samples of a calibration directory, read one at a time: DIR/*.npy (a single-input model)
// and DIR/<sample>/<input>.npy, in name order. Checks the layout before the first is read.
// `source.current` names the file or directory of the sample last read (for error messages).
export async function readCalibrationDir(dir, inputs, source = {}) {
  const entries = await listDir(dir);
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.npy')).map((e) => path.join(dir, e.name));
  const dirs = entries.filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
  if (files.length && inputs.length !== 1) {
    throw new WebnxError('InvalidArgument', `the model has ${inputs.length} inputs (${inputs.join(', ')}): ` +
      `give each sample as ${dir}/<sample>/<input name>.npy`);
  }
  if (!files.length && !dirs.length) throw new WebnxError('InvalidArgument', `no .npy samples in '${dir}'`);
  return (async function* samples() {
    for (const file of files) {
      source.current = file;
      yield { [inputs[0]]: await readNpy(file) };
    }
    for (const sub of dirs) {
      source.current = sub;
      yield sampleFromDir(sub, inputs);
    }
  })();
}

class UsageError extends Error {}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true, options: {
        mode: { type: 'string' }, calibration: { type: 'string' }, random: { type: 'string' },
        seed: { type: 'string', default: '1' }, dim: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  if (positionals.length !== 2) throw new UsageError('takes an input and an output model');
  if (!MODES.includes(values.mode)) throw new UsageError(`--mode is dynamic or qdq${values.mode ? `, got '${values.mode}'` : ''}`);
  if (values.mode === 'dynamic' && (values.calibration || values.random)) throw new UsageError('--calibration and --random are for --mode qdq');
  if (values.calibration && values.random) throw new UsageError('give --calibration or --random, not both');
  const random = values.random === undefined ? undefined : Number(values.random);
  if (random !== undefined && !(Number.isInteger(random) && random > 0)) throw new UsageError(`--random takes a sample count, got '${values.random}'`);
  if (!/^\d+$/.test(values.seed)) throw new UsageError(`--seed takes a non-negative integer, got '${values.seed}'`);
  return { input: positionals[0], output: positionals[1], ...values, random, seed: Number(values.seed) };
}

function printReport(report, args, inBytes, outBytes) {
  for (const w of report.warnings) console.error(`webnx quantize: warning: ${w}`);
  const byOp = {};
  for (const q of report.quantized) byOp[`${q.op} -> ${q.as}`] = (byOp[`${q.op} -> ${q.as}`] ?? 0) + 1;
  const total = report.quantized.length + report.skipped.length;
  console.log(`quantized ${report.quantized.length} of ${total} Conv/MatMul/Gemm nodes (${args.mode})` +
    `${Object.keys(byOp).length ? `: ${Object.entries(byOp).map(([k, n]) => `${n} ${k}`).join(', ')}` : ''}`);
  if (report.calibrationSamples) console.log(`calibrated on ${report.calibrationSamples} sample(s)`);
  console.log(`wrote ${args.output} (${kb(outBytes.length)}; the float model is ${kb(inBytes.length)})`);
}

export async function quantize(argv) {
  let args;
  try {
    args = parse(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`webnx quantize: ${e.message}\nusage: ${USAGE}`);
    return 2;
  }
  if (!args) {
    console.log(`usage: ${USAGE}`);
    return 0;
  }
  const bytes = await readModelBytes(args.input);
  const options = { mode: args.mode, seed: args.seed, dims: parseBindings(args.dim), randomSamples: args.random };
  const source = {};
  if (args.calibration) options.samples = await readCalibrationDir(args.calibration, inspectModel(bytes).inputs.map((i) => i.name), source);
  const { model, report } = await quantizeBytes(bytes, options).catch((e) => {
    if (source.current && /calibration sample \d+:/.test(e.message)) e.message = `${e.message} (${source.current})`;
    throw e;
  });
  try {
    await writeFile(args.output, model);
  } catch (e) {
    throw new WebnxError('InvalidArgument', `cannot write '${args.output}': ${e.message}`);
  }
  printReport(report, args, bytes, model);
  return 0;
}
