// Benchmark: `bas view` on a generated folder of a million rollouts. Measures, over loopback
// HTTP against the real server (a child process): building the rollout index (the first page
// of the list), opening the run's summary the first time (the report's fold over the file) and
// again, a filter over every rollout, the farthest rollout, and the server's peak resident
// memory (VmHWM). Exported for bench/run.mjs; also runnable alone: `node bench/view.mjs`
// (after `npm run build`). BAS_BENCH_VIEW_ROLLOUTS sets a smaller folder for a quick look.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './measure.mjs';

const ROLLOUTS = Number(process.env.BAS_BENCH_VIEW_ROLLOUTS ?? 1_000_000);
/** The bounds: a run opens, and any rollout shows, in under a second; the server stays under 200 MB. */
const TARGET_S = 1;
const TARGET_MB = 200;
const CODES = [
  'gst_on_gst_free',
  'gst_miscalculated',
  'duplicate_invoice',
  'outside_period',
  'missing_abn_over_threshold',
];
const CONFIG = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Writes run.json and `n` realistic records (replies of some 600 characters), in large writes. */
function writeFolder(dir, n) {
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      bas_version: '0.4.0',
      generator: 3,
      prompt_version: 2,
      model: 'bench/synthetic',
      base_url: 'http://127.0.0.1:1/v1',
      task: CONFIG,
      n,
      rollouts: 1,
      indices: null,
      shard: null,
      prices: { in: 0.25, out: 2 },
      status: 'complete',
      started_at: new Date(0).toISOString(),
      ended_at: new Date(3600_000).toISOString(),
      summary: null,
    }),
  );
  const rand = lcg(7);
  const fd = openSync(join(dir, 'results.jsonl'), 'w');
  let buf = '';
  for (let i = 0; i < n; i++) {
    let rec;
    if (rand() < 0.03) {
      rec = {
        index: i,
        rollout: 0,
        config: CONFIG,
        model: 'bench/synthetic',
        reply: null,
        reward: null,
        rewards: null,
        metrics: null,
        detail: null,
        error: { type: 'timeout', message: 'synthetic failure' },
        latency_ms: null,
        usage: null,
        finish_reason: null,
        attempts: 3,
      };
    } else {
      const bas = rand() < 0.3 ? 1 : 0;
      const audit = Math.round(rand() * 1000) / 1000;
      const codes = Object.fromEntries(
        CODES.map((c) => [c, { tp: Math.floor(rand() * 3), fp: Math.floor(rand() * 2), fn: Math.floor(rand() * 2) }]),
      );
      const faults = Object.fromEntries(
        Array.from({ length: 6 }, (_, k) => [`T${String(k * 3 + 1).padStart(2, '0')}`, [CODES[k % 5]]]),
      );
      rec = {
        index: i,
        rollout: 0,
        config: CONFIG,
        model: 'bench/synthetic',
        reply: `Working through the ledger row by row, checking each invoice against the period and the GST rules.\n<answer>${JSON.stringify({ G1: '48211.40', '1A': '3920.11', '1B': '1288.02', net: '2632.09', faults })}</answer>`,
        reward: 0.6 * bas + 0.4 * audit,
        rewards: { bas_correct: bas, fault_audit: audit },
        metrics: {
          bas_label_accuracy: bas ? 1 : 0.5,
          fault_precision: audit,
          fault_recall: audit,
          num_flagged: 6,
          parsed: 1,
        },
        detail: {
          labels: { G1: true, '1A': !!bas, '1B': true, net: !!bas },
          codes,
          unknown_codes: 0,
          consistency: {
            bas_consistent: rand() < 0.5 ? 1 : 0,
            bas_error: null,
            labels: { G1: null, '1A': null, '1B': null, net: null },
          },
        },
        error: null,
        latency_ms: Math.round(2000 + rand() * 30000),
        usage: { prompt_tokens: 3100, completion_tokens: 900, total_tokens: 4000 },
        finish_reason: 'stop',
        attempts: 1,
      };
    }
    buf += JSON.stringify(rec) + '\n';
    if (buf.length > 8_000_000) {
      writeSync(fd, buf);
      buf = '';
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
}

/** GET `path` from the server; resolves to [seconds, body]. */
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
    writeFolder(run, ROLLOUTS);
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
