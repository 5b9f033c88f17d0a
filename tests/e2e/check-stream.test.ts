/**
 * `bas check --stream` predicts a streamed run: the probe goes out as eval would send it
 * (`stream: true` with the usage at the end), is read with the same idle bound, and reports
 * the time to the first token; a stream that stalls, is cut or reports an error fails the
 * check as it would fail the run's rollouts. Against `bas serve` (which streams) and a small
 * endpoint of this file that answers a whole reply well but breaks its streams.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bas, serve, tempDir, type Served } from '../support/cli.js';
import { hostileServer, sendJson, type HostileServer } from '../support/hostile-server.js';
import { runPolicy } from '../../src/task/policies.js';
import type { ChatMessage } from '../../src/task/types.js';

type StreamFault = 'stall' | 'cut' | 'error' | 'whole';
let fault: StreamFault = 'stall';
let served: Served;
let fake: HostileServer;
const KEY = { K: 'sekret-check-stream' };

const chunk = (delta: unknown, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'f', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A whole reply (the oracle's answer) when no stream is asked for; a broken stream when one is. */
function answer(body: { stream?: boolean; messages?: ChatMessage[] }, res: ServerResponse): void {
  const reply = runPolicy('oracle', body.messages ?? []);
  const whole = {
    id: 'c',
    object: 'chat.completion',
    created: 0,
    model: 'f',
    choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
  };
  if (!body.stream || fault === 'whole') return sendJson(res, 200, whole);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(chunk({ role: 'assistant', content: reply.slice(0, 20) }));
  if (fault === 'cut') return void res.end();
  if (fault === 'error')
    return void res.end(`data: ${JSON.stringify({ error: { message: 'upstream overloaded' } })}\n\n`);
  // 'stall': the connection stays open and silent until the client gives up.
}

beforeAll(async () => {
  served = await serve(['--models', 'm1', '--api-key', KEY.K, '--latency', '30']);
  fake = await hostileServer((req, res) => answer(JSON.parse(req.body || '{}'), res));
});
afterAll(async () => {
  await served.stop();
  await fake.close();
});

const check = (url: string, more: string[]) =>
  bas(['check', '-m', 'm1', '--base-url', url, '--api-key-var', 'K', ...more], { env: KEY });

describe('bas check --stream', () => {
  it('sends the probe as a stream and reports the time to the first token', async () => {
    const r = await check(served.url, ['--stream']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/parameters +accepted \(stream=true, stream_options=\{"include_usage":true\}\)/);
    expect(r.stdout).toMatch(/^ {2}first token {2}\d+ ms \(streamed\)$/m);
    expect(r.stdout).toMatch(/result +ok/);
    const j = await check(served.url, ['--stream', '--json']);
    const report = JSON.parse(j.stdout);
    expect(report).toMatchObject({ ok: true, stream: { streamed: true } });
    expect(report.stream.ttftMs).toBeGreaterThanOrEqual(0);
    expect(report.stream.ttftMs).toBeLessThanOrEqual(report.latencyMs);
    // Without --stream nothing about streams is sent or shown.
    const plain = await check(served.url, []);
    expect(plain.stdout).not.toMatch(/first token|stream/);
  });

  it.each([
    [
      'stall',
      /^bas: check failed: the stream went silent for 0\.3 s after 1 chunks \(--stream-idle-timeout\): raise --stream-idle-timeout \(now 0\.3 s\) or run without --stream$/m,
    ],
    [
      'cut',
      /^bas: check failed: the stream ended before the reply finished \(1 chunks, no \[DONE\]\): .*run without --stream$/m,
    ],
    [
      'error',
      /^bas: check failed: the stream reported an error: upstream overloaded: the endpoint failed in the middle of the stream$/m,
    ],
  ] as const)('fails on a stream that would fail the run (%s), where a whole reply passes', async (kind, line) => {
    fault = kind;
    const plain = await check(fake.url, []);
    expect(plain.code, plain.stderr).toBe(0);
    const before = fake.seen.length;
    const r = await check(fake.url, ['--stream', '--stream-idle-timeout', '0.3']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(line);
    expect(r.stdout).toMatch(/reachable +yes \(HTTP 200\)/);
    expect(r.stdout).toMatch(/result +FAILED/);
    const sent = JSON.parse(fake.seen[before]!.body);
    expect(sent).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('says so when the endpoint ignores stream and sends a whole reply (the run would too: it passes)', async () => {
    fault = 'whole';
    const r = await check(fake.url, ['--stream']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/first token +not measured: the endpoint ignored stream and sent a whole reply/);
  });

  it('streams when the config file says stream = true, and eval --check stops a run whose streams stall', async () => {
    fault = 'stall';
    const config = join(tempDir(), 'run.toml');
    writeFileSync(config, 'stream = true\nstream_idle_timeout = 0.3\n');
    const before = fake.seen.length;
    const r = await check(fake.url, [`@${config}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the stream went silent/);
    expect(JSON.parse(fake.seen[before]!.body).stream).toBe(true);

    const dir = join(tempDir(), 'run');
    const e = await bas(
      [
        'eval',
        '-m',
        'm1',
        '-n',
        '2',
        '--base-url',
        fake.url,
        '--api-key-var',
        'K',
        '--stream',
        '--stream-idle-timeout',
        '0.3',
        '--check',
        '--output',
        dir,
        '--no-progress',
      ],
      { env: KEY },
    );
    expect(e.code).toBe(1);
    expect(e.stderr).toMatch(/check failed: the stream went silent/);
  });
});
