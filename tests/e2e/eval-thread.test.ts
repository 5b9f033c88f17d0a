/**
 * `bas eval` and `bas sweep` with the engine in a worker thread (`BAS_EVAL_THREAD=always`; long
 * runs get one by default): what a user sees is what the same run on the main thread shows, Ctrl-C and
 * SIGTERM stop it as before (exit 130/143, run.json interrupted, --resume finishes it), and
 * --check's report and bad input keep their lines and exit codes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, stableSummary, startBas, tempDir } from '../support/cli.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';

const THREAD = { BAS_EVAL_THREAD: 'always' };
const MAIN = { BAS_EVAL_THREAD: 'never' };
const KEY = 'sk-bas-thread-SECRET-51c2';
const gates: GatedServer[] = [];
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
});

/** Polls `ready()` until it holds: what the test waits for is a state of the run, not a duration. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

/** The lines of a run's text output that do not depend on the time it took. */
const timeless = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => !/^(time|run): |latency/.test(l))
    .join('\n');

describe('bas eval in a worker thread', () => {
  it('prints what the same run prints on the main thread', async () => {
    const args = (dir: string) => ['eval', '--model', 'builtin:oracle', '-n', '12', '-r', '2', '--output', dir];
    const [thread, main] = await Promise.all([
      bas(args(join(tempDir(), 'run')), { env: THREAD }),
      bas(args(join(tempDir(), 'run')), { env: MAIN }),
    ]);
    expect(thread.code).toBe(0);
    expect(main.code).toBe(0);
    expect(timeless(thread.stdout)).toEqual(timeless(main.stdout));
    expect(thread.stdout).toContain('24 rollouts');
    // Progress lines come from the thread's events.
    expect(thread.stderr).toMatch(/^bas: 24\/24 done · 0 errors/m);
    expect(thread.stderr).toMatch(/bas: results in /);

    const json = (dir: string, env: Record<string, string>) =>
      bas(['eval', '--model', 'builtin:oracle', '-n', '5', '--output', dir, '--json', '--no-progress'], { env });
    const [a, b] = await Promise.all([json(join(tempDir(), 'a'), THREAD), json(join(tempDir(), 'b'), MAIN)]);
    expect(stableSummary(JSON.parse(a.stdout))).toEqual(stableSummary(JSON.parse(b.stdout)));
    expect(a.stderr).toMatch(/^bas: results in .*\n$/);
  });

  for (const [sig, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${sig} stops the thread's run: exit ${code}, run.json interrupted, --resume finishes it`, async () => {
      // Four requests are answered and the rest held: the run cannot finish before the signal.
      const gate = await gatedServer(4);
      gates.push(gate);
      const dir = join(tempDir(), 'run');
      const child = startBas(
        ['eval', '-m', 'm', '--base-url', gate.url, '--output', dir, '--no-progress', '-n', '60', '-c', '2'],
        { env: { ...THREAD, OPENAI_API_KEY: KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      const file = join(dir, 'results.jsonl');
      await until(() => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 4);
      child.kill(sig);
      expect(await exited).toBe(code);
      expect(stderr).toMatch(new RegExp(`^bas: interrupted by ${sig}; finished rollouts are kept in .*--resume`));
      expect(stderr.trim().split('\n')).toHaveLength(1);
      const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
      expect(run.status).toBe('interrupted');
      expect(readResults(dir)).toHaveLength(4);
      expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
      gate.release();

      const resumed = await bas(['eval', '--resume', dir, '--no-progress', '--json', '--base-url', gate.url], {
        env: { ...THREAD, OPENAI_API_KEY: KEY },
      });
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout).counts).toMatchObject({ rollouts: 60, completed: 60 });
      expect(resumed.stdout + resumed.stderr).not.toContain(KEY);
    });
  }

  it('runs --check before the run, on the main thread', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(['eval', '--model', 'builtin:oracle', '-n', '3', '--output', dir, '--check', '--no-progress'], {
      env: THREAD,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^bas check: builtin:oracle is built in: no endpoint, nothing to check\n/);
  });

  it('keeps the line and exit code of bad input', async () => {
    const missing = join(tempDir(), 'nothing');
    const [thread, main] = await Promise.all([
      bas(['eval', '--resume', missing], { env: THREAD }),
      bas(['eval', '--resume', missing], { env: MAIN }),
    ]);
    expect(thread.code).toBe(2);
    expect(thread.stderr).toBe(main.stderr);
    expect(thread.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('runs each point of a sweep in a thread, with the same table and lines', async () => {
    const args = (dir: string) => [
      'sweep',
      '--num-transactions',
      '12,24',
      '-m',
      'builtin:oracle',
      '-m',
      'builtin:silent',
      '-n',
      '4',
      '--output',
      dir,
      '--verbose',
    ];
    const dirs = [join(tempDir(), 'sweep'), join(tempDir(), 'sweep')] as const;
    const [thread, main] = await Promise.all([bas(args(dirs[0]), { env: THREAD }), bas(args(dirs[1]), { env: MAIN })]);
    expect(thread.code, thread.stderr).toBe(0);
    expect(thread.stdout.replaceAll(dirs[0], 'DIR')).toEqual(main.stdout.replaceAll(dirs[1], 'DIR'));
    const points = (stderr: string) => stderr.split('\n').filter((l) => /^bas: \[\d\/4\]/.test(l));
    expect(points(thread.stderr)).toHaveLength(4);
    expect(points(thread.stderr).map((l) => l.replace(/, [^,]+$/, ''))).toEqual(
      points(main.stderr).map((l) => l.replace(/, [^,]+$/, '')),
    );
  });

  it('refuses a BAS_EVAL_THREAD it does not know, in one line', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(['eval', '--model', 'builtin:oracle', '-n', '1', '--output', dir], {
      env: { BAS_EVAL_THREAD: 'sometimes' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bas: BAS_EVAL_THREAD must be always, never or auto, not "sometimes"\n');
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses it in a sweep before the sweep makes its folder', async () => {
    const dir = join(tempDir(), 'sweep');
    const r = await bas(['sweep', '--num-transactions', '12,24', '-m', 'builtin:oracle', '-n', '2', '--output', dir], {
      env: { BAS_EVAL_THREAD: 'sometimes' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bas: BAS_EVAL_THREAD must be always, never or auto, not "sometimes"\n');
    expect(existsSync(dir)).toBe(false);
  });
});
