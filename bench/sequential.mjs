// Spending only what a verdict needs (issue 25): figures, no timing targets.
//
// 1. Tasks per verdict: `bas eval -m builtin:share:Q:1 --against BASE --until decided --margin
//    0.05` against a baseline of `builtin:share:0.5`, for a large (Q = 0.7) and a small (Q = 0.55)
//    true difference and none (Q = 0.5), over 10 task seeds each, in-process through the library
//    (dist/index.js). The salt `:1` makes the two policies right on independent sets of tasks, so
//    their paired differences go both ways as real models' do (until 0.5 the bench compared
//    nested share:P policies, whose differences are never negative: issue 36). Beside them, the
//    tasks a fixed paired design planned to detect the smallest difference that matters (0.05)
//    with 80% power needs, at the true spread of the differences (over the baseline's whole -n).
// 2. Slow start: requests a doomed run sends (every reply is empty content cut by the limit, as a
//    reasoning model out of budget: `bas serve --reasoning-tokens 4096 --max-completion-tokens
//    4096`) at -c 1, 8 and 64, and the tokens the server billed against those bas reported.
// 3. A budget: `-n 40 -c 8 --max-tokens 800 --max-total-tokens 30000` against `bas serve
//    --latency 100`: what the server billed against the budget.
// Run directly: `node bench/sequential.mjs`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measureBas, median, ROOT, startServe } from './measure.mjs';

const SEEDS = 10;
// Independent policies 0.05 apart take up to about 5,000 tasks to a verdict: room for all of them.
const N = 8000;
const MARGIN = 0.05;
const TASK = { num_transactions: 6 };

async function lib() {
  const [{ runEval }, { tasksNeeded }] = await Promise.all([
    import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href),
    import(pathToFileURL(join(ROOT, 'dist', 'summary', 'power.js')).href),
  ]);
  return { runEval, tasksNeeded };
}

/** Per-task rewards of a run folder, by index. */
function rewards(dir) {
  const out = new Map();
  for (const line of readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n'))
    if (line) {
      const r = JSON.parse(line);
      out.set(r.index, r.error === null ? r.reward : 0);
    }
  return out;
}

function variance(xs) {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}

async function decisions(q, api, root) {
  const tasks = [];
  const verdicts = {};
  const fixed = [];
  const discordant = { up: 0, down: 0, n: 0 };
  for (let seed = 1; seed <= SEEDS; seed++) {
    const task = { ...TASK, seed };
    const base = join(root, `base-${seed}`);
    // One baseline per seed, shared by the three differences.
    if (q === '0.7') await api.runEval({ model: 'builtin:share:0.5', n: N, task, output: base });
    const model = `builtin:share:${q}:1`;
    const dir = join(root, `q${q}-${seed}`);
    const r = await api.runEval({ model, against: base, until: 'decided', margin: MARGIN, output: dir });
    tasks.push(r.sequential.tasks);
    verdicts[r.sequential.verdict] = (verdicts[r.sequential.verdict] ?? 0) + 1;
    // The true spread of the differences: this policy run over the baseline's whole -n, paired.
    const whole = join(root, `q${q}-${seed}-whole`);
    await api.runEval({ model, n: N, task, output: whole });
    const a = rewards(whole);
    const b = rewards(base);
    const diffs = [...b.keys()].map((i) => a.get(i) - b.get(i));
    fixed.push(api.tasksNeeded(variance(diffs), MARGIN));
    discordant.up += diffs.filter((d) => d > 0).length;
    discordant.down += diffs.filter((d) => d < 0).length;
    discordant.n += diffs.length;
    rmSync(whole, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  const seen = Object.entries(verdicts)
    .map(([v, k]) => `${k} ${v}`)
    .join(', ');
  const pct = (k) => `${((100 * k) / discordant.n).toFixed(1)}%`;
  return [
    {
      name: `share:${q}:1 vs share:0.5, --margin ${MARGIN}: median tasks to a verdict`,
      value: median(tasks),
      unit: 'tasks',
      target: `max ${Math.max(...tasks)}`,
      pass: null,
    },
    { name: `  verdicts over ${SEEDS} task seeds: ${seen}`, value: SEEDS, unit: 'runs', pass: null },
    {
      name: `  tasks only share:${q}:1 gets right ${pct(discordant.up)}, only share:0.5 ${pct(discordant.down)}`,
      value: discordant.n,
      unit: 'pairs',
      pass: null,
    },
    {
      name: `  fixed paired design for a ${MARGIN} difference, 80% power`,
      value: median(fixed),
      unit: 'tasks',
      pass: null,
    },
    {
      name: '  sequential median / fixed design',
      value: median(tasks) / median(fixed),
      unit: 'ratio',
      pass: null,
    },
  ];
}

async function serveRun(serveArgs, evalArgs) {
  const server = await startServe(serveArgs);
  const dir = join(mkdtempSync(join(tmpdir(), 'bas-bench-seq-')), 'run');
  try {
    const args = ['eval', '-m', 'bench-model', '--base-url', server.url, '--api-key-var', 'BAS_BENCH_KEY'];
    const m = await measureBas([...args, '--output', dir, '--no-progress', ...evalArgs], {
      env: { BAS_BENCH_KEY: 'bench-key' },
    });
    const stats = await (await fetch(`${server.url}/bas/stats`)).json();
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    await server.stop();
    return { code: m.code, stats, run };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function slowStart() {
  const rows = [];
  for (const c of [1, 8, 64]) {
    const r = await serveRun(
      ['--reasoning-tokens', '4096', '--max-completion-tokens', '4096', '--latency', '300'],
      ['-n', '200', '-c', String(c)],
    );
    const billed = r.stats.promptTokens + r.stats.completionTokens;
    const t = r.run.summary.tokens;
    const reported = t.total + (t.unrecorded?.total ?? 0);
    rows.push({
      name: `doomed endpoint at -c ${c}: requests sent (exit ${r.code})`,
      value: r.stats.requests,
      unit: 'req',
      target: 'max 3',
      pass: r.stats.requests <= 3,
    });
    rows.push({
      name: `  billed by the server / counted by bas (${billed} tokens)`,
      value: billed / reported,
      unit: 'ratio',
      pass: null,
    });
  }
  return rows;
}

async function budget() {
  const limit = 30000;
  const r = await serveRun(
    ['--latency', '100'],
    ['-n', '40', '-c', '8', '--max-tokens', '800', '--max-total-tokens', String(limit)],
  );
  const billed = r.stats.promptTokens + r.stats.completionTokens;
  return [
    {
      name: `--max-total-tokens ${limit}: billed by the server (exit ${r.code}, ${r.run.summary.counts.rollouts} of 40 rollouts)`,
      value: billed,
      unit: 'tokens',
      target: `max ${limit}`,
      pass: billed <= limit,
    },
  ];
}

export async function benchSequential() {
  const api = await lib();
  const root = mkdtempSync(join(tmpdir(), 'bas-bench-decide-'));
  try {
    const rows = [];
    for (const q of ['0.7', '0.55', '0.5']) rows.push(...(await decisions(q, api, root)));
    rows.push(...(await slowStart()));
    rows.push(...(await budget()));
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `node bench/sequential.mjs serve`: the slow start and budget figures alone.
  const rows = process.argv[2] === 'serve' ? [...(await slowStart()), ...(await budget())] : await benchSequential();
  for (const r of rows) console.log(r.name, r.value, r.unit, r.target ?? '');
}
