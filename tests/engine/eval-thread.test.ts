/**
 * runEval in a worker thread (the compiled eval-worker.js in dist/, which the global setup
 * builds): the same result and events as on the calling thread, the caller's signal and
 * preflight honoured, errors back as their own classes, the environment the caller gives and
 * no other, and a thread that dies ending the call with one clear error instead of a hang.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runEvalInWorker } from '../../src/engine/eval-thread.js';
import { wantsThread } from '../../src/engine/eval-placement.js';
import { runEval, type EvalEvent } from '../../src/engine/run-eval.js';
import { ConfigError, FatalRunError, describeError } from '../../src/errors/index.js';
import { forgetSecrets, redact } from '../../src/io/secrets.js';
import { evalSettings, type EvalConfig } from '../../src/settings/eval-config.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';
import { hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { tempDir } from '../support/cli.js';

const WORKER = new URL('../../dist/engine/eval-worker.js', import.meta.url);
const DYING = new URL('../support/dying-eval-worker.mjs', import.meta.url);

const oracle = (more: EvalConfig = {}) =>
  evalSettings({ model: 'builtin:oracle', task: { num_transactions: 8 }, ...more });
const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
/** The parts of a result that do not depend on when it ran. */
const timeless = (r: Awaited<ReturnType<typeof runEval>>) => ({
  outcome: r.outcome,
  total: r.total,
  ranHere: r.ranHere,
  summary: { ...r.summary, latency: null, latency_ms: null },
});

