/**
 * runEval as a library call (the public one, which plans and runs): it prints nothing, installs no process handler, returns a typed
 * outcome for every way a run ends, and writes run.json's status and sessions through the
 * run folder's owner. A run whose every rollout is recorded is complete even when its stop
 * came after the last record; the time a run took counts every session.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readRunFolder, runEval, type EvalConfig, type EvalEvent } from '../../src/index.js';
import { buildRunReport, renderRunReport } from '../../src/report/run-report.js';
import { readRun } from '../../src/report/read.js';
import { closedPort } from '../support/closed-port.js';
import { hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { tempDir } from '../support/cli.js';

const oracle = (more: EvalConfig = {}): EvalConfig => ({
  model: 'builtin:oracle',
  task: { num_transactions: 8 },
  ...more,
});

const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

/** Every write to the process's stdout and stderr while a test runs. */
let writes: unknown[];
let listeners: Record<string, number>;
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGPIPE', 'exit', 'uncaughtException', 'unhandledRejection'] as const;
beforeEach(() => {
  writes = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (writes.push(chunk), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (writes.push(chunk), true));
  listeners = Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s)]));
});
afterEach(() => {
  vi.restoreAllMocks();
  // Nothing written, and no process-wide handler left behind (or added while it ran).
  expect(writes).toEqual([]);
  expect(Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s)]))).toEqual(listeners);
});

