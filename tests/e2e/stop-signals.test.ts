/**
 * A stop has one owner (src/io/std.ts `onStop`): the same signal delivered twice in a burst
 * (GNU `timeout -s INT` signals the child, then its process group) stops `bas eval` once, on
 * either path, with its final run.json, its one line and exit 130; and an eval run inside
 * another program stops when that program asks through the run's `stop`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, startBas, tempDir } from '../support/cli.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';

const KEY = 'sk-bas-stop-SECRET-7d41';
const gates: GatedServer[] = [];
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
});

/** Polls `ready()` until it holds: what the test waits for is a state of the run, not a duration. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

/** A run whose first `open` rollouts are recorded and the rest held: it cannot finish on its own. */
async function heldRun(open: number): Promise<{ url: string; dir: string; recorded: () => boolean }> {
  const gate = await gatedServer(open);
  gates.push(gate);
  const dir = join(tempDir(), 'run');
  const file = join(dir, 'results.jsonl');
  return {
    url: gate.url,
    dir,
    recorded: () => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > open,
  };
}

function expectInterrupted(dir: string, recorded: number): void {
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
  expect(run.status).toBe('interrupted');
  expect(readResults(dir)).toHaveLength(recorded);
  expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
}

describe('a stop signal sent twice in a burst', () => {
  for (const when of ['1 ms later', 'as its last line is printed'] as const) {
    it(`stops bas eval once, the repeat ${when}: exit 130, run.json interrupted`, async () => {
      const run = await heldRun(4);
      const child = startBas(
        ['eval', '-m', 'm', '--base-url', run.url, '--output', run.dir, '--no-progress', '-n', '60', '-c', '2'],
        { env: { OPENAI_API_KEY: KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        // The run has ended and the process is on its way out: the repeat must not kill it.
        if (when === 'as its last line is printed' && stderr.includes('\n')) child.kill('SIGINT');
      });
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
        child.once('exit', (code, sig) => r([code, sig])),
      );
      await until(run.recorded);
      // As `timeout -s INT` delivers it: to the process, then to its group.
      child.kill('SIGINT');
      if (when === '1 ms later') setTimeout(() => child.kill('SIGINT'), 1);
      expect(await exited).toEqual([130, null]);
      expect(stderr).toMatch(/^bas: interrupted by SIGINT(; it used .*)?; finished rollouts are kept in .*--resume/);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expectInterrupted(run.dir, 4);
    });
  }
});

describe("an eval run inside another program, stopped through the run's stop", () => {
  for (const [reason, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`ends as ${reason} would: exit ${code}, run.json interrupted, no lock, no handler left`, async () => {
      const handlers = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
      const run = await heldRun(3);
      const stop = new AbortController();
      const ended = bas(
        ['eval', '-m', 'm', '--base-url', run.url, '--output', run.dir, '--no-progress', '-n', '40', '-c', '2'],
        { env: { OPENAI_API_KEY: KEY }, stop: stop.signal },
      );
      await until(run.recorded);
      stop.abort(reason);
      const r = await ended;
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(
        new RegExp(`^bas: interrupted by ${reason}(; it used .*)?; finished rollouts are kept in .*--resume`),
      );
      expectInterrupted(run.dir, 3);
      expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(handlers);
    });
  }
});
