#!/usr/bin/env node
// The webnx command line.
//   webnx convert model.onnx model.json [--to onnx-json|webnx-graph] [--bin weights.bin]
//                 [--threshold bytes] [--pretty]
//   webnx convert model.json model.onnx
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onnxJsonToOnnx, onnxToOnnxJson, onnxToWebnxGraph } from './convert.mjs';
// check, run, bench and quantize live in cli-commands.mjs; they resolve to an exit code.
import { COMMANDS as MODEL_COMMANDS, USAGE as MODEL_USAGE } from './cli-commands.mjs';

const USAGE = `usage:
  webnx convert <model.onnx> <model.json> [--to onnx-json|webnx-graph] [--bin <file>]
                [--threshold <bytes>] [--pretty]
      ONNX -> JSON. onnx-json (default) is protobuf's JSON mapping of the model; webnx-graph
      is the webnx DSL, with tensors over --threshold bytes (default 4096) in a side file
      (default <model>.bin) next to the output.
  webnx convert <model.json> <model.onnx>
      ONNX-JSON -> ONNX.`;

function parseArgs(args) {
  const positional = [];
  const flags = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--pretty') flags.pretty = true;
    else if (a.startsWith('--')) {
      if (i + 1 >= args.length) throw new Error(`${a} needs a value`);
      flags[a.slice(2)] = args[++i];
    } else positional.push(a);
  }
  return { positional, flags };
}

function isJson(bytes) {
  let i = bytes[0] === 0xef ? 3 : 0;
  while (i < bytes.length && ' \t\r\n'.includes(String.fromCharCode(bytes[i]))) i++;
  return bytes[i] === 0x7b;
}

async function convert(args) {
  const { positional, flags } = parseArgs(args);
  if (positional.length !== 2) throw new Error(USAGE);
  const [input, output] = positional;
  const bytes = new Uint8Array(await readFile(input));
  if (isJson(bytes)) {
    if (!/\.onnx$/i.test(output)) throw new Error('a JSON model converts to .onnx');
    const onnx = onnxJsonToOnnx(new TextDecoder().decode(bytes));
    await writeFile(output, onnx);
    console.log(`wrote ${output} (${onnx.length} bytes)`);
    return;
  }
  const to = flags.to ?? 'onnx-json';
  const space = flags.pretty ? 1 : undefined;
  if (to === 'onnx-json') {
    const text = JSON.stringify(onnxToOnnxJson(bytes), null, space);
    await writeFile(output, text);
    console.log(`wrote ${output} (${text.length} bytes)`);
  } else if (to === 'webnx-graph') {
    const binName = flags.bin ?? `${path.basename(output, path.extname(output))}.bin`;
    const threshold = flags.threshold === undefined ? 4096 : Number(flags.threshold);
    if (!Number.isInteger(threshold) || threshold < 0) throw new Error('--threshold takes a byte count');
    const { doc, bin } = onnxToWebnxGraph(bytes, { binName, threshold });
    const text = JSON.stringify(doc, null, space);
    await writeFile(output, text);
    console.log(`wrote ${output} (${text.length} bytes)`);
    if (bin) {
      const binPath = path.join(path.dirname(output), binName);
      await writeFile(binPath, bin);
      console.log(`wrote ${binPath} (${bin.length} bytes)`);
    }
  } else {
    throw new Error(`--to is onnx-json or webnx-graph, got '${to}'`);
  }
}

const COMMANDS = { convert, ...MODEL_COMMANDS };

async function main(argv) {
  const [command, ...rest] = argv;
  const run = COMMANDS[command];
  if (!run) {
    console.error([USAGE, ...Object.values(MODEL_USAGE).map((u) => u.replace(/^/gm, '  '))].join('\n'));
    return command === undefined || command === '--help' ? 0 : 2;
  }
  try {
    return (await run(rest)) ?? 0;
  } catch (e) {
    console.error(`webnx ${command}: ${e.message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
