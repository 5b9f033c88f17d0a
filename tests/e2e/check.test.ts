/**
 * bas check, bas models, eval --check and --resume of a finished run, against endpoints on
 * loopback only: bas serve, and a small server in this file for answers bas serve never gives
 * (a 400 naming a parameter, rate-limit headers).
 */
import { closedPort } from '../support/closed-port.js';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFiles, bas, serve, tempDir, type Served } from '../support/cli.js';
import { runPolicy } from '../../src/task/policies.js';
import type { ChatMessage } from '../../src/task/types.js';

let served: Served;
let fake: Server;
let fakeURL = '';

/**
 * Answers like a provider that refuses temperature 0 and reports its rate-limit budget; what
 * it accepts, it answers right (the oracle's reply to the prompt it was sent).
 */
function startFake(): Promise<void> {
  fake = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const headers = {
        'content-type': 'application/json',
        'x-ratelimit-remaining-requests': '41',
        'x-ratelimit-reset-requests': '2s\u009b31m',
      };
      const sent = JSON.parse(body || '{}') as { temperature?: number; messages?: ChatMessage[] };
      if (sent.temperature === 0) {
        res.writeHead(400, headers);
        res.end(
          JSON.stringify({
            error: {
              message: "Unsupported value: 'temperature' does not support 0 with this model.",
              type: 'invalid_request_error',
              param: 'temperature',
              code: 'unsupported_value',
            },
          }),
        );
        return;
      }
      res.writeHead(200, headers);
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'r1',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: runPolicy('oracle', sent.messages ?? []) },
              finish_reason: 'stop',
            },
          ],
        }),
      );
    });
  });
  return new Promise((done) =>
    fake.listen(0, '127.0.0.1', () => {
      fakeURL = `http://127.0.0.1:${(fake.address() as { port: number }).port}/v1`;
      done();
    }),
  );
}

beforeAll(async () => {
  served = await serve(['--models', 'm1,m2', '--api-key', 'sekret']);
  await startFake();
});
afterAll(async () => {
  await served.stop();
  await new Promise((done) => fake.close(done));
});

const KEY = { K: 'sekret' };

