// Benchmark: `bas view` at the scale its users run (issue 37's targets). Writes a run folder
// of 100,000 realistic rollouts (in the order a run with -c 64 writes them), starts `bas view`
// on it as a child process and asks over loopback HTTP, each request after the one before:
// the page, the run list, the run opened (its first page of rollouts with the whole file
// indexed), the last page, a filter over every rollout, the farthest rollout, the summary, and
// the server's peak resident memory (VmHWM); then, on a new start, the diff of that run and a
// second one of as many rollouts. Then the same (no diff) on 1,000,000 rollouts, reported for
// information (no target: a run that size is read in the background and works, more slowly).
// Exported for bench/run.mjs; also runnable alone: `node bench/view.mjs` (after `npm run
// build`). BAS_BENCH_VIEW_BIG=0 leaves the million out.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './measure.mjs';
import { writeSyntheticRun } from './synthetic-run.mjs';

const SIZES = process.env.BAS_BENCH_VIEW_BIG === '0' ? [100_000] : [100_000, 1_000_000];
/** The targets, for the run of 100,000 rollouts: opened in 2 s, any rollout in 0.5 s, the server under 200 MiB. */
const OPEN_S = 2;
const ROLLOUT_S = 0.5;
const TARGET_MB = 200;

async function timed(url, path) {
  const t = process.hrtime.bigint();
  const res = await fetch(`${url}${path}`);
  const body = path.startsWith('/api/') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return [Number(process.hrtime.bigint() - t) / 1e9, body];
}

function peakMb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Asks `path` until `done(body)`; resolves to the seconds from `t0` (hrtime). */
async function until(url, path, done, t0) {
  for (;;) {
    const [, body] = await timed(url, path);
    if (done(body)) return Number(process.hrtime.bigint() - t0) / 1e9;
    await sleep(100);
  }
}

const row = (name, value, unit, target = null) => ({
  name,
  value,
  unit,
  target: target === null ? null : `< ${target}`,
  pass: target === null ? null : value < target,
});

/** One start of `bas view` on a folder holding run `big` of `n` rollouts; the rows it measures. */
async function oneRun(runs, n) {
  const big = n <= 100_000;
  const label = `${n.toLocaleString('en-US')} rollouts`;
  const server = await startServer('view', [runs]);
  try {
    const [page] = await timed(server.url, '/');
    const [list] = await timed(server.url, '/api/runs');
    const q = '/api/rollouts?run=big&limit=50';
    const t0 = process.hrtime.bigint();
    // Opened: the first page of rollouts with the whole file read (asked again until it is).
    const open = await until(server.url, q, (b) => b.index.reading === null && b.total === n, t0);
    const [last] = await timed(server.url, `${q}&offset=${n - 50}`);
    const [filter, filtered] = await timed(
      server.url,
      `${q}&missed=duplicate_invoice&reward_min=0.5&consistency=inconsistent`,
    );
    const [far, farBody] = await timed(server.url, `/api/rollout?run=big&index=${n - 1}`);
    if (farBody.index !== n - 1) throw new Error(`the farthest rollout came back as ${farBody.index}`);
    const t1 = process.hrtime.bigint();
    const summary = await until(server.url, '/api/run?run=big', (b) => !b.summary_pending && b.text !== null, t1);
    const target = (t) => (big ? t : null);
    return [
      row(`${label}: the page itself`, page, 's', target(ROLLOUT_S)),
      row(`${label}: the run list`, list, 's', target(ROLLOUT_S)),
      row(`${label}: the run opened, the whole file read (first start)`, open, 's', target(OPEN_S)),
      row(`${label}: last page of the rollout list`, last, 's', target(ROLLOUT_S)),
      row(
        `${label}: filter over every rollout (${filtered.matching.toLocaleString('en-US')} match)`,
        filter,
        's',
        target(ROLLOUT_S),
      ),
      row(`${label}: the farthest rollout, whole`, far, 's', target(ROLLOUT_S)),
      row(`${label}: the run's summary ready, after the run opened (one read folds both)`, summary, 's'),
      row(`${label}: server peak RSS, index and summary built`, peakMb(server.pid), 'MiB', target(TARGET_MB)),
    ];
  } finally {
    await server.stop();
  }
}

/**
 * The diff of run `big` against a second run of as many rollouts on the same tasks (other
 * outcomes), on a fresh start: asked once (both files read) and again (from what the first
 * ask read), and the server's peak memory.
 */
async function diffRun(runs, n) {
  const label = `two runs of ${n.toLocaleString('en-US')} rollouts`;
  mkdirSync(join(runs, 'other'));
  writeSyntheticRun(join(runs, 'other'), n, { concurrency: 64, seed: 8 });
  const server = await startServer('view', [runs]);
  try {
    const [first, body] = await timed(server.url, '/api/diff?a=big&b=other');
    if (body.shared !== n) throw new Error(`the diff paired ${body.shared} rollouts of ${n}`);
    const [again] = await timed(server.url, '/api/diff?a=big&b=other');
    return [
      row(`${label}: the diff, first ask (${body.flipped.toLocaleString('en-US')} flipped)`, first, 's'),
      row(`${label}: the diff asked again`, again, 's'),
      row(`${label}: server peak RSS, the diff made`, peakMb(server.pid), 'MiB'),
    ];
  } finally {
    await server.stop();
  }
}

/** One request to a throwaway server, so the first timed request does not carry this process's client start-up. */
async function warmClient() {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  await (await fetch(`http://127.0.0.1:${server.address().port}/`)).text();
  await new Promise((resolve) => server.close(resolve));
}

export async function benchView() {
  await warmClient();
  const rows = [];
  for (const n of SIZES) {
    const root = mkdtempSync(join(tmpdir(), 'bas-bench-view-'));
    const runs = join(root, 'runs');
    try {
      mkdirSync(join(runs, 'big'), { recursive: true });
      writeSyntheticRun(join(runs, 'big'), n, { concurrency: 64 });
      const mb = statSync(join(runs, 'big', 'results.jsonl')).size / 1024 / 1024;
      rows.push(row(`results.jsonl of ${n.toLocaleString('en-US')} rollouts`, mb, 'MiB'), ...(await oneRun(runs, n)));
      if (n <= 100_000) rows.push(...(await diffRun(runs, n)));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchView()) console.log(r.name.padEnd(70), r.value, r.unit, r.target ?? '', r.pass ?? '');
}
