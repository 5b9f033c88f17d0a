/**
 * `--stream` end to end: the real CLI and SDK against `bas serve` streaming its answers, with
 * streams cut mid-way and streams that stall with the connection left open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, readResults, serve, tempDir, type Served } from '../support/cli.js';

const KEY = 'sk-bas-stream-SECRET-51c0';
const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const evalArgs = (url: string, dir: string, extra: string[]) => [
  'eval',
  '-m',
  'stream-model',
  '--base-url',
  url,
  '--output',
  dir,
  '--no-progress',
  '--stream',
  ...extra,
];

describe('bas eval --stream against bas serve', () => {
  it('streams every reply, records the time to first token and the usage, and shows it in the summary', async () => {
    const s = await serve(['--latency', '20']);
    servers.push(s);
    const dir = join(tempDir(), 'run');
    const r = await bas(evalArgs(s.url, dir, ['-n', '6', '-c', '3']), { env: { OPENAI_API_KEY: KEY } });
    expect(r.code).toBe(0);
    const records = readResults(dir);
    expect(records).toHaveLength(6);
    for (const x of records) {
      expect(x.error).toBeNull();
      expect(x.reward).toBe(1);
      expect(x.ttft_ms).toBeGreaterThanOrEqual(0);
      expect(x.ttft_ms).toBeLessThanOrEqual(x.latency_ms);
      expect(x.usage.completion_tokens).toBeGreaterThan(0);
    }
    expect(r.stdout).toContain('first token p50 (s)');
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(run.stream).toBe(true);
    expect(run.stream_idle_timeout_s).toBe(60);
    expect(run.summary.ttft_ms.n).toBe(6);
  });

  it('a stream cut mid-way or stalled is a typed failure, retried, never graded as a reply; none is lost', async () => {
    const s = await serve(['--cut-rate', '0.25', '--stall-rate', '0.25', '--seed', '4']);
    servers.push(s);
    const dir = join(tempDir(), 'run');
    const r = await bas(
      evalArgs(s.url, dir, [
        '-n',
        '8',
        '-c',
        '4',
        '--stream-idle-timeout',
        '0.3',
        '--request-timeout',
        '120',
        '--max-retries',
        '8',
        '--max-error-rate',
        '1',
        '--json',
      ]),
      { env: { OPENAI_API_KEY: KEY } },
    );
    expect(r.code).toBe(0);
    const records = readResults(dir);
    expect(records).toHaveLength(8);
    // Every reply that was scored is whole: a cut one would not parse to a reward of 1.
    for (const x of records) if (x.error === null) expect(x.reward).toBe(1);
    // Retries happened (cuts and stalls), and stalls ended on the idle timeout, not the 120 s request timeout.
    expect(records.some((x) => x.attempts > 1)).toBe(true);
    expect(Math.max(...records.map((x) => x.latency_ms))).toBeLessThan(60_000);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
