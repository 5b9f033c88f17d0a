/**
 * A run folder is not trusted with secrets (issue 16 §5): a resume sends the key only to a host,
 * and only from a variable, that the user names now or that their registry names. A resume
 * against another endpoint is recorded, with the rollouts each endpoint answered (17 §6).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unconfirmedEndpoint } from '../../src/settings/resume-trust.js';
import { loadProviders } from '../../src/settings/providers.js';
import { bas, serve, tempDir, type Served } from '../support/cli.js';
import { hostileServer, type HostileServer } from '../support/hostile-server.js';
import { gatedServer } from '../support/gated-server.js';

const registry = loadProviders(null, {});
const check = (e: Partial<Parameters<typeof unconfirmedEndpoint>[0]>, env: NodeJS.ProcessEnv = {}) =>
  unconfirmedEndpoint(
    {
      baseURL: 'https://api.openai.com/v1',
      apiKeyVar: 'OPENAI_API_KEY',
      urlGivenNow: false,
      keyVarGivenNow: false,
      ...e,
    },
    registry,
    env,
    'DIR/run.json',
  );

describe('what a resume may take from run.json', () => {
  it("accepts a registry provider's host with its own key variable, and OpenAI's with OPENAI_API_KEY", () => {
    expect(check({})).toBeNull();
    expect(check({ baseURL: 'https://openrouter.ai/api/v1', apiKeyVar: 'OPENROUTER_API_KEY' })).toBeNull();
    expect(check({ baseURL: 'https://api.openai.com/v2/other-path' })).toBeNull();
  });

  it('refuses a host nobody names, naming the flag to give again', () => {
    expect(check({ baseURL: 'https://collector.example/v1' })).toBe(
      '--resume: DIR/run.json names the endpoint "https://collector.example/v1", which no flag, config file or provider registry of yours names; a run folder from elsewhere must not choose where your key goes: give --base-url https://collector.example/v1 again to use it',
    );
  });

  it("refuses another provider's key sent to a known host, and any variable nobody pairs with it", () => {
    expect(check({ baseURL: 'https://openrouter.ai/api/v1', apiKeyVar: 'OPENAI_API_KEY' })).toMatch(
      /says to send the key from OPENAI_API_KEY to https:\/\/openrouter\.ai, .* give --api-key-var OPENAI_API_KEY again/,
    );
    expect(check({ apiKeyVar: 'HOME' })).toMatch(/give --api-key-var HOME again/);
  });

  it("takes what is given now, and $OPENAI_BASE_URL as the user's own", () => {
    expect(check({ baseURL: 'http://127.0.0.1:9/v1', urlGivenNow: true })).toBeNull();
    expect(check({ baseURL: 'http://127.0.0.1:9/v1', urlGivenNow: true, apiKeyVar: 'HOME' })).toMatch(
      /--api-key-var HOME/,
    );
    expect(
      check({ baseURL: 'http://127.0.0.1:9/v1', apiKeyVar: 'HOME', urlGivenNow: true, keyVarGivenNow: true }),
    ).toBeNull();
    expect(check({ baseURL: 'http://gpu-box:8000/v1' }, { OPENAI_BASE_URL: 'http://gpu-box:8000/v1' })).toBeNull();
  });
});

describe('bas eval --resume of a folder from elsewhere', () => {
  let collector: HostileServer;
  let a: Served;
  let b: Served;
  beforeAll(async () => {
    collector = await hostileServer((_req, res) => res.end('{}'));
    [a, b] = await Promise.all([serve(['--models', 'm1']), serve(['--models', 'm1'])]);
  });
  afterAll(async () => {
    await Promise.all([collector.close(), a.stop(), b.stop()]);
  });

  /** A run of 4 tasks against `url` with one rollout recorded, as `kill -9` would leave it. */
  async function halfRun(url: string): Promise<string> {
    const dir = join(tempDir(), 'run');
    const r = await bas(
      ['eval', '-m', 'm1', '-n', '4', '--base-url', url, '--api-key-var', 'K', '--output', dir, '--no-progress'],
      { env: { K: 'k' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const results = join(dir, 'results.jsonl');
    writeFileSync(results, readFileSync(results, 'utf8').split('\n')[0] + '\n');
    // run.json as written at the start: a killed run never wrote its final counts.
    edit(dir, { status: 'running', summary: null, endpoints: [{ base_url: url, provider: null, rollouts: 0 }] });
    return dir;
  }

  function edit(dir: string, fields: Record<string, unknown>): void {
    const file = join(dir, 'run.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ...fields }));
  }

  it('refuses before any request when run.json names a host and variable the user never gave', async () => {
    const dir = await halfRun(a.url);
    edit(dir, { base_url: collector.url, api_key_var: 'HOME' });
    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /names the endpoint .* give --base-url http:\/\/127\.0\.0\.1:\d+\/v1 again/,
    );
    const named = await bas(['eval', '--resume', dir, '--no-progress', '--base-url', collector.url]);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(
      /send the key from HOME to http:\/\/127\.0\.0\.1:\d+, .* give --api-key-var HOME again/,
    );
    expect(collector.seen).toHaveLength(0);
  });

  it('goes on once both are given again', async () => {
    const dir = await halfRun(a.url);
    const r = await bas(['eval', '--resume', dir, '--no-progress', '--base-url', a.url, '--api-key-var', 'K'], {
      env: { K: 'k' },
    });
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(info.status).toBe('complete');
    expect(info.endpoints).toEqual([{ base_url: a.url, provider: null, rollouts: 4 }]);
  });

  it('against another endpoint records both, with the rollouts each answered, and the report names them', async () => {
    const dir = await halfRun(a.url);
    const r = await bas(['eval', '--resume', dir, '--no-progress', '--base-url', b.url, '--api-key-var', 'K'], {
      env: { K: 'k' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`was run against ${a.url} and continues against ${b.url}`);
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(info.endpoints).toEqual([
      { base_url: a.url, provider: null, rollouts: 1 },
      { base_url: b.url, provider: null, rollouts: 3 },
    ]);
    const report = await bas(['report', dir]);
    expect(report.stdout).toMatch(new RegExp(`endpoint: +${a.url} answered 1\n`));
    expect(report.stdout).toMatch(new RegExp(`endpoint: +${b.url} answered 3\n`));
    const json = JSON.parse((await bas(['report', dir, '--json'])).stdout);
    expect(json.run.endpoints).toHaveLength(2);
  });
});

describe('bas sweep --resume of a finished sweep', () => {
  it('prints its table again without the endpoint, which it does not call', async () => {
    const gate = await gatedServer(100);
    const dir = join(tempDir(), 'sweep');
    const env = { SWEEP_KEY: 'sk-sweep-finished-77' };
    try {
      const first = await bas(
        ['sweep', '-m', 'm', '-n', '2', '--num-transactions', '8,12', '--output', dir, '--no-progress'].concat([
          '--base-url',
          gate.url,
          '--api-key-var',
          'SWEEP_KEY',
        ]),
        { env },
      );
      expect(first.code, first.stderr).toBe(0);
    } finally {
      await gate.close();
    }
    const r = await bas(['sweep', '--resume', dir, '--csv', '--no-progress'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^m,/.test(l))).toHaveLength(2);
  });
});

describe('bas sweep --resume of a plan from elsewhere', () => {
  it('refuses a host and variable the plan alone names, before any point runs, and takes them given again', async () => {
    const collector = await hostileServer((_req, res) => res.end('{}'));
    try {
      const dir = join(tempDir(), 'sweep');
      const first = await bas([
        'sweep',
        '-m',
        'builtin:oracle',
        '-n',
        '1',
        '--num-transactions',
        '8,12',
        '--output',
        dir,
        '--no-progress',
      ]);
      expect(first.code, first.stderr).toBe(0);
      // The second point never ran, and the plan now sends HOME to a collector.
      const file = join(dir, 'sweep.json');
      const plan = JSON.parse(readFileSync(file, 'utf8'));
      plan.points.push({ num_transactions: 16, fault_rate: null, folder: 'rows-16' });
      plan.flags = { ...plan.flags, model: 'm1', baseUrl: collector.url, apiKeyVar: 'HOME' };
      writeFileSync(file, JSON.stringify(plan));
      const r = await bas(['sweep', '--resume', dir, '--no-progress']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/sweep\.json names the endpoint .* give --base-url http:\/\/127\.0\.0\.1:\d+\/v1 again/);
      const var_ = await bas(['sweep', '--resume', dir, '--no-progress', '--base-url', collector.url]);
      expect(var_.code).toBe(2);
      expect(var_.stderr).toMatch(/give --api-key-var HOME again/);
      expect(collector.seen).toHaveLength(0);
    } finally {
      await collector.close();
    }
  });
});
