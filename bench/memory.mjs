// Peak memory of a long eval, started the way the README says (`node bin/bas.js eval …`, no
// node flags, everything on the main thread), as absolute peaks that must not grow with the
// number of rollouts:
// - a built-in model (the figure is bas's own, no endpoint's) at 10,000, 100,000 and 200,000
//   rollouts: at most 128 MB at 200,000;
// - a run against `bas serve` (zero latency, -c 64) at 20,000 and 200,000 rollouts: the larger
//   run peaks no higher than the smaller one.
// `BAS_BENCH_MILLION=1` adds a million rollouts of each (about ten minutes more), against the
// goal of under 100 MB. docs/performance.md explains the figures.
// Run directly: `node bench/memory.mjs` (build first).
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
  const sizes = [10_000, 100_000, 200_000, ...(MILLION ? [1_000_000] : [])];
  const rss = [];
  for (const n of sizes) rss.push(await peak(n, builtin));
  sizes.forEach((n, i) => {
    const name = `eval builtin:oracle -n ${n.toLocaleString('en-US')}: peak RSS`;
    if (n === 200_000) rows.push(row(name, rss[i], 'MiB', '<= 128', rss[i] <= 128));
    else if (n === 1_000_000) rows.push(row(name, rss[i], 'MiB', 'goal < 100', null));
    else rows.push(row(name, rss[i], 'MiB'));
  });
  const slope = (a, b) => ((rss[b] - rss[a]) * 1024 * 1024) / (sizes[b] - sizes[a]);
  rows.push(row('  growth per rollout, 10k to 200k', slope(0, 2), 'B', '< 100', slope(0, 2) < 100));

  // Against an endpoint: the requests in flight, the SDK and the sockets, besides the engine.
  const server = await startServe([]);
  try {
    const endpoint = ['-m', 'bench-model', '--base-url', server.url, '--api-key-var', 'BAS_BENCH_KEY', '-c', '64'];
    await peak(500, endpoint); // warms the server's JIT; not a figure
    const small = await peak(20_000, endpoint);
    const large = await peak(200_000, endpoint);
    rows.push(row('eval -c 64 via bas serve -n 20,000: peak RSS', small, 'MiB'));
    // "No higher": within 1 MB, the spread of one size's peak between runs.
    rows.push(row('eval -c 64 via bas serve -n 200,000: peak RSS', large, 'MiB', '<= 20k run', large <= small + 1));
    if (MILLION) {
      const million = await peak(1_000_000, endpoint);
      rows.push(row('eval -c 64 via bas serve -n 1,000,000: peak RSS', million, 'MiB', 'goal < 100', null));
    }
  } finally {
    await server.stop();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchMemory()) console.log(r.name, r.value.toFixed(1), r.unit, r.target);
}
