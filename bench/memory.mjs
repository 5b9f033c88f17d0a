// Peak memory of a long eval, started the way the README says (`node bin/bas.js eval …`, no
// node flags, everything on the main thread), at the scale the targets are set at (issue 37):
// - a run against `bas serve` (-c 64) of 100,000 rollouts: peak RSS at most 200 MiB, and a
//   flat live heap: a second run of the same with `node --trace-gc` (which changes nothing but
//   what node prints), whose heap after each full collection in the run's second half is, by
//   median, within 1 MiB of the first half's. RSS itself grows by V8's headroom, not by data
//   (docs/performance.md), so its growth from 10,000 rollouts is shown for information;
// - a built-in model at 10,000 and 100,000 rollouts, for information (bas's own figure, no
//   endpoint's).
// `BAS_BENCH_MILLION=1` adds a million rollouts of each, for information (about ten minutes).
// docs/performance.md explains the figures. Run directly: `node bench/memory.mjs` (build first).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, measureBas, median, row, startServe } from './measure.mjs';

const KEY_ENV = { BAS_BENCH_KEY: 'bench-key' };
const MILLION = process.env.BAS_BENCH_MILLION === '1';

/** Peak RSS (MB) of one `bas eval` with these model arguments, checked to have completed every rollout. */
async function peak(n, model) {
  const dir = join(mkdtempSync(join(tmpdir(), 'bas-bench-mem-')), 'run');
  try {
    const args = ['eval', ...model, '-n', String(n), '--output', dir, '--no-progress'];
    const m = await measureBas(args, { env: KEY_ENV });
    if (m.code !== 0) throw new Error(`bas ${args.join(' ')} exited with ${m.code}`);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    if (run.summary.counts.completed !== n)
      throw new Error(`bas eval -n ${n} completed ${run.summary.counts.completed}`);
    return m.rssMb;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The live heap of one `bas eval` through its run: the heap in MB after each full collection,
 * as `node --trace-gc` prints it, and the medians of the first and second halves of them.
 */
async function liveHeap(n, model) {
  const dir = join(mkdtempSync(join(tmpdir(), 'bas-bench-heap-')), 'run');
  try {
    const args = ['--trace-gc', BIN, 'eval', ...model, '-n', String(n), '--output', dir, '--no-progress'];
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        env: { ...process.env, ...KEY_ENV },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.once('error', reject);
      child.once('close', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`bas eval --trace-gc exited with ${code}`)),
      );
    });
    const after = [...out.matchAll(/Mark-Compact[^\n]*?-> ([\d.]+) \(/g)].map((m) => Number(m[1]));
    if (after.length < 4) throw new Error(`bas eval -n ${n}: only ${after.length} full collections`);
    const half = after.length >> 1;
    return { count: after.length, first: median(after.slice(0, half)), second: median(after.slice(half)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMemory() {
  const rows = [];
  const builtin = ['--model', 'builtin:oracle'];
  const sizes = [10_000, 100_000, ...(MILLION ? [1_000_000] : [])];
  const rss = [];
  for (const n of sizes) rss.push(await peak(n, builtin));
  sizes.forEach((n, i) =>
    rows.push(row(`eval builtin:oracle -n ${n.toLocaleString('en-US')}: peak RSS`, rss[i], 'MiB')),
  );

  // Against an endpoint: the requests in flight, the SDK and the sockets, besides the engine.
  const server = await startServe([]);
  try {
    const endpoint = ['-m', 'bench-model', '--base-url', server.url, '--api-key-var', 'BAS_BENCH_KEY', '-c', '64'];
    await peak(500, endpoint); // warms the server's JIT; not a figure
    const small = await peak(10_000, endpoint);
    const large = await peak(100_000, endpoint);
    rows.push(row('eval -c 64 via bas serve -n 10,000: peak RSS', small, 'MiB'));
    rows.push(row('eval -c 64 via bas serve -n 100,000: peak RSS', large, 'MiB', '<= 200', large <= 200));
    rows.push(row('  100,000 against 10,000: RSS growth (V8 headroom)', large - small, 'MiB'));
    const heap = await liveHeap(100_000, endpoint);
    const grew = heap.second - heap.first;
    rows.push(row(`  live heap after full collections, median of 1st half (of ${heap.count})`, heap.first, 'MiB'));
    rows.push(row('  live heap, 2nd half minus 1st half (flat)', grew, 'MiB', '<= 1', grew <= 1));
    if (MILLION) {
      const million = await peak(1_000_000, endpoint);
      rows.push(row('eval -c 64 via bas serve -n 1,000,000: peak RSS', million, 'MiB', 'information', null));
    }
  } finally {
    await server.stop();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchMemory()) console.log(r.name, r.value.toFixed(1), r.unit, r.target);
}
