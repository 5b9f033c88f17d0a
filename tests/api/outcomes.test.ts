/**
 * Each way a run stops has one outcome shape in the public API (issue 37): a budget is
 * `{ kind: 'budget', message }`, a stopping rule `{ kind: 'precision' | 'decided', sequential }`,
 * and the result's data is snake_case (`ran_here`, `recorded_here`, `elapsed_s`).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEval } from '../../src/index.js';
import { hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { tempDir } from '../support/cli.js';

let server: HostileServer;

beforeAll(async () => {
  // Every reply bills 400 tokens: a budget of 1,000 holds two rollouts at most.
  server = await hostileServer((_req, res) =>
    sendJson(res, 200, {
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: '<answer>{}</answer>' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 300, completion_tokens: 100, total_tokens: 400 },
    }),
  );
});
afterAll(() => server.close());

describe('runEval outcomes', () => {
  it('a run stopped at its budget: kind budget with its message, fewer recorded than set out', async () => {
    const output = join(tempDir(), 'run');
    const r = await runEval(
      {
        model: 'm',
        base_url: server.url,
        api_key_var: 'OUTCOME_KEY',
        n: 20,
        concurrency: 1,
        max_retries: 0,
        sampling: { max_tokens: 100 },
        max_total_tokens: 1000,
        output,
      },
      { env: { OUTCOME_KEY: 'sk-outcome' } },
    );
    expect(r.outcome).toEqual({ kind: 'budget', message: expect.stringMatching(/--max-total-tokens/) });
    expect(r.info.status).toBe('budget');
    expect(r.ran_here).toBe(20);
    expect(r.recorded_here).toBeLessThan(20);
    expect(r.elapsed_s).toBeGreaterThanOrEqual(0);
  });

  it('a run stopped by --precision: kind precision with the interval, as run.json keeps it', async () => {
    const output = join(tempDir(), 'run');
    const r = await runEval({ model: 'builtin:oracle', n: 2000, precision: 0.2, output });
    expect(r.outcome).toEqual({ kind: 'precision', sequential: r.sequential });
    expect(r.info.status).toBe('precision');
    expect(r.recorded_here).toBeLessThan(2000);
  });
});
