// Peak memory of a long eval, started the way the README says (`node bin/bas.js eval …`, no
// node flags, everything on the main thread), at the scale the targets are set at (issue 37):
// - a run against `bas serve` (-c 64) of 100,000 rollouts: peak RSS at most 200 MiB, and no
//   more than 1 MiB above a 10,000-rollout run's (the live heap does not grow with the run);
// - a built-in model at 10,000 and 100,000 rollouts, for information (bas's own figure, no
//   endpoint's).
// `BAS_BENCH_MILLION=1` adds a million rollouts of each, for information (about ten minutes).
// docs/performance.md explains the figures. Run directly: `node bench/memory.mjs` (build first).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureBas, row, startServe } from './measure.mjs';

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
    // Flat: within 1 MiB of the small run, the spread of one size's peak between runs.
    rows.push(row('  100,000 against 10,000: growth', large - small, 'MiB', '<= 1', large <= small + 1));
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
