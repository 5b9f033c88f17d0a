// Benchmark: `bas report` (text, --json, --html) on a synthetic 200,000-rollout run folder:
// peak memory and wall time of the child process, and the size of the HTML page. Exported for
// bench/run.mjs; also runnable alone: `node bench/report.mjs` (after `npm run build`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'bas.js');
const ROLLOUTS = 200_000;
/** Peak RSS of any report command at 200,000 rollouts ("a few hundred MB"). */
const TARGET_MB = 300;
/** The HTML page at any size ("a few MB"). */
const TARGET_PAGE_MB = 5;
const CODES = [
  'gst_on_gst_free',
  'gst_miscalculated',
  'duplicate_invoice',
  'outside_period',
  'missing_abn_over_threshold',
];
const CONFIG = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

/** A deterministic pseudo-random stream, so every bench writes the same file. */
function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Writes run.json and a results.jsonl of `n` realistic records (replies ~600 characters). */
async function writeRunFolder(dir, n) {
  const rand = lcg(42);
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      bas_version: '0.4.0',
      // This bas's generator and prompt, so the page rebuilds the ledgers of what it embeds.
      generator: 3,
      prompt_version: 2,
      model: 'bench/synthetic',
      task: CONFIG,
      n,
      rollouts: 1,
      indices: null,
      shard: null,
      prices: { in: 0.25, out: 2 },
      status: 'complete',
      started_at: new Date(0).toISOString(),
      ended_at: null,
      summary: null,
    }),
  );
  const out = createWriteStream(join(dir, 'results.jsonl'));
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
        error: { type: rand() < 0.5 ? 'timeout' : 'provider', message: 'synthetic failure' },
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
      const reply = `Working through the ledger row by row.\n<answer>${JSON.stringify({ G1: '48211.40', '1A': '3920.11', '1B': '1288.02', net: '2632.09', faults })}</answer>`;
      rec = {
        index: i,
        rollout: 0,
        config: CONFIG,
        model: 'bench/synthetic',
        reply,
        reward: 0.6 * bas + 0.4 * audit,
        rewards: { bas_correct: bas, fault_audit: audit },
        metrics: {
          bas_label_accuracy: bas ? 1 : 0.5,
          fault_precision: audit,
          fault_recall: audit,
          num_flagged: 6,
          parsed: 1,
        },
        detail: { labels: { G1: true, '1A': !!bas, '1B': true, net: !!bas }, codes, unknown_codes: 0 },
        error: null,
        latency_ms: Math.round(2000 + rand() * 30000),
        usage: { prompt_tokens: 3100, completion_tokens: 900, total_tokens: 4000 },
        finish_reason: 'stop',
        attempts: 1,
      };
    }
    if (!out.write(JSON.stringify(rec) + '\n')) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())));
}

/** Runs `bas report DIR ...extra` and returns its peak RSS in MB and wall time in seconds. */
function measure(dir, extra) {
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const argv = [BIN, 'report', dir, ...extra];
  // Without GNU time, a tiny wrapper runs the CLI in-process and reads its own maxRSS at exit.
  const args = useTime
    ? ['-v', process.execPath, ...argv]
    : [
        '-e',
        `process.argv=[process.argv[0],...${JSON.stringify(argv)}];process.on('exit',()=>process.stderr.write('Maximum resident set size (kbytes): '+process.resourceUsage().maxRSS+'\\n'));import(${JSON.stringify('file://' + join(ROOT, 'dist', 'cli.js'))}).then(m=>m.main(process.argv))`,
      ];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      if (code !== 0 || !m) return reject(new Error(`bas report failed (exit ${code}): ${stderr.slice(-500)}`));
      resolve({ rssMb: Number(m[1]) / 1024, seconds });
    });
  });
}

/** Rows for the bench table: peak memory (the target) and wall time per output, and the page's size. */
export async function benchReport() {
  const dir = mkdtempSync(join(tmpdir(), 'bas-bench-report-'));
  const page = join(dir, 'page.html');
  const label = ROLLOUTS.toLocaleString('en-US');
  try {
    await writeRunFolder(dir, ROLLOUTS);
    const rows = [];
    for (const [what, extra] of [
      ['text', []],
      ['--json', ['--json']],
      ['--html', ['--html', page]],
    ]) {
      const { rssMb, seconds } = await measure(dir, extra);
      rows.push(
        {
          name: `bas report ${what}, ${label} rollouts: peak RSS`,
          value: Math.round(rssMb * 10) / 10,
          unit: 'MB',
          target: `< ${TARGET_MB}`,
          pass: rssMb < TARGET_MB,
        },
        {
          name: `bas report ${what}, ${label} rollouts: wall time`,
          value: Math.round(seconds * 100) / 100,
          unit: 's',
          target: 'info',
          pass: null,
        },
      );
    }
    const pageMb = statSync(page).size / 1024 / 1024;
    rows.push({
      name: `bas report --html, ${label} rollouts: page size`,
      value: Math.round(pageMb * 100) / 100,
      unit: 'MB',
      target: `< ${TARGET_PAGE_MB}`,
      pass: pageMb < TARGET_PAGE_MB,
    });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await benchReport();
  for (const r of rows)
    console.log(
      `${r.pass === false ? 'FAIL' : r.pass ? 'PASS' : 'info'}  ${r.name}: ${r.value} ${r.unit} (target ${r.target})`,
    );
  if (rows.some((r) => r.pass === false)) process.exitCode = 1;
}
