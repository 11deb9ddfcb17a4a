#!/usr/bin/env node
// Times one ONNX model in ONNX Runtime (CPU): session creation, warm-up, N runs; prints one JSON line
// {"model","threads","createMs","medianUs","minUs","runs","samplesUs","peakRssBytes"}. Inputs are uniform [0,1) floats
// (int inputs zero) with symbolic dims set to 1, like `npuwb-cli profile`.
// Usage: node ort_bench.mjs --model M.onnx [--threads N] [--runs N] [--warmup K] [--profile PREFIX]
// --profile: ORT's own per-node profile of the timed runs, written to PREFIX_<date>.json (the file name is printed
// as "profileFile"); tests/bench/op_compare.py sets it beside ours per op type.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const ort = require(path.join(here, '..', 'tools', 'ort', 'node_modules', 'onnxruntime-node'));

const { values: args } = parseArgs({
  options: { model: { type: 'string' }, threads: { type: 'string', default: '1' },
             runs: { type: 'string', default: '10' }, warmup: { type: 'string', default: '2' },
             profile: { type: 'string' } },
});
if (!args.model) { console.error('--model is required'); process.exit(1); }
const threads = Number(args.threads), runs = Number(args.runs), warmup = Number(args.warmup);

const t0 = process.hrtime.bigint();
const session = await ort.InferenceSession.create(args.model, {
  intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential',
  ...(args.profile ? { enableProfiling: true, profileFilePrefix: args.profile } : {}),
});
const createMs = Number(process.hrtime.bigint() - t0) / 1e6;

// Input shapes and types from the model's metadata (onnxruntime-node >= 1.17 exposes inputMetadata; fall back
// to a shape file written by the caller otherwise).
const feeds = {};
const meta = session.inputMetadata;
const shapes = process.env.NPUWB_BENCH_SHAPES ? JSON.parse(fs.readFileSync(process.env.NPUWB_BENCH_SHAPES, 'utf8')) : {};
for (const name of session.inputNames) {
  let dims = shapes[name]?.shape, type = shapes[name]?.dtype ?? 'float32';
  if (!dims && meta) {
    const m = Array.isArray(meta) ? meta.find((x) => x.name === name) : meta[name];
    dims = m?.shape?.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
    if (m?.type) type = m.type;
  }
  if (!dims) { console.error(`no shape for input ${name}`); process.exit(1); }
  const n = dims.reduce((a, b) => a * b, 1);
  let data;
  if (type === 'float32') { data = new Float32Array(n); for (let i = 0; i < n; ++i) data[i] = Math.random(); }
  else if (type === 'int64') data = new BigInt64Array(n);
  else if (type === 'int32') data = new Int32Array(n);
  else { console.error(`input ${name}: type ${type} not supported by the bench`); process.exit(1); }
  feeds[name] = new ort.Tensor(type, data, dims);
}
for (let i = 0; i < warmup; ++i) await session.run(feeds);
const samples = [];
for (let i = 0; i < runs; ++i) {
  const s = process.hrtime.bigint();
  await session.run(feeds);
  samples.push(Number(process.hrtime.bigint() - s) / 1e3);
}
samples.sort((a, b) => a - b);
// endProfiling() returns nothing in onnxruntime-node (1.22): the file is the newest PREFIX_<date>.json.
const profileFile = args.profile ? newestProfile(session, args.profile) : undefined;
console.log(JSON.stringify({ model: args.model, threads, createMs, medianUs: samples[Math.floor(samples.length / 2)],
  minUs: samples[0], runs, samplesUs: samples, peakRssBytes: process.resourceUsage().maxRSS * 1024,
  ...(profileFile ? { profileFile } : {}) }));

function newestProfile(session, prefix) {
  const named = session.endProfiling();
  if (named) return named;
  const dir = path.dirname(path.resolve(prefix)), base = path.basename(prefix) + '_';
  const files = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'))
    .map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0];
}