const servers: Array<GatedServer | HostileServer> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('runEvalInWorker', () => {
  it('gives the result and the events runEval gives on this thread', async () => {
    const settings = await oracle({ n: 7, rollouts: 2 });
    const here: EvalEvent[] = [];
    const there: EvalEvent[] = [];
    const a = await runEval(settings, { dir: join(tempDir(), 'a'), onEvent: (e) => here.push(e) });
    const b = await runEvalInWorker(settings, {
      dir: join(tempDir(), 'b'),
      env: {},
      script: WORKER,
      onEvent: (e) => there.push(e),
    });
    expect(timeless(b)).toEqual(timeless(a));
    expect(b.info.status).toBe('complete');
    expect(runJson(b.dir).summary.counts).toEqual(a.summary.counts);
    // Every event, in order; the records the same but for their latency.
    const shape = (e: EvalEvent) =>
      e.type === 'rollout'
        ? { type: e.type, index: e.record.index, reward: e.record.reward }
        : e.type === 'started'
          ? { type: e.type, total: e.total }
          : { type: e.type };
    const sorted = (es: EvalEvent[]) =>
      es.map(shape).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(there.map((e) => e.type)[0]).toBe('started');
    expect(sorted(there)).toEqual(sorted(here));
  });

  it('sends only the event types asked for, and none without a listener', async () => {
    const seen = new Set<string>();
    const r = await runEvalInWorker(await oracle({ n: 5 }), {
      dir: join(tempDir(), 'run'),
      env: {},
      script: WORKER,
      events: ['started', 'warning'],
      onEvent: (e) => seen.add(e.type),
    });
    expect([...seen]).toEqual(['started']);
    expect(r.summary.counts.completed).toBe(5);
    const quiet = await runEvalInWorker(await oracle({ n: 3 }), { dir: join(tempDir(), 'q'), env: {}, script: WORKER });
    expect(quiet.outcome).toEqual({ kind: 'ok' });
  });

  it('gives finished rollouts as rewards, in order, for a caller that only counts them', async () => {
    const rewards: number[] = [];
    const events: string[] = [];
    const r = await runEvalInWorker(await evalSettings({ model: 'builtin:silent', n: 30, concurrency: 4 }), {
      dir: join(tempDir(), 'run'),
      env: {},
      script: WORKER,
      events: ['started'],
      onEvent: (e) => events.push(e.type),
      onRewards: (batch) => rewards.push(...Array.from(batch)),
    });
    expect(events).toEqual(['started']);
    const records = readFileSync(join(r.dir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { reward: number | null; error: unknown });
    expect(rewards).toEqual(records.map((x) => (x.error ? Number.NaN : (x.reward ?? 0))));
    expect(rewards).toHaveLength(30);
  });

  it('stops when the caller aborts: run.json says interrupted, the outcome carries the caller’s own reason', async () => {
    // Three requests are answered and the rest held: the run cannot end before the stop.
    const gate = await gatedServer(3);
    servers.push(gate);
    const settings = await evalSettings(
      { model: 'm', n: 40, concurrency: 2, base_url: gate.url, api_key_var: 'K' },
      { env: { K: 'k' } },
    );
    const stop = new AbortController();
    const reason = { why: 'Ctrl-C, as the CLI would say it' };
    let done = 0;
    const dir = join(tempDir(), 'run');
    const r = await runEvalInWorker(settings, {
      dir,
      env: { K: 'k' },
      script: WORKER,
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'rollout' && ++done === 3) stop.abort(reason);
      },
    });
    gate.release();
    expect(r.outcome).toEqual({ kind: 'interrupted', reason, complete: false });
    expect((r.outcome as { reason: unknown }).reason).toBe(reason);
    expect(runJson(dir).status).toBe('interrupted');
    expect(runJson(dir).summary.counts.completed).toBe(3);
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);

    const resumed = await runEvalInWorker(
      await evalSettings({ base_url: gate.url, api_key_var: 'K' }, { resume: dir, env: { K: 'k' } }),
      {
        dir,
        resume: true,
        env: { K: 'k' },
        script: WORKER,
      },
    );
    expect(resumed.outcome).toEqual({ kind: 'ok' });
    expect(resumed.summary.counts).toMatchObject({ rollouts: 40, completed: 40 });
  });

  it('is interrupted, and complete, when the stop comes with the last rollout', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    let seen = 0;
    const r = await runEvalInWorker(await oracle({ n: 4 }), {
      dir,
      env: {},
      script: WORKER,
      signal: stop.signal,
      onEvent: (e) => {
        // The reader of the output goes away as the last rollout is shown (`| head -1`): by
        // then the thread may have decided its outcome, as runEval on this thread had not.
        if (e.type === 'rollout' && ++seen === 4) stop.abort('SIGPIPE');
      },
    });
    expect(r.outcome).toEqual({ kind: 'interrupted', reason: 'SIGPIPE', complete: true });
    expect(runJson(dir).status).toBe('complete');
  });

  it('rejects with the caller’s reason, touching nothing, when stopped before it starts', async () => {
    const dir = join(tempDir(), 'run');
    const stop = new AbortController();
    const reason = new Error('not now');
    stop.abort(reason);
    await expect(
      runEvalInWorker(await oracle({ n: 2 }), { dir, env: {}, script: WORKER, signal: stop.signal }),
    ).rejects.toBe(reason);
    expect(existsSync(dir)).toBe(false);
  });

  it('runs the caller’s preflight on the caller’s side, and ends with its own error when it throws', async () => {
    const dir = join(tempDir(), 'run');
    const refused = new FatalRunError('the endpoint refused the key');
    await expect(
      runEvalInWorker(await oracle({ n: 2 }), {
        dir,
        env: {},
        script: WORKER,
        preflight: () => Promise.reject(refused),
      }),
    ).rejects.toBe(refused);
    expect(existsSync(dir)).toBe(false);

    const order: string[] = [];
    const r = await runEvalInWorker(await oracle({ n: 2 }), {
      dir,
      env: {},
      script: WORKER,
      events: ['started'],
      onEvent: (e) => order.push(e.type),
      preflight: async () => void order.push(existsSync(dir) ? 'preflight after the folder' : 'preflight'),
    });
    expect(order).toEqual(['preflight', 'started']);
    expect(r.summary.counts.completed).toBe(2);
  });

  it('rejects with the engine’s own error classes, exit codes and messages', async () => {
    const missing = join(tempDir(), 'nothing-here');
    const settings = await oracle({ n: 2 });
    const here = await runEval(settings, { dir: missing, resume: true }).catch((e: unknown) => e);
    const there = await runEvalInWorker(settings, { dir: missing, resume: true, env: {}, script: WORKER }).catch(
      (e: unknown) => e,
    );
    expect(there).toBeInstanceOf(ConfigError);
    expect(describeError(there)).toEqual(describeError(here));
    expect(describeError(there).exitCode).toBe(2);
  });

  it('reads the API key from the environment it is given, not from the process', async () => {
    const seen: Array<string | undefined> = [];
    const server = await hostileServer((req, res) => {
      seen.push(req.headers.authorization);
      const { messages } = JSON.parse(req.body) as { messages: unknown[] };
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: `${messages.length}` }, finish_reason: 'stop' }],
      });
    });
    servers.push(server);
    const env = { BAS_THREAD_TEST_KEY: 'sk-given-to-the-thread' };
    expect(process.env.BAS_THREAD_TEST_KEY).toBeUndefined();
    const settings = await evalSettings(
      { model: 'm', n: 2, base_url: server.url, api_key_var: 'BAS_THREAD_TEST_KEY', max_error_rate: 1 },
      { env },
    );
    await runEvalInWorker(settings, { dir: join(tempDir(), 'run'), env, script: WORKER });
    expect(seen).toEqual(['Bearer sk-given-to-the-thread', 'Bearer sk-given-to-the-thread']);
  });

  describe('a thread that dies', () => {
    const dying = async (how: string, more: Partial<Parameters<typeof runEvalInWorker>[1]> = {}) =>
      runEvalInWorker(await oracle({ n: 2 }), {
        dir: join(tempDir(), 'run'),
        env: { DIE: how },
        script: DYING,
        ...more,
      }).catch((e: unknown) => e);

    const small = { maxOldGenerationSizeMb: 12, maxYoungGenerationSizeMb: 2 };

    it('out of memory ends the call with one line, not as a bug; before the run began, it says to run it again', async () => {
      const err = await dying('oom', { resourceLimits: small });
      expect(err).toBeInstanceOf(FatalRunError);
      expect(describeError(err)).toMatchObject({ exitCode: 1, internal: false });
      // The folder was given, but the run never began writing it: there is nothing to resume.
      expect(describeError(err).line).toBe(
        'the run ran out of memory; it died before its first rollout, so nothing was recorded: run it again',
      );
    });

    it('gives its folder back: run.json says interrupted, the lock is gone, and a resume in the same process continues it', async () => {
      const dir = join(tempDir(), 'run');
      const settings = await oracle({ n: 50 });
      const err = await runEvalInWorker(settings, {
        dir,
        env: { DIE: 'oom-at-first-record' },
        script: DYING,
        resourceLimits: small,
      }).catch((e: unknown) => e);
      // The death came as the first record was written, moments after the run began: the
      // folder's name had already crossed.
      expect(describeError(err).line).toBe(
        `the run ran out of memory; rollouts recorded so far are kept in ${dir}: continue with bas eval --resume ${dir}`,
      );
      expect(runJson(dir).status).toBe('interrupted');
      expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
      const resumed = await runEval(settings, { dir, resume: true });
      expect(resumed.outcome.kind).toBe('ok');
      expect(runJson(dir).status).toBe('complete');
    });

    it('leaves alone a folder whose lock is not its own', async () => {
      const dir = join(tempDir(), 'run');
      mkdirSync(dir);
      const lock = JSON.stringify({ program: 'bas', pid: process.pid, host: hostname(), token: 't', since: '' });
      writeFileSync(join(dir, '.bas.lock'), lock);
      await dying('oom', { dir, resourceLimits: small });
      expect(readFileSync(join(dir, '.bas.lock'), 'utf8')).toBe(lock);
    });

    it('has the key cut out of what it says, on this thread too', async () => {
      forgetSecrets();
      const key = 'sk-thread-secret-0123456789';
      const env = { BAS_THREAD_TEST_KEY: key, DIE: 'throw', SAY: `Bearer ${key}` };
      const settings = await evalSettings(
        { model: 'm', n: 2, base_url: 'http://127.0.0.1:9/v1', api_key_var: 'BAS_THREAD_TEST_KEY' },
        { env },
      );
      const err = await runEvalInWorker(settings, { dir: join(tempDir(), 'run'), env, script: DYING }).catch(
        (e: unknown) => e,
      );
      const line = describeError(err).line;
      expect(line).toContain('a bug in the thread: Bearer');
      expect(redact(line)).not.toContain(key);
      forgetSecrets();
    });

    it('a crash is reported as a bug of bas, with where it happened', async () => {
      const err = await dying('throw');
      expect(describeError(err)).toMatchObject({
        internal: true,
        exitCode: 1,
        line: expect.stringContaining('the eval thread failed: a bug in the thread'),
      });
      expect((err as Error).stack).toContain('dying-eval-worker.mjs');
    });

    it('an exit without an answer says so, with its code', async () => {
      expect(describeError(await dying('exit'))).toMatchObject({
        internal: true,
        line: expect.stringContaining('the eval thread stopped (exit code 7) before the run ended'),
      });
      expect(describeError(await dying('quietly')).line).toContain('(exit code 0)');
    });
  });
});

