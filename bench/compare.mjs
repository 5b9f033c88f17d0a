// Benchmark: `bas compare` of two 100,000-task runs and `bas leaderboard` (with tiers) of ten,
// wall time of the whole process (reading the run folders included). Exported for
// bench/run.mjs; also runnable alone: `node bench/compare.mjs` (after `npm run build`).
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureBas } from './measure.mjs';
import { CODES, CONFIG, lcg } from './synthetic-run.mjs';

const TASKS = 100_000;
/** Runs a command on one core, where taskset and GNU time are there. */
const ONE_CORE =
  existsSync('/usr/bin/taskset') && existsSync('/usr/bin/time') && availableParallelism() > 1
    ? ['/usr/bin/taskset', '-c', '0']
    : null;
const RUNS = 10;
/** A complete run of `TASKS` tasks whose BAS is right with probability `p`, audit F1 in twelfths. */
export async function writeRun(dir, k, p) {
  const rand = lcg(100 + k);
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      bas_version: '0.4.1',
      generator: 3,
      prompt_version: 2,
      model: `bench/model-${k}`,
      task: CONFIG,
      n: TASKS,
      rollouts: 1,
      indices: null,
      shard: null,
      status: 'complete',
      started_at: new Date(0).toISOString(),
      ended_at: null,
      summary: null,
    }),
  );
  const out = createWriteStream(join(dir, 'results.jsonl'));
  const codes = Object.fromEntries(CODES.map((c) => [c, { tp: 1, fp: 0, fn: 1 }]));
  for (let i = 0; i < TASKS; i++) {
    const bas = rand() < p ? 1 : 0;
    const audit = Math.round(rand() * 12) / 12;
    const rec = {
      index: i,
      rollout: 0,
      config: CONFIG,
      model: `bench/model-${k}`,
      reply: '<answer>{"G1": "1.00", "1A": "0.09", "1B": "0.00", "net": "0.09", "faults": {}}</answer>',
      reward: 0.6 * bas + 0.4 * audit,
      rewards: { bas_correct: bas, fault_audit: audit },
      metrics: { bas_label_accuracy: bas, fault_precision: audit, fault_recall: audit, num_flagged: 4, parsed: 1 },
      detail: {
        labels: { G1: true, '1A': !!bas, '1B': true, net: !!bas },
        codes,
        unknown_codes: 0,
        consistency: {
          bas_consistent: bas,
          bas_error: bas ? null : 'both',
          labels: { G1: null, '1A': null, '1B': null, net: null },
        },
      },
      error: null,
      latency_ms: 1000,
      usage: { prompt_tokens: 3000, completion_tokens: 900, total_tokens: 3900 },
      finish_reason: 'stop',
      attempts: 1,
    };
    if (!out.write(JSON.stringify(rec) + '\n')) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
}

export async function benchCompare() {
  const root = mkdtempSync(join(tmpdir(), 'bas-bench-compare-'));
  try {
    const dirs = [];
    for (let k = 0; k < RUNS; k++) {
      const dir = join(root, `run-${k}`);
      dirs.push(dir);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      // Models 0.01 apart in their BAS rate: neighbours are close, ends far apart.
      await writeRun(dir, k, 0.3 + 0.01 * k);
    }
    // Issue 37's target is on one core (bas reads the runs one after the other since then);
    // the same on every core follows, for information.
    const oneCore = ONE_CORE ? await measureBas(['compare', dirs[0], dirs[1]], { prefix: ONE_CORE }) : null;
    const compare = await measureBas(['compare', dirs[0], dirs[1]]);
    const board = await measureBas(['leaderboard', ...dirs]);
    const label = TASKS.toLocaleString('en-US');
    const target = oneCore ?? compare;
    return [
      {
        name: `bas compare, two runs of ${label} tasks, ${oneCore ? 'one core' : 'all cores (no taskset)'}: wall`,
        value: target.seconds,
        unit: 's',
        target: '≤ 2',
        pass: target.code === 0 && target.seconds <= 2,
      },
      { name: '  same, CPU time', value: target.cpuSeconds, unit: 's', target: '', pass: null },
      ...(oneCore
        ? [
            {
              name: '  the same on every core: wall time',
              value: compare.seconds,
              unit: 's',
              target: 'info',
              pass: null,
            },
          ]
        : []),
      { name: '  peak RSS', value: target.rssMb, unit: 'MiB', target: 'info', pass: null },
      // Ten runs of 100,000 tasks are beyond the scale the targets are set at (issue 37).
      {
        name: `bas leaderboard with tiers, ${RUNS} runs of ${label} tasks: wall time`,
        value: board.seconds,
        unit: 's',
        target: 'info',
        pass: board.code === 0 ? null : false,
      },
      { name: `bas leaderboard, ${RUNS} runs: peak RSS`, value: board.rssMb, unit: 'MiB', target: 'info', pass: null },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const r of await benchCompare())
    console.log(
      `${r.pass === false ? 'FAIL' : r.pass ? 'PASS' : 'info'}  ${r.name}: ${r.value} ${r.unit} (target ${r.target})`,
    );
}
