// The test suite's own time: `npx vitest run` (what `npm test` runs) once as the machine is,
// and once beside two busy loops (one per core of a 2-core machine) that stand for the load
// of other work. Target: under 3 minutes under that load. Also the CPU time of the suite and
// all its children, which moves less than the wall time when others share the cores.
// Only run when named (`npm run bench -- suite`): it takes several minutes, and it needs the
// project's devDependencies. Run directly: `node bench/suite.mjs`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './measure.mjs';

const LIMIT_S = 180;
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** CPU seconds of the children this process has waited for (Linux), or null. */
function childrenCpu() {
  try {
    // Fields 16 and 17 of /proc/self/stat (after the command in parentheses): cutime, cstime.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/** Runs the whole suite; resolves to {seconds, cpuSeconds, passed, failed, failures (vitest's FAIL lines)}. */
function runSuite() {
  const before = childrenCpu();
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--reporter=dot'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const after = childrenCpu();
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      const tests = /Tests\s+(?:(\d+) failed \| )?(\d+) passed/.exec(plain);
      resolve({
        seconds,
        cpuSeconds: before === null || after === null ? null : after - before,
        passed: tests ? Number(tests[2]) : 0,
        failed: code === 0 ? 0 : tests?.[1] ? Number(tests[1]) : 1,
        // vitest's own summary names each failed test on a line that starts with FAIL.
        failures: plain.split('\n').filter((l) => /^\s*FAIL\s/.test(l)),
      });
    });
  });
}

/** Starts `n` processes that each keep one core busy; returns a function that stops them. */
function busyLoops(n) {
  const loops = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => {
    for (const p of loops) p.kill('SIGKILL');
  };
}

export async function benchSuite() {
  const quiet = await runSuite();
  const stop = busyLoops(2);
  let loaded;
  try {
    loaded = await runSuite();
  } finally {
    stop();
  }
  const rows = [];
  for (const [label, r, target] of [
    ['as the machine is', quiet, null],
    ['beside two busy loops', loaded, LIMIT_S],
  ]) {
    // A failed test would otherwise show only as a count: name it, so a flake can be chased.
    for (const line of r.failures) process.stderr.write(`suite, ${label}: ${line.trim()}\n`);
    rows.push({
      name: `npm test, ${label}: wall (${r.passed} tests, ${r.failed} failed)`,
      value: r.seconds,
      unit: 's',
      target: target === null ? '' : `< ${target} s`,
      pass: target === null ? null : r.failed === 0 && r.seconds < target,
    });
    if (r.cpuSeconds !== null)
      rows.push({
        name: `npm test, ${label}: CPU, all processes`,
        value: r.cpuSeconds,
        unit: 's',
        target: '',
        pass: null,
      });
  }
  rows.push({ name: 'cores', value: cpus().length, unit: '', target: '', pass: null });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const r of await benchSuite()) console.log(r.name, r.value.toFixed(1), r.unit, r.target, r.pass ?? '');
}
