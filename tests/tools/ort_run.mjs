#!/usr/bin/env node
// Runs an ONNX model in ONNX Runtime (CPU) on .npy inputs and writes every output as .npy: the differential
// oracle for tests/realmodels. Usage:
//   node ort_run.mjs --model M.onnx --input NAME=FILE.npy ... --output-dir DIR [--threads N] [--opt-level disabled|basic|extended|all]
// Writes DIR/out<i>.npy and DIR/outputs.json ({"outputs":[{"name","file","dtype","shape"}]}).
// Exits 1 with a message on stderr when ORT refuses the model or an input.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const ort = require(path.join(here, 'ort', 'node_modules', 'onnxruntime-node'));

// npy type code (without byte order) <-> ORT tensor type and typed array.
const TYPES = [
  ['f4', 'float32', Float32Array], ['f2', 'float16', Uint16Array], ['f8', 'float64', Float64Array],
  ['i1', 'int8', Int8Array], ['u1', 'uint8', Uint8Array], ['i2', 'int16', Int16Array], ['u2', 'uint16', Uint16Array],
  ['i4', 'int32', Int32Array], ['u4', 'uint32', Uint32Array], ['i8', 'int64', BigInt64Array],
  ['u8', 'uint64', BigUint64Array], ['b1', 'bool', Uint8Array],
];

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([<|=>])(\w+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) throw new Error(`${file}: unsupported npy header ${header}`);
  if (descr[1] === '>') throw new Error(`${file}: big-endian npy is not supported`);
  const entry = TYPES.find((t) => t[0] === descr[2]);
  if (!entry) throw new Error(`${file}: unsupported dtype ${descr[2]}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const bytes = buf.subarray(start + headerLen);
  const copy = new Uint8Array(bytes.length);  // typed arrays need an aligned, owned buffer
  copy.set(bytes);
  let data = new entry[2](copy.buffer);
  if (entry[1] === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
  return new ort.Tensor(entry[1], data, dims);
}

function writeNpy(file, tensor) {
  const entry = TYPES.find((t) => t[1] === tensor.type);
  if (!entry) throw new Error(`output type ${tensor.type} cannot be written as npy`);
  const order = entry[0].endsWith('1') ? '|' : '<';
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let dict = `{'descr': '${order}${entry[0]}', 'fortran_order': False, 'shape': (${dims}), }`;
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - 10 - 1, ' ') + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(dict.length, 8);
  const data = tensor.data;
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, Buffer.concat([head, Buffer.from(dict, 'latin1'), body]));
  fs.renameSync(tmp, file);
}

function parseArgs(argv) {
  const args = { inputs: {}, threads: 1, optLevel: 'all' };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`missing value after ${key}`);
    if (key === '--model') args.model = value;
    else if (key === '--output-dir') args.outputDir = value;
    else if (key === '--threads') args.threads = Number(value);
    else if (key === '--opt-level') args.optLevel = value;
    else if (key === '--input') {
      const eq = value.lastIndexOf('=');
      if (eq <= 0) throw new Error(`--input wants NAME=FILE.npy, got ${value}`);
      args.inputs[value.slice(0, eq)] = value.slice(eq + 1);
    } else throw new Error(`unknown option ${key}`);
  }
  if (!args.model || !args.outputDir) throw new Error('usage: ort_run.mjs --model M.onnx --input NAME=FILE.npy ... --output-dir DIR');
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const session = await ort.InferenceSession.create(args.model, {
    intraOpNumThreads: args.threads, interOpNumThreads: 1, graphOptimizationLevel: args.optLevel,
    logSeverityLevel: 3,  // errors only: warnings about unused initializers are noise here
  });
  const feeds = {};
  for (const [name, file] of Object.entries(args.inputs)) feeds[name] = readNpy(file);
  const results = await session.run(feeds);
  fs.mkdirSync(args.outputDir, { recursive: true });
  const outputs = session.outputNames.map((name, i) => {
    const file = `out${i}.npy`;
    writeNpy(path.join(args.outputDir, file), results[name]);
    return { name, file, dtype: results[name].type, shape: results[name].dims };
  });
  fs.writeFileSync(path.join(args.outputDir, 'outputs.json'), JSON.stringify({ outputs }, null, 1) + '\n');
}

main().catch((e) => {
  console.error(`ort_run: ${e.message ?? e}`);
  process.exit(1);
});
