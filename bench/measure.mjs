// Measuring a whole `bas` process: wall time, CPU time and peak resident memory. GNU time
// reads the child's rusage; where it is missing, a wrapper runs the CLI in-process and
// reports its own at exit.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'bas.js');
const MARK = 'BAS_BENCH_RUSAGE';
/** The node flags of the launcher's `#!` line, so the bench runs bas as an installed `bas` starts. */
export const LAUNCH_FLAGS = readFileSync(BIN, 'utf8')
  .split('\n', 1)[0]
  .split(/\s+/)
  .filter((w) => w.startsWith('--'));

/**
 * Runs `node [launcher flags] bin/bas.js ...args` and resolves to {seconds, cpuSeconds, rssMb, code, stdout}.
 * stdout is discarded unless `keepStdout`. `prefix` runs it through a command first (`taskset -c 0`:
 * one core), where GNU time is there to measure it.
 */
export function measureBas(args, { keepStdout = false, env = {}, prefix = [] } = {}) {
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const full = useTime
    ? ['-f', `${MARK} %e %U %S %M`, ...prefix, process.execPath, ...LAUNCH_FLAGS, BIN, ...args]
    : [
        ...LAUNCH_FLAGS,
        '-e',
        `process.argv=[process.argv[0],${JSON.stringify(BIN)},...${JSON.stringify(args)}];process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('${MARK} 0 '+u.userCPUTime/1e6+' '+u.systemCPUTime/1e6+' '+u.maxRSS+'\\n')});import(${JSON.stringify('file://' + join(ROOT, 'dist', 'cli.js'))}).then(m=>m.main(process.argv))`,
      ];
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, full, {
      stdio: ['ignore', keepStdout ? 'pipe' : 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout?.on('data', (d) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const m = new RegExp(`${MARK} ([\\d.]+) ([\\d.]+) ([\\d.]+) (\\d+)`).exec(stderr);
      if (!m)
        return reject(new Error(`bas ${args.join(' ')} gave no measurement (exit ${code}): ${stderr.slice(-400)}`));
      resolve({ seconds, cpuSeconds: Number(m[2]) + Number(m[3]), rssMb: Number(m[4]) / 1024, code, stdout });
    });
  });
}

/** One row of a bench section's table: a figure, its unit, and its target with PASS/FAIL (null: no target). */
export const row = (name, value, unit, target = '', pass = null) => ({ name, value, unit, target, pass });

/** The median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Starts `bas serve --port 0 ...args`; resolves to {url, stop}. `stop` ends it and resolves
 * to the number of requests it says it answered (NaN when it did not say).
 */
export function startServe(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d) => (err += d));
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        resolve({
          url: m[1],
          stop: () =>
            new Promise((done) => {
              proc.once('exit', () => done(Number(/(\d+) requests/.exec(err)?.[1] ?? Number.NaN)));
              proc.kill('SIGTERM');
            }),
        });
      }
    });
    proc.once('exit', (code) => reject(new Error(`bas serve exited with ${code}`)));
  });
}

/** Starts `bas <command> --port 0 ...args` (a server); resolves to {url, pid, stop} once it listens. */
export function startServer(command, args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s/]+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          pid: proc.pid,
          stop: () =>
            new Promise((done) => {
              proc.once('exit', done);
              proc.kill('SIGTERM');
            }),
        });
    });
    proc.once('exit', (code) => reject(new Error(`bas ${command} exited with ${code}`)));
  });
}
