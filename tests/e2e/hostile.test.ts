/**
 * bas against an endpoint that echoes the key and sends terminal control sequences (issue 9
 * §2 and §3): the key appears nowhere in what bas writes or prints, and nothing that reaches
 * the terminal can drive it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  echoKeyError,
  echoKeyReply,
  endlessBody,
  hostileServer,
  type HostileServer,
  type Respond,
} from '../support/hostile-server.js';
import { bas, tempDir } from '../support/cli.js';

const KEY = 'sk-hostile-Zq81vXk2Lm0';
const ENV = { HOSTILE_KEY: KEY };
/** C0 controls other than tab and newline, DEL and C1: none may reach a terminal. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

async function runAgainst(respond: Respond): Promise<{ dir: string; out: string; err: string; files: string[] }> {
  const server: HostileServer = await hostileServer(respond);
  const dir = join(tempDir(), 'run');
  try {
    const r = await bas(
      [
        'eval',
        '-m',
        'some-model',
        '-n',
        '2',
        '--base-url',
        server.url,
        '--api-key-var',
        'HOSTILE_KEY',
        '--max-retries',
        '0',
        '--output',
        dir,
        '--no-progress',
      ],
      { env: ENV },
    );
    const html = join(dir, '..', 'report.html');
    const rep = await bas(['report', dir, '--html', html]);
    const files = ['results.jsonl', 'run.json']
      .map((f) => join(dir, f))
      .filter(existsSync)
      .map((f) => readFileSync(f, 'utf8'));
    if (existsSync(html)) files.push(readFileSync(html, 'utf8'));
    return { dir, out: r.stdout + rep.stdout, err: r.stderr + rep.stderr, files };
  } finally {
    await server.close();
  }
}

describe('an endpoint that echoes the key', () => {
  it.each([400, 401, 403, 404, 500])('in an HTTP %i error body: the key is nowhere', async (status) => {
    const { out, err, files } = await runAgainst(echoKeyError(status));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const text of [out, err, ...files]) expect(text).not.toContain(KEY);
    expect(err + files.join('')).toContain('[redacted]');
    expect(err).not.toMatch(CONTROL);
    expect(out).not.toMatch(CONTROL);
  });

  it('in its replies: the key is nowhere', async () => {
    const { out, err, files } = await runAgainst(echoKeyReply());
    expect(files.length).toBe(3);
    for (const text of [out, err, ...files]) expect(text).not.toContain(KEY);
    expect(files[0]).toContain('your key: Bearer [redacted]');
    expect(err + out).not.toMatch(CONTROL);
  });
});

describe('an endpoint that sends a body without end', () => {
  it('fails the attempt at the cap, once, as response_too_large', async () => {
    const server = await hostileServer(endlessBody('x'.repeat(1 << 20)));
    const dir = join(tempDir(), 'run');
    try {
      const r = await bas(
        [
          'eval',
          '-m',
          'm',
          '-n',
          '1',
          '--base-url',
          server.url,
          '--api-key-var',
          'HOSTILE_KEY',
          '--output',
          dir,
          '--no-progress',
        ],
        { env: ENV },
      );
      expect(r.signal).toBeNull();
      const [rec] = readFileSync(join(dir, 'results.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rec.error.type).toBe('response_too_large');
      expect(rec.error.message).toContain('32 MiB cap');
      expect(server.seen).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe('credentials in a base URL', () => {
  let dir: string;
  beforeAll(() => {
    dir = join(tempDir(), 'run');
  });
  it('are not kept in run.json', async () => {
    const r = await bas(
      [
        'eval',
        '-m',
        'm',
        '-n',
        '1',
        '--base-url',
        `http://user:pw@127.0.0.1:9/v1?api-key=${KEY}`,
        '--api-key-var',
        'HOSTILE_KEY',
        '--max-retries',
        '0',
        '--timeout',
        '5',
        '--output',
        dir,
        '--no-progress',
      ],
      { env: ENV },
    );
    expect(r.stderr).not.toContain(KEY);
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(info.base_url).toBe('http://127.0.0.1:9/v1');
  });
  it('are not echoed in an error about the URL', async () => {
    const r = await bas(
      [
        'eval',
        '-m',
        'm',
        '-n',
        '1',
        '--base-url',
        `ftp://user:pw@host/v1?token=${KEY}`,
        '--api-key-var',
        'HOSTILE_KEY',
      ],
      { env: ENV },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--base-url');
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr).not.toContain('pw');
  });
  it('a base URL with a long run of slashes is read in linear time', async () => {
    const r = await bas(
      [
        'eval',
        '-m',
        'm',
        '-n',
        '1',
        '--base-url',
        `http://127.0.0.1:9/${'/'.repeat(100_000)}v1`,
        '--api-key-var',
        'HOSTILE_KEY',
        '--max-retries',
        '0',
        '--timeout',
        '5',
        '--output',
        join(tempDir(), 'run'),
        '--no-progress',
      ],
      { env: ENV },
    );
    expect(r.signal).toBeNull();
  });
  it('a key given as --api-key-var is not echoed', async () => {
    const r = await bas(['eval', '-m', 'm', '-n', '1', '--api-key-var', 'gsk_3f9aK2lmQ8xZ0pWv7TnB'], { env: ENV });
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain('gsk_3f9aK2lmQ8xZ0pWv7TnB');
  });
});

afterAll(() => undefined);