describe('wantsThread', () => {
  it("gives a built-in model's long runs a thread, short ones and endpoints none, unless BAS_EVAL_THREAD says otherwise", async () => {
    const short = await oracle({ n: 1999 });
    const long = await oracle({ n: 1000, rollouts: 2 });
    expect(wantsThread(short, {})).toBe(false);
    expect(wantsThread(long, {})).toBe(true);
    // A shard plans its own share of the tasks only.
    expect(wantsThread({ ...(await oracle({ n: 3000 })), shard: { index: 1, count: 2 } }, {})).toBe(false);
    expect(wantsThread(short, { BAS_EVAL_THREAD: 'always' })).toBe(true);
    expect(wantsThread(long, { BAS_EVAL_THREAD: 'never' })).toBe(false);
    expect(wantsThread(long, { BAS_EVAL_THREAD: 'auto' })).toBe(true);
    // A model behind an endpoint stays on the main thread unless told otherwise.
    const endpoint = { ...long, model: 'gpt-x' };
    expect(wantsThread(endpoint, {})).toBe(false);
    expect(wantsThread(endpoint, { BAS_EVAL_THREAD: 'always' })).toBe(true);
    expect(() => wantsThread(long, { BAS_EVAL_THREAD: 'yes' })).toThrow(
      new ConfigError('BAS_EVAL_THREAD must be always, never or auto, not "yes"'),
    );
  });
});