describe('bas check', () => {
  it("reports an endpoint that accepts the run's settings, with its rate-limit headers, and exits 0", async () => {
    const r = await bas(['check', '-m', 'r1', '--temperature', '1', '--base-url', fakeURL, '--api-key-var', 'K'], {
      env: KEY,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/reachable +yes \(HTTP 200\)/);
    expect(r.stdout).toMatch(/key +accepted/);
    expect(r.stdout).toMatch(/parameters +accepted \(temperature=1\)/);
    expect(r.stdout).toMatch(/latency +\d+ ms/);
    // The header's value arrives with an escape sequence: it must not reach the terminal.
    expect(r.stdout).toMatch(/x-ratelimit-remaining-requests: 41, x-ratelimit-reset-requests: 2s\n/);
    expect(r.stdout).not.toContain('\u009b');
    expect(r.stdout).toMatch(/result +ok/);
  });

  it('names the parameter the provider refused, with its message, and exits 1', async () => {
    const r = await bas(['check', '-m', 'r1', '--temperature', '0', '--base-url', fakeURL, '--api-key-var', 'K'], {
      env: KEY,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/parameters +refused: temperature \(sent temperature=0\)/);
    expect(r.stdout).toMatch(/said +Unsupported value: 'temperature' does not support 0/);
    expect(r.stderr).toMatch(/^bas: check failed: the endpoint refused the parameter temperature: Unsupported value/m);
  });

  it.each([
    [['-m', 'nope'], KEY, /model +not known/, /does not know model "nope"/],
    [['-m', 'm1'], { K: 'wrong' }, /key +refused/, /refused the key in K \(HTTP 401\)/],
  ])('%j fails with one line on the cause', async (args, env, report, line) => {
    const r = await bas(['check', ...args, '--base-url', served.url, '--api-key-var', 'K'], { env: env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(report);
    expect(r.stderr).toMatch(line);
    expect(r.stderr).not.toContain('sekret');
  });

  it('an unreachable endpoint is named with the cause', async () => {
    const port = await closedPort();
    const r = await bas(['check', '-m', 'm1', '--base-url', `http://127.0.0.1:${port}/v1`], {
      env: { OPENAI_API_KEY: 'k' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/reachable +no/);
    expect(r.stderr).toMatch(
      new RegExp(
        `^bas: check failed: cannot reach http://127\\.0\\.0\\.1:${port}/v1: connection failed.*ECONNREFUSED`,
        'm',
      ),
    );
  });

  it('--json prints the report as an object', async () => {
    const r = await bas(['check', '-m', 'm1', '--base-url', served.url, '--api-key-var', 'K', '--json'], {
      env: KEY,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      reachable: true,
      status: 200,
      keyAccepted: true,
      modelKnown: true,
      model: 'm1',
    });
  });
});

describe('bas models', () => {
  it("lists the endpoint's models, as lines or JSON", async () => {
    const r = await bas(['models', '--base-url', served.url, '--api-key-var', 'K'], { env: KEY });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('m1\nm2\n');
    const j = await bas(['models', '--base-url', served.url, '--api-key-var', 'K', '--json'], { env: KEY });
    expect(JSON.parse(j.stdout).map((m: { id: string }) => m.id)).toEqual(['m1', 'm2']);
  });

  it('an unreachable endpoint is one line and exit 1', async () => {
    const port = await closedPort();
    const r = await bas(['models', '--base-url', `http://127.0.0.1:${port}/v1`], { env: { OPENAI_API_KEY: 'k' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^bas: cannot list the models of http://127\\.0\\.0\\.1:${port}/v1: connection failed`),
    );
  });

  it('credentials in the base URL never reach the output, whichever command prints the URL', async () => {
    const [user, pass, token] = ['userkey-0123456789', 'passkey-0123456789', 'querykey-0123456789'];
    const url = served.url.replace('http://', `http://${user}:${pass}@`) + `?api-key=${token}`;
    for (const args of [['models'], ['check', '-m', 'm1']]) {
      const r = await bas([...args, '--base-url', url, '--api-key-var', 'K'], { env: KEY });
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/127\.0\.0\.1/);
      for (const secret of [user, pass, token]) expect(out).not.toContain(secret);
    }
  });

  it('a local provider needs no key', async () => {
    const own = join(tempDir(), 'p.toml');
    writeFileSync(own, `[here]\nbase_url = "${served.url}"\napi_key_var = "HERE_KEY"\nkey_required = false\n`);
    const r = await bas(['models', '--provider', 'here', '--providers', own]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('m1\nm2\n');
  });
});

describe('bas eval --check', () => {
  it('stops before creating the run folder when the check fails', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(
      [
        'eval',
        '-m',
        'nope',
        '-n',
        '2',
        '--check',
        '--base-url',
        served.url,
        '--api-key-var',
        'K',
        '--output',
        dir,
        '--no-progress',
      ],
      { env: KEY },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/model +not known/);
    expect(r.stderr).toMatch(/bas: check failed/);
    expect(existsSync(dir)).toBe(false);
  });

  it('runs when the check passes, with the report on stderr and the summary alone on stdout', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(
      [
        'eval',
        '-m',
        'm1',
        '-n',
        '2',
        '--check',
        '--base-url',
        served.url,
        '--api-key-var',
        'K',
        '--output',
        dir,
        '--no-progress',
        '--json',
      ],
      { env: KEY },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/result +ok/);
    expect(JSON.parse(r.stdout).counts.completed).toBe(2);
  });
});

describe('--resume', () => {
  it('of a finished run says there is nothing to do, without a key and without touching the folder', async () => {
    const dir = join(tempDir(), 'run');
    const first = await bas(
      [
        'eval',
        '-m',
        'm1',
        '-n',
        '3',
        '-r',
        '2',
        '--base-url',
        served.url,
        '--api-key-var',
        'K',
        '--output',
        dir,
        '--no-progress',
      ],
      { env: KEY },
    );
    expect(first.code).toBe(0);
    const before = allFiles(dir).map((f) => [f.path, createHash('sha256').update(f.text).digest('hex')]);
    const r = await bas(['eval', '--resume', dir, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `bas: nothing to do: all 6 rollouts of ${dir} are recorded and scored (bas report ${dir} shows them)\n`,
    );
    expect(JSON.parse(r.stdout).counts).toMatchObject({ rollouts: 6, completed: 6 });
    expect(allFiles(dir).map((f) => [f.path, createHash('sha256').update(f.text).digest('hex')])).toEqual(before);
  });

  it('of a run killed after its last record marks it complete, under the lock, and runs nothing', async () => {
    const dir = join(tempDir(), 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', dir, '--no-progress'])).code).toBe(0);
    const file = join(dir, 'run.json');
    const info = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...info, status: 'running', ended_at: null, summary: null }));
    const results = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    const r = await bas(['eval', '--resume', dir, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/marked "running"; it is now marked complete/);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after).toMatchObject({ status: 'complete' });
    expect(after.summary.counts.completed).toBe(3);
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8')).toBe(results);
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  });

  it('of an unfinished run says how many rollouts remain before it starts', async () => {
    const dir = join(tempDir(), 'run');
    await bas(
      ['eval', '-m', 'm1', '-n', '4', '--base-url', served.url, '--api-key-var', 'K', '--output', dir, '--no-progress'],
      { env: KEY },
    );
    const results = join(dir, 'results.jsonl');
    const lines = readFileSync(results, 'utf8').trimEnd().split('\n');
    writeFileSync(results, `${lines.slice(0, 1).join('\n')}\n`);
    const r = await bas(
      ['eval', '--resume', dir, '--no-progress', '--json', '--base-url', served.url, '--api-key-var', 'K'],
      { env: KEY },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(`^bas: resuming ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 3 of 4 rollouts to run$`, 'm'),
    );
    expect(JSON.parse(r.stdout).counts.completed).toBe(4);
  });
});
