/**
 * A run against an endpoint starts once its client can send: the SDK's load (about 0.1–0.2 s
 * of module loading) happens before run.json says `running`, not inside the run's time, where
 * it delayed the first request (issue 24 §6). A failed load is still the first request's error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runEval, type EvalEvent } from '../../src/index.js';
import { completion, hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { tempDir } from '../support/cli.js';

/** The SDK's load, held until the test lets it go (or made to fail). */
const load = vi.hoisted(() => ({ gate: null as Promise<void> | null, fail: false }));

vi.mock('../../src/endpoint/sdk.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/endpoint/sdk.js')>();
  return {
    ...real,
    makeSdk: async (opts: Parameters<typeof real.makeSdk>[0]) => {
      await load.gate;
      if (load.fail) throw new Error('Cannot find package openai');
      return real.makeSdk(opts);
    },
  };
});

let server: HostileServer;
beforeEach(async () => {
  load.gate = null;
  load.fail = false;
  server = await hostileServer((_req, res) => sendJson(res, 200, completion('no answer', 'm')));
});
afterEach(() => server.close());

const config = (dir: string) => ({
  model: 'm',
  base_url: server.url,
  api_key_var: 'K',
  n: 2,
  max_retries: 0,
  max_error_rate: 1,
  output: dir,
});

describe('a run waits for its client before it starts', () => {
  it('takes no folder and says nothing until the SDK is loaded, then starts and sends at once', async () => {
    let release!: () => void;
    load.gate = new Promise<void>((resolve) => (release = resolve));
    const dir = join(tempDir(), 'run');
    const events: EvalEvent['type'][] = [];
    const run = runEval(config(dir), { env: { K: 'k' }, onEvent: (e) => events.push(e.type) });
    // Many turns of the event loop with the load held: nothing has started.
    for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(events).toEqual([]);
    expect(existsSync(join(dir, 'run.json'))).toBe(false);
    release();
    const r = await run;
    expect(events[0]).toBe('started');
    expect(r.summary.counts.rollouts).toBe(2);
    expect(server.seen).toHaveLength(2);
  });

  it('reports a failed load as the first request error, as before', async () => {
    load.fail = true;
    const dir = join(tempDir(), 'run');
    const r = await runEval(config(dir), { env: { K: 'k' } });
    expect(server.seen).toHaveLength(0);
    expect(r.outcome.kind).not.toBe('ok');
    expect(existsSync(join(dir, 'run.json'))).toBe(true);
  });
});
