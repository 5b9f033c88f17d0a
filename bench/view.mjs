// Benchmark: `bas view` on a generated folder of a million rollouts. Measures, over loopback
// HTTP against the real server (a child process), on a first start (no kept index): how soon the
// page, the run list, a page of rollouts and the farthest rollout answer while the file is read
// in the background, how long the index and
// the run's summary take, and the server's peak resident memory (VmHWM); then on a second start
// (the index kept by the first, in --index-dir): opening the run, the last page, a filter over
// every rollout, the farthest rollout, the run list, the summary, and the peak memory again. Exported for bench/run.mjs; also runnable alone: `node bench/view.mjs`
// (after `npm run build`). BAS_BENCH_VIEW_ROLLOUTS sets a smaller folder for a quick look.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Asks `path` until `done(body)`; resolves to the seconds from `t0` (hrtime) and the last body. */
async function until(url, path, done, t0) {
  for (;;) {
    const [, body] = await timed(url, path);
    if (done(body)) return [Number(process.hrtime.bigint() - t0) / 1e9, body];
    await sleep(250);
  }
}

const row = (name, value, unit, target = null) => ({
  name,
  value,
  unit,
  target: target === null ? null : `< ${target}`,
  pass: target === null ? null : value < target,
});

/** GET `path` as text (the page); resolves to seconds. */
async function timedPage(url, path) {
  const t = process.hrtime.bigint();
  const res = await fetch(`${url}${path}`);
  await res.text();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return Number(process.hrtime.bigint() - t) / 1e9;
}

/**
 * The first start: no kept index. The page, the run list, a page of rollouts and the farthest
 * rollout (found by a seek) answer at once while the file is read in the background.
 */
async function firstStart(runs, cache) {
  const t0 = process.hrtime.bigint();
  const server = await startServer('view', [runs, '--index-dir', cache]);
  try {
    const listening = Number(process.hrtime.bigint() - t0) / 1e9;
    const page = await timedPage(server.url, '/');
    const [list] = await timed(server.url, '/api/runs');
    const q = '/api/rollouts?run=big&limit=50';
    const [open, first] = await timed(server.url, q);
    const [far, farBody] = await timed(server.url, `/api/rollout?run=big&index=${ROLLOUTS - 1}`);
    if (farBody.index !== ROLLOUTS - 1) throw new Error(`the farthest rollout came back as ${farBody.index}`);
    // Still reading after it: the index had not reached it, so the seek found it.
    const [, after] = await timed(server.url, q);
    const how = after.index.reading !== null ? 'found by a seek' : 'the index had read it';
    const [index] = await until(server.url, q, (b) => b.index.reading === null, t0);
    const [summary] = await until(server.url, '/api/run?run=big', (b) => !b.summary_pending && b.text !== null, t0);
    return {
      rows: [
        row('first start: from the command to the server listening', listening, 's'),
        row('first start: the first page, the page itself (file being read)', page, 's', TARGET_S),
        row('first start: the first page, the run list (file being read)', list, 's', TARGET_S),
        row('first start: a page of rollouts answers (file still being read)', open, 's', TARGET_S),
        row(`first start: rollouts listed at once (of ${ROLLOUTS.toLocaleString('en-US')})`, first.total, 'rollouts'),
        row(`first start: the farthest rollout, whole (${how})`, far, 's', TARGET_S),
        row('first start: the whole file indexed, in the background', index, 's'),
        row("first start: the run's summary ready (the report's fold, after the index)", summary, 's'),
        row('first start: server peak RSS (index and summary built)', peakMb(server.pid), 'MiB', TARGET_MB),
      ],
    };
  } finally {
    await server.stop();
  }
}

/** The second start: the index kept by the first is read back, and everything is at hand. */
async function secondStart(runs, cache) {
  const server = await startServer('view', [runs, '--index-dir', cache]);
  try {
    const q = '/api/rollouts?run=big&limit=50';
    const [open, first] = await timed(server.url, q);
    if (first.total !== ROLLOUTS || first.index.reading !== null)
      throw new Error(`the kept index was not used: ${JSON.stringify(first.index)}`);
    const [last] = await timed(server.url, `${q}&offset=${ROLLOUTS - 50}`);
    const [filter, filtered] = await timed(
      server.url,
      `${q}&missed=duplicate_invoice&reward_min=0.5&consistency=inconsistent`,
    );
    const [far] = await timed(server.url, `/api/rollout?run=big&index=${ROLLOUTS - 1}`);
    const [runsList] = await timed(server.url, '/api/runs');
    const t0 = process.hrtime.bigint();
    const [summary] = await until(server.url, '/api/run?run=big', (b) => !b.summary_pending && b.text !== null, t0);
    const [again] = await timed(server.url, '/api/run?run=big');
    return [
      row('second start: the run opens with its kept index (first page)', open, 's', TARGET_S),
      row('second start: last page of the rollout list', last, 's', TARGET_S),
      row(
        `second start: filter over all rollouts (${filtered.matching.toLocaleString('en-US')} match)`,
        filter,
        's',
        TARGET_S,
      ),
      row('second start: the farthest rollout, whole', far, 's', TARGET_S),
      row('second start: the run list', runsList, 's', TARGET_S),
      row("second start: the run's summary (its kept report)", summary, 's', TARGET_S),
      row('second start: the run again (summary kept in memory)', again, 's', TARGET_S),
      row('second start: server peak RSS (everything above)', peakMb(server.pid), 'MiB', TARGET_MB),
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
  const root = mkdtempSync(join(tmpdir(), 'bas-bench-view-'));
  const runs = join(root, 'runs');
  const cache = join(root, 'index');
  try {
    mkdirSync(join(runs, 'big'), { recursive: true });
    // Written as a run with -c 64 writes: nearly in task order, as a seek expects of a real run.
    writeSyntheticRun(join(runs, 'big'), ROLLOUTS, { concurrency: 64 });
    const mb = statSync(join(runs, 'big', 'results.jsonl')).size / 1024 / 1024;
    const first = await firstStart(runs, cache);
    const second = await secondStart(runs, cache);
    return [row(`results.jsonl of ${ROLLOUTS.toLocaleString('en-US')} rollouts`, mb, 'MiB'), ...first.rows, ...second];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await benchView()) console.log(r.name.padEnd(58), r.value, r.unit, r.target ?? '', r.pass ?? '');
}
