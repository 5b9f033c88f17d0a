// Benchmark: `bas report` (text, --json, --html) on a synthetic 200,000-rollout run folder:
// peak memory and wall time of the child process, and the size of the HTML page. Exported for
// bench/run.mjs; also runnable alone: `node bench/report.mjs` (after `npm run build`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticRun } from './synthetic-run.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'bas.js');
const ROLLOUTS = 200_000;
/** Peak RSS of any report command at 200,000 rollouts ("a few hundred MB"). */
const TARGET_MB = 300;
/** The HTML page at any size ("a few MB"). */
const TARGET_PAGE_MB = 5;
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
    writeSyntheticRun(dir, ROLLOUTS);
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
          unit: 'MiB',
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
      unit: 'MiB',
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