describe('runEval', () => {
  it('runs a built-in model, prints nothing, and returns run.json, the summary and the outcome', async () => {
    const dir = join(tempDir(), 'run');
    const events: EvalEvent['type'][] = [];
    let handlers = -1;
    const r = await runEval(oracle({ n: 6, output: dir }), {
      onEvent: (e) => {
        events.push(e.type);
        if (e.type === 'started') handlers = process.listenerCount('SIGINT');
      },
    });
    expect(handlers).toBe(listeners.SIGINT);
    expect(r.outcome).toEqual({ kind: 'ok' });
    expect(r).toMatchObject({ dir, total: 6, ran_here: 6 });
    expect(r.summary.counts).toMatchObject({ rollouts: 6, completed: 6, errored: 0 });
    expect(r.info.status).toBe('complete');
    expect(runJson(dir)).toMatchObject({ status: 'complete', n: 6 });
    expect(events[0]).toBe('started');
    expect(events.filter((t) => t === 'rollout')).toHaveLength(6);
  });

  it('runs two evals side by side in one process without sharing anything', async () => {
    const [a, b] = [join(tempDir(), 'a'), join(tempDir(), 'b')];
    const [ra, rb] = await Promise.all([
      runEval(oracle({ n: 5, output: a })),
      runEval({ model: 'builtin:silent', n: 3, output: b }),
    ]);
    expect(ra.summary.counts.completed).toBe(5);
    expect(ra.summary.reward.mean).toBe(1);
    expect(rb.summary.counts.completed).toBe(3);
    expect(rb.summary.reward.mean).toBeLessThan(1);
    expect(runJson(a).model).toBe('builtin:oracle');
    expect(runJson(b).model).toBe('builtin:silent');
  });

  it('is complete when the stop comes after the last rollout was recorded', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    let seen = 0;
    const r = await runEval(oracle({ n: 4, output: dir }), {
      signal: stop.signal,
      onEvent: (e) => {
        // The reader of the output goes away just as the last rollout ends (`| head -1`).
        if (e.type === 'rollout' && ++seen === 4) stop.abort('SIGPIPE');
      },
    });
    expect(r.outcome).toEqual({ kind: 'interrupted', reason: 'SIGPIPE', complete: true });
    expect(runJson(dir).status).toBe('complete');
    expect(runJson(dir).summary.counts.rollouts).toBe(4);
  });

  it('is interrupted when stopped before every rollout is recorded, and a resume finishes it', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    let seen = 0;
    const first = await runEval(oracle({ n: 6, concurrency: 1, output: dir }), {
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'rollout' && ++seen === 2) stop.abort('SIGINT');
      },
    });
    expect(first.outcome).toEqual({ kind: 'interrupted', reason: 'SIGINT', complete: false });
    expect(runJson(dir).status).toBe('interrupted');
    const kept = first.summary.counts.rollouts;
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(kept).toBeLessThan(6);

    const events: EvalEvent[] = [];
    const again = await runEval(
      {},
      {
        resume: dir,
        onEvent: (e) => events.push(e),
      },
    );
    expect(events[0]).toEqual({ type: 'resuming', dir, pending: 6 - kept, total: 6 });
    expect(again.outcome).toEqual({ kind: 'ok' });
    expect(again.ran_here).toBe(6 - kept);
    const info = runJson(dir);
    expect(info.status).toBe('complete');
    // Two sessions, each with its start, end and rollouts; the total is their sum.
    expect(info.sessions).toHaveLength(2);
    expect(info.sessions.map((s: { rollouts: number }) => s.rollouts)).toEqual([kept, 6 - kept]);
    const length = (s: { started_at: string; ended_at: string }): number =>
      (Date.parse(s.ended_at) - Date.parse(s.started_at)) / 1000;
    expect(info.elapsed_s).toBeCloseTo(length(info.sessions[0]) + length(info.sessions[1]), 3);
    expect(info.resumed_at).toEqual([info.sessions[1].started_at]);
    expect(info.started_at).toBe(info.sessions[0].started_at);

    const read = await readRunFolder(dir);
    expect(read.time).toEqual({ elapsed_s: info.elapsed_s, sessions: 2, unknown: 0 });
    const text = renderRunReport(buildRunReport(await readRun(dir, () => {})));
    expect(text).toMatch(/^wall time: +(\d+ ms|\d+\.\d s) over 2 sessions$/m);

    const done = await runEval({}, { resume: dir });
    expect(done.outcome).toEqual({ kind: 'nothing-to-do' });
    expect(runJson(dir).sessions).toHaveLength(2);
  });

  it('resumes a run folder written by bas 0.3 (no sessions) and counts its time as far as it is known', async () => {
    const dir = join(tempDir(), 'run');
    await runEval(oracle({ n: 2, output: dir }));
    // What 0.3 wrote after a first session and one resume, both cut short: no sessions, no
    // elapsed_s, the end of the last session only.
    const { sessions: _s, elapsed_s: _e, ...old } = runJson(dir);
    const legacy = {
      ...old,
      bas_version: '0.3.0',
      n: 4,
      status: 'interrupted',
      started_at: '2026-01-01T00:00:00.000Z',
      resumed_at: ['2026-01-01T01:00:00.000Z'],
      ended_at: '2026-01-01T01:00:10.000Z',
    };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(legacy, null, 2));
    const before = await readRunFolder(dir);
    expect(before.time).toEqual({ elapsed_s: 10, sessions: 2, unknown: 1 });
    expect(renderRunReport(buildRunReport(await readRun(dir, () => {})))).toMatch(
      /^wall time: +at least 10\.0 s over 2 sessions, 1 of unknown length$/m,
    );

    const r = await runEval({}, { resume: dir });
    expect(r.outcome).toEqual({ kind: 'ok' });
    expect(r.ran_here).toBe(2);
    const info = runJson(dir);
    expect(info.status).toBe('complete');
    expect(info.started_at).toBe(legacy.started_at);
    expect(info.resumed_at).toHaveLength(2);
    expect(info.sessions).toHaveLength(3);
    expect(info.sessions.slice(0, 2)).toEqual([
      { started_at: '2026-01-01T00:00:00.000Z', ended_at: null, rollouts: null },
      { started_at: '2026-01-01T01:00:00.000Z', ended_at: '2026-01-01T01:00:10.000Z', rollouts: null },
    ]);
    expect(info.sessions[2].rollouts).toBe(2);
    expect(info.elapsed_s).toBeGreaterThanOrEqual(10);
    expect(r.summary.counts).toMatchObject({ rollouts: 4, completed: 4 });
  });

  it('refuses, on a resume, settings that measure something else', async () => {
    const dir = join(tempDir(), 'run');
    await runEval(oracle({ n: 2, output: dir }));
    await expect(runEval(oracle({ n: 3, task: { num_transactions: 9 } }), { resume: dir })).rejects.toThrow(
      /differs from the saved run/,
    );
  });

  it('rejects with the signal reason, touching nothing, when stopped before it starts', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    stop.abort(new Error('not now'));
    await expect(runEval(oracle({ n: 2, output: dir }), { signal: stop.signal })).rejects.toThrow('not now');
    await expect(readRunFolder(dir)).rejects.toThrow();
  });

  it('says the endpoint stopped the run, and that the folder may be started again, for an unreachable endpoint', async () => {
    const dir = join(tempDir(), 'run');
    const env = { K: 'sk-test' };
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const s = { model: 'm', n: 4, base_url: url, api_key_var: 'K', max_retries: 0, output: dir };
    const r = await runEval(s, { env });
    expect(r.outcome).toMatchObject({ kind: 'endpoint-stopped', restartable: true, failure: { type: 'network' } });
    expect(runJson(dir).status).toBe('failed');
  });

  describe('against an endpoint that fails', () => {
    let server: HostileServer;
    let count = 0;
    beforeEach(async () => {
      count = 0;
      // Every other request fails with a 500; the rest reply with no answer block (scored 0).
      server = await hostileServer((_req, res) => {
        if (count++ % 2 === 0) return sendJson(res, 500, { error: { message: 'boom' } });
        sendJson(res, 200, {
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'no answer' }, finish_reason: 'stop' }],
        });
      });
    });
    afterEach(() => server.close());

    const settings = (more: EvalConfig): EvalConfig => ({
      model: 'm',
      base_url: server.url,
      api_key_var: 'K',
      max_retries: 0,
      concurrency: 1,
      output: join(tempDir(), 'run'),
      ...more,
    });

    it('reports errors over the budget with their counts', async () => {
      const r = await runEval(settings({ n: 4 }), { env: { K: 'k' } });
      expect(r.outcome).toEqual({ kind: 'over-error-budget', errored: 2, rollouts: 4, max_error_rate: 0.1 });
      expect(r.info.status).toBe('complete');
    });

    it('is ok when the errors are within the budget', async () => {
      const r = await runEval(settings({ n: 4, max_error_rate: 0.5 }), { env: { K: 'k' } });
      expect(r.outcome).toEqual({ kind: 'ok' });
    });

    it('says so when nothing completed', async () => {
      const r = await runEval(settings({ n: 1 }), { env: { K: 'k' } });
      expect(r.outcome).toEqual({ kind: 'nothing-completed' });
    });
  });
});
