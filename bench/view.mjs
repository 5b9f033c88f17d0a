// Benchmark: `bas view` on a generated folder of a million rollouts. Measures, over loopback
// HTTP against the real server (a child process): building the rollout index (the first page
// of the list), opening the run's summary the first time (the report's fold over the file) and
// again, a filter over every rollout, the farthest rollout, and the server's peak resident
// memory (VmHWM). Exported for bench/run.mjs; also runnable alone: `node bench/view.mjs`
// (after `npm run build`). BAS_BENCH_VIEW_ROLLOUTS sets a smaller folder for a quick look.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './measure.mjs';
import { writeSyntheticRun } from './synthetic-run.mjs';

const ROLLOUTS = Number(process.env.BAS_BENCH_VIEW_ROLLOUTS ?? 1_000_000);
/** The bounds: a run opens, and any rollout shows, in under a second; the server stays under 200 MB. */
const TARGET_S = 1;
const TARGET_MB = 200;
async function timed(url, path) {
  const t = process.hrtime.bigint();
  const res = await fetch(`${url}${path}`);
  const body = await res.json();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return [Number(process.hrtime.bigint() - t) / 1e9, body];
}

function peakMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export async function benchView() {
  const root = mkdtempSync(join(tmpdir(), 'bas-bench-view-'));
  const run = join(root, 'big');
  try {
    const { mkdirSync, statSync } = await import('node:fs');
    mkdirSync(run);
    writeSyntheticRun(run, ROLLOUTS);
    const mb = statSync(join(run, 'results.jsonl')).size / 1024 / 1024;
    const server = await startServer('view', [root]);
    try {
      const q = '/api/rollouts?run=big&limit=50';
      const [build, first] = await timed(server.url, q);
      if (first.total !== ROLLOUTS) throw new Error(`the index holds ${first.total} rollouts, not ${ROLLOUTS}`);
      const [list] = await timed(server.url, `${q}&offset=${ROLLOUTS - 50}`);
      const [filter, filtered] = await timed(
        server.url,
        `${q}&missed=duplicate_invoice&reward_min=0.5&consistency=inconsistent`,
      );
      const [far] = await timed(server.url, `/api/rollout?run=big&index=${ROLLOUTS - 1}`);
      const [runs] = await timed(server.url, '/api/runs');
      const rss = peakMb(server.pid);
      // The summary last: the report's fold over a million tasks is what takes memory.
      const [summaryCold] = await timed(server.url, '/api/run?run=big');
      const [summaryWarm] = await timed(server.url, '/api/run?run=big');
      const rssAll = peakMb(server.pid);
      const n = ROLLOUTS.toLocaleString('en-US');
      return [
        { name: `results.jsonl of ${n} rollouts`, value: mb, unit: 'MB', target: null, pass: null },
        { name: 'index build (first page of the rollout list)', value: build, unit: 's', target: null, pass: null },
        {
          name: 'last page of the rollout list (index built)',
          value: list,
          unit: 's',
          target: `< ${TARGET_S}`,
          pass: list < TARGET_S,
        },
        {
          name: `filter over all rollouts (${filtered.matching.toLocaleString('en-US')} match)`,
          value: filter,
          unit: 's',
          target: `< ${TARGET_S}`,
          pass: filter < TARGET_S,
        },
        { name: 'the farthest rollout, whole', value: far, unit: 's', target: `< ${TARGET_S}`, pass: far < TARGET_S },
        { name: 'the run list', value: runs, unit: 's', target: `< ${TARGET_S}`, pass: runs < TARGET_S },
        {
          name: 'server peak RSS: index, list, filter, rollouts',
          value: rss,
          unit: 'MB',
          target: `< ${TARGET_MB}`,
          pass: rss < TARGET_MB,
        },
        {
          name: "run's summary, first open (the report's fold)",
          value: summaryCold,
          unit: 's',
          target: null,
          pass: null,
        },
        {
          name: 'open the run again (summary kept)',
          value: summaryWarm,
          unit: 's',
          target: `< ${TARGET_S}`,
          pass: summaryWarm < TARGET_S,
        },
        {
          name: "server peak RSS with the summary (report's fold)",
          value: rssAll,
          unit: 'MB',
          target: null,
          pass: null,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchView()) console.log(r.name.padEnd(58), r.value, r.unit, r.target ?? '', r.pass ?? '');
}
