/**
 * When a threaded run's outcome is fixed, against the caller's stop: as on the main thread,
 * where runEval decides it after the last event was shown, a stop raised while the caller
 * shows the thread's events (`| head -1` closing on the last progress line) still makes it
 * interrupted, and a stop that comes once the thread's answer is in (between its result and
 * its exit) changes nothing: the run had ended, as it would have on the main thread.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runEvalInWorker } from '../../src/engine/eval-thread.js';
import { evalSettings } from '../../src/settings/eval-config.js';
import { tempDir } from '../support/cli.js';

const WORKER = new URL('../../dist/engine/eval-worker.js', import.meta.url);
const runJson = (dir: string): Record<string, unknown> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("runEvalInWorker and the caller's stop", () => {
  it('a stop after the thread has answered leaves its outcome as it was', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    const terminate = Worker.prototype.terminate;
    // The thread is ended once its answer is in: that is the moment between its result and its exit.
    vi.spyOn(Worker.prototype, 'terminate').mockImplementation(function (this: Worker) {
      stop.abort('SIGINT');
      return terminate.call(this);
    });
    const r = await runEvalInWorker(
      await evalSettings({ model: 'builtin:oracle', task: { num_transactions: 8 }, n: 4 }),
      { dir, env: {}, script: WORKER, signal: stop.signal },
    );
    expect(stop.signal.aborted).toBe(true);
    expect(r.outcome).toEqual({ kind: 'ok' });
    expect(runJson(dir).status).toBe('complete');
  });
});
