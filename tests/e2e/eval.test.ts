/**
 * End to end: the real CLI, the real openai SDK, `bas serve` over loopback HTTP.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  allFiles,
  bas,
  readResults,
  ROOT,
  serve,
  stableSummary,
  startBas,
  tempDir,
  type Served,
} from '../support/cli.js';
import { gatedServer, type GatedServer } from '../support/gated-server.js';

const KEY = 'sk-bas-e2e-SECRET-7f3a9c';
const TYPES = ['timeout', 'rate_limit', 'provider', 'network', 'malformed'];
const servers: Served[] = [];
const gates: GatedServer[] = [];
const start = async (args: string[]) => {
  const s = await serve(args);
  servers.push(s);
  return s;
};

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(gates.map((g) => g.close()));
});

/** Polls `ready()` until it holds: what the test waits for is a state of the run, not a duration. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 5));
}

const evalArgs = (url: string, dir: string, extra: string[] = []) => [
  'eval',
  '-m',
  'test-model',
  '--base-url',
  url,
  '--output',
  dir,
  '--no-progress',
  '--json',
  ...extra,
];

describe('bas eval against bas serve', () => {
  it('every rollout ends scored or with a typed error, none lost, through faults of every kind', async () => {
    const s = await start([
      '--error-rate',
      '0.15',
      '--rate-limit-rate',
      '0.15',
      '--retry-after',
      '0.01',
      '--malformed-rate',
      '0.05',
      '--hang-rate',
      '0.03',
      '--seed',
      '3',
    ]);
    const dir = join(tempDir(), 'run');
    const r = await bas(
      evalArgs(s.url, dir, [
        '-n',
        '40',
        '-r',
        '2',
        '-c',
        '8',
        '--request-timeout',
        '0.2',
        '--max-retries',
        '3',
        '--max-error-rate',
        '1',
      ]),
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(r.code).toBe(0);
    const records = readResults(dir);
    expect(records).toHaveLength(80);
    const pairs = new Set(records.map((x) => `${x.index}:${x.rollout}`));
    expect(pairs.size).toBe(80);
    for (const x of records) {
      if (x.error === null) {
        expect(typeof x.reward).toBe('number');
        expect(typeof x.reply).toBe('string');
      } else {
        expect(TYPES).toContain(x.error.type);
        expect(x.reward).toBeNull();
        expect(x.error.message.length).toBeGreaterThan(0);
      }
    }
    expect(records.some((x) => x.attempts > 1 && x.error === null)).toBe(true);
    expect(records.some((x) => x.error?.type === 'malformed')).toBe(true);
    const summary = JSON.parse(r.stdout);
    expect(summary.counts.rollouts).toBe(80);
    expect(summary.counts.completed + summary.counts.errored).toBe(80);
    expect(summary.pass_at_k.length).toBeGreaterThan(0);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run.status).toBe('complete');
    expect(run.api_key_var).toBe('OPENAI_API_KEY');
  });

  it('honours Retry-After: waits at least as long as asked, and never past the episode deadline', async () => {
    const s = await start(['--rate-limit-rate', '0.5', '--retry-after', '0.2', '--seed', '5']);
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['-n', '8', '-c', '4', '--max-retries', '8']), {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(r.code).toBe(0);
    const retried = readResults(dir).filter((x) => x.attempts > 1);
    expect(retried.length).toBeGreaterThan(0);
    for (const x of retried) expect(x.latency_ms).toBeGreaterThanOrEqual(200 * (x.attempts - 1));

    const slow = await start(['--rate-limit-rate', '1', '--retry-after', '30']);
    const dir2 = join(tempDir(), 'run');
    const r2 = await bas(evalArgs(slow.url, dir2, ['-n', '3', '--timeout', '5']), {
      env: { OPENAI_API_KEY: KEY },
    });
    // Nothing completed: never exit 0. A wait past the episode fails each rollout at once, and
    // on the first three rollouts stops the run as a first-contact failure.
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain('asks for longer waits than an episode allows');
    expect(r2.stderr).not.toContain('.;');
    for (const x of readResults(dir2)) {
      expect(x.error.type).toBe('rate_limit');
      expect(x.attempts).toBe(1);
    }
  });

  it('a malformed endpoint answer is a typed error, not a crash', async () => {
    const s = await start(['--malformed-rate', '1']);
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['-n', '8']), { env: { OPENAI_API_KEY: KEY } });
    expect(r.code).toBe(3);
    expect(readResults(dir).map((x) => x.error?.type)).toEqual(Array(8).fill('malformed'));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a refused key stops the run with one message, exit 1, and the key appears nowhere', async () => {
    const s = await start(['--api-key', 'the-right-key']);
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['-n', '50', '-c', '4']), { env: { OPENAI_API_KEY: KEY } });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bas: the endpoint refused the API key \(HTTP 401\)/);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('failed');
    for (const f of allFiles(dir)) expect(f.text).not.toContain(KEY);
    expect(r.stderr).not.toContain(KEY);
  });

  it('an unknown model stops the run', async () => {
    const s = await start(['--models', 'served-model']);
    const r = await bas(evalArgs(s.url, join(tempDir(), 'run'), ['-n', '5']), { env: { OPENAI_API_KEY: KEY } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bas: the endpoint does not know this model/);
  });

  it('the API key is written to no file and no output of a normal run', async () => {
    const s = await start(['--api-key', KEY, '--error-rate', '0.2', '--retry-after', '0.01']);
    const dir = join(tempDir(), 'run');
    const r = await bas(
      ['eval', '-m', 'test-model', '--base-url', s.url, '--output', dir, '-n', '10', '--api-key-var', 'MY_KEY'],
      { env: { MY_KEY: KEY } },
    );
    expect(r.code).toBe(0);
    expect(readResults(dir).filter((x) => x.error === null).length).toBeGreaterThan(0);
    const files = allFiles(dir);
    expect(files.map((f) => f.path.split('/').pop()).sort()).toEqual(['results.jsonl', 'run.json']);
    for (const f of files) expect(f.text).not.toContain(KEY);
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).api_key_var).toBe('MY_KEY');
  });

  it('kill -9 mid-run, then --resume, completes the run exactly', async () => {
    const args = ['-n', '60', '-r', '2', '-c', '3', '--num-transactions', '12', '--fault-rate', '0.3'];
    const open = await gatedServer(Infinity);
    gates.push(open);
    const whole = join(tempDir(), 'whole');
    const full = await bas(evalArgs(open.url, whole, args), { env: { OPENAI_API_KEY: KEY } });
    expect(full.code).toBe(0);

    // The endpoint answers 14 requests and holds the rest, so the run is mid-way when killed.
    const gate = await gatedServer(14);
    gates.push(gate);
    const dir = join(tempDir(), 'killed');
    const child = startBas(evalArgs(gate.url, dir, args), { env: { OPENAI_API_KEY: KEY } });
    const exited = new Promise((r) => child.once('exit', r));
    const file = join(dir, 'results.jsonl');
    await until(() => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 14);
    child.kill('SIGKILL');
    await exited;
    gate.release();
    expect(readResults(dir)).toHaveLength(14);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('running');
    appendFileSync(file, '{"index": 59, "rollout": 1, "reply": "torn wri'); // a write cut short by the kill

    const resumed = await bas(['eval', '--resume', dir, '--no-progress', '--json', '--base-url', gate.url], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(resumed.stderr).not.toMatch(/line \d+/);
    expect(resumed.code).toBe(0);
    const records = readResults(dir);
    expect(records).toHaveLength(120);
    expect(new Set(records.map((x) => `${x.index}:${x.rollout}`)).size).toBe(120);
    expect(stableSummary(JSON.parse(resumed.stdout))).toEqual(stableSummary(JSON.parse(full.stdout)));
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('complete');
  });

  it('SIGINT stops new work, marks the run interrupted, exits 130; --resume finishes it', async () => {
    // Five requests are answered and the rest held: the run cannot finish before the signal.
    const gate = await gatedServer(5);
    gates.push(gate);
    const dir = join(tempDir(), 'run');
    const child = startBas(evalArgs(gate.url, dir, ['-n', '200', '-c', '2']), {
      env: { OPENAI_API_KEY: KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const file = join(dir, 'results.jsonl');
    await until(() => existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 5);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/^bas: interrupted by SIGINT; .*--resume/);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run.status).toBe('interrupted');
    expect(run.summary.counts.rollouts).toBe(readResults(dir).length);
    expect(readResults(dir)).toHaveLength(5);
    gate.release();

    // The endpoint is given again: a resume never takes it from run.json alone.
    const resumed = await bas(
      ['eval', '--resume', dir, '--no-progress', '--json', '-c', '16', '--base-url', gate.url],
      {
        env: { OPENAI_API_KEY: KEY },
      },
    );
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).counts).toMatchObject({ rollouts: 200, completed: 200, replaced: 0 });
  });
});

describe('bas eval --json', () => {
  it('carries what the figures were measured with beside the summary, whose shape stays', async () => {
    const s = await start([]);
    const dir = join(tempDir(), 'run');
    const extra = [
      '-n',
      '3',
      '--num-transactions',
      '20',
      '--fault-rate',
      '0.3',
      '--seed',
      '5',
      '--temperature',
      '0',
      '--max-tokens',
      '900',
    ];
    const r = await bas(evalArgs(s.url, dir, extra), { env: { OPENAI_API_KEY: KEY } });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    // The CI recipe's fields stay where they were.
    expect(out.counts.completed).toBe(3);
    expect(out.reward_errors_as_zero.ci95).toHaveLength(2);
    const host = new URL(s.url).host;
    expect(out.provenance).toMatchObject({
      model: 'test-model',
      endpoint: host,
      provider: 'none',
      n: 3,
      rollouts: 1,
      task: { num_transactions: 20, fault_rate: 0.3, seed: 5 },
      sampling: { temperature: 0, max_tokens: 900, reasoning_effort: null, extra: {} },
      bas_version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
      made_by: 'bas eval',
    });
    // When and how long are run.json's: a resumed run prints the JSON an uninterrupted one does.
    for (const k of ['started_at', 'ended_at', 'wall_time_s', 'status']) expect(out.provenance).not.toHaveProperty(k);
    expect(out.provenance.generator).toBeGreaterThan(0);
    expect(out.provenance.prompt_version).toBeGreaterThan(0);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });
});

describe('bas eval without a server', () => {
  it('runs a built-in model with no key and no network', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(['eval', '--model', 'builtin:oracle', '-n', '20', '--output', dir, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.counts.completed).toBe(20);
    expect(summary.reward.mean).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).base_url).toBeNull();
  });

  it('ignores BAS_EVAL_THREAD, which development builds of 0.4.1 read: any value runs as without it', async () => {
    for (const value of ['always', 'sometimes']) {
      const dir = join(tempDir(), 'run');
      const r = await bas(['eval', '--model', 'builtin:oracle', '-n', '3', '--output', dir, '--no-progress'], {
        env: { BAS_EVAL_THREAD: value },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`bas: results in ${dir}\n`);
    }
  });

  it('a run whose errored share passes --max-error-rate exits 3, and says why', async () => {
    const s = await start(['--error-rate', '0.5', '--retry-after', '0', '--seed', '2']);
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['-n', '30', '-c', '4', '--max-retries', '0']), {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /bas: \d+ of 30 rollouts errored, more than --max-error-rate 0\.1 allows; commonest: provider, "HTTP 500: The server had an error/,
    );
    const summary = JSON.parse(r.stdout);
    expect(summary.errors[0]).toMatchObject({
      type: 'provider',
      messages: [{ example: expect.stringContaining('HTTP 500') }],
    });
    const ok = await bas(
      evalArgs(s.url, join(tempDir(), 'run'), ['-n', '30', '-c', '4', '--max-retries', '0', '--max-error-rate', '0.9']),
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(ok.code).toBe(0);
  });

  it("paces itself to an endpoint's rate limit: loses nothing, and run.json records how the limit moved", async () => {
    // A share of the requests is refused whatever their pace (a limit in requests a second is
    // never reached by a client that a loaded machine slows below it): the 429s are certain.
    const s = await start(['--rate-limit-rate', '0.2', '--retry-after', '0.01', '--seed', '3', '--latency', '40']);
    const dir = join(tempDir(), 'run');
    const r = await bas(
      ['eval', '-m', 'm', '--base-url', s.url, '--output', dir, '--no-progress', '-n', '80', '-c', '32'],
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /time: .* for 80 rollouts \([\d.]+ rollouts\/s\) · up to 32 in flight, lowered to \d+ by rate limits/,
    );
    expect(r.stdout).toContain('model:    m · 127.0.0.1:');
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run.summary.counts.completed).toBe(80);
    expect(run.pace.adaptive).toBe(true);
    expect(run.pace.lowest).toBeLessThan(32);
    expect(run.pace.changes[0]).toMatchObject({ at_s: expect.any(Number), limit: expect.any(Number) });
  });

  it('prints the summary tables by default', async () => {
    const r = await bas([
      'eval',
      '-m',
      'builtin:blanket',
      '-n',
      '4',
      '--output',
      join(tempDir(), 'run'),
      '--no-progress',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('fault_audit');
    expect(r.stdout).toContain('┌');
  });

  it('reads @FILE configurations, and a changed task configuration cannot resume', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas([
      'eval',
      `@${join(ROOT, 'configs', 'au-bas-reconciliation.toml')}`,
      '-m',
      'builtin:silent',
      '-n',
      '3',
      '--output',
      dir,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).task).toEqual({
      num_transactions: 60,
      fault_rate: 0.35,
      seed: 20260826,
    });
    const again = await bas(['eval', '--resume', dir, '--fault-rate', '0.2']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^bas: --resume: --fault-rate 0.2 differs from the saved run's 0.35/);
  });

  it.concurrent.each([
    [['-m', 'x', '-c', '0'], /-c\/--concurrency must be an integer from 1 to 4096, got "0"/],
    [['-m', 'x', '--temperature', 'warm'], /--temperature must be a number from 0 to 2, got "warm"/],
    [['-m', 'x', '--timeout', '-1'], /--timeout/],
    [['-m', 'x', '--num-transactions', '3'], /--num-transactions must be an integer from 4 to 10000/],
    [['-m', 'x', '--sampling', 'nope'], /--sampling must be a JSON object/],
    [['-m', 'x', '--max-error-rate', '2'], /--max-error-rate must be a number from 0 to 1/],
    [['-m', 'x', '--base-url', 'localhost'], /--base-url must be an http\(s\) URL/],
    [['-m', 'openai/gpt-5-mini'], /OPENAI_API_KEY is not set/],
    [['-m', 'builtin:genius'], /unknown built-in model/],
    [['-n', '3'], /--model is required/],
    [['--config', '/nonexistent.toml'], /cannot read config file/],
    [['--resume', '/nonexistent-run'], /not a run folder/],
  ])('bad input %j exits 2 with one line', async (args, message) => {
    const r = await bas(['eval', ...args]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bas: /);
    expect(lines[0]).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it.concurrent.each([
    [['--port', '70000'], /--port/],
    [['--error-rate', '1.5'], /--error-rate/],
    [['--policy', 'genius'], /--policy must be one of/],
    [['--error-rate', '0.6', '--hang-rate', '0.6'], /at most 1/],
    [['--rate-limit', 'fast'], /--rate-limit must be a number/],
  ])('bas serve %j exits 2 with one line', async (args, message) => {
    const r = await bas(['serve', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
