// Peak memory of a long eval, started the way the README says (`node bin/bas.js eval …`, no
// node flags, on the main thread): a built-in model, so the figure is bas's own and not an
// endpoint's, at 10,000, 100,000 and 200,000 rollouts, and the growth per rollout from 10k to
// 100k and from 100k to 200k. docs/performance.md explains the figures.
// Run directly: `node bench/memory.mjs`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureBas } from './measure.mjs';

async function peak(n) {
  const dir = join(mkdtempSync(join(tmpdir(), 'bas-bench-mem-')), 'run');
  try {
    const m = await measureBas([
      'eval',
      '--model',
      'builtin:oracle',
      '-n',
      String(n),
      '--output',
      dir,
      '--no-progress',
    ]);
    if (m.code !== 0) throw new Error(`bas eval -n ${n} exited with ${m.code}`);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    if (run.summary.counts.completed !== n)
      throw new Error(`bas eval -n ${n} completed ${run.summary.counts.completed}`);
    return m.rssMb;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMemory() {
  const sizes = [10_000, 100_000, 200_000];
  const rss = [];
  for (const n of sizes) rss.push(await peak(n));
  const slope = (a, b) => ((rss[b] - rss[a]) * 1024 * 1024) / (sizes[b] - sizes[a]);
  const early = slope(0, 1);
  const settled = slope(1, 2);
  return [
    ...sizes.map((n, i) => ({
      name: `eval builtin:oracle -n ${n.toLocaleString('en-US')}: peak RSS`,
      value: rss[i],
      unit: 'MB',
      target: n === 100_000 ? '< 150' : '',
      pass: n === 100_000 ? rss[i] < 150 : null,
    })),
    {
      name: '  growth per rollout, 10k to 100k',
      value: early,
      unit: 'B',
      target: '< 100',
      pass: early < 100,
    },
    {
      name: '  growth per rollout, 100k to 200k (heap settled)',
      value: settled,
      unit: 'B',
      target: '< 100',
      pass: settled < 100,
    },
    {
      name: '  goal: 100k under 100 MB',
      value: rss[1],
      unit: 'MB',
      target: '< 100',
      pass: null,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchMemory()) console.log(r.name, r.value.toFixed(1), r.unit, r.target);
}
