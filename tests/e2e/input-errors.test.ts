/**
 * Inputs that used to slip through: a run in which nothing completed, keys that cannot be
 * sent, a key passed where its variable's name belongs, and readers that close the pipe.
 */
import { closedPort } from '../support/closed-port.js';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, BIN, serve, startBas, tempDir } from '../support/cli.js';
import { gatedServer } from '../support/gated-server.js';

describe('eval refuses what cannot work', () => {
  it('stops at once when the endpoint cannot be reached, naming the URL and the cause', async () => {
    const dir = join(tempDir(), 'run');
    // A port just freed on loopback: nothing listens, so every connection is refused at once.
    const port = await closedPort();
    const r = await bas(
      [
        'eval',
        '-m',
        'm',
        '-n',
        '40',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--output',
        dir,
        '--no-progress',
        '--json',
      ],
      { env: { OPENAI_API_KEY: 'k' } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      new RegExp(`^bas: cannot reach http://127\\.0\\.0\\.1:${port}/v1: connection failed: connect ECONNREFUSED`),
    );
  });

  it('refuses a key that cannot go in a header, without printing it', async () => {
    const r = await bas(['eval', '-m', 'm', '-n', '1', '--output', join(tempDir(), 'run')], {
      env: { OPENAI_API_KEY: 'sk-secret-value\r' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/OPENAI_API_KEY holds characters that cannot go in an HTTP header/);
    expect(r.stderr).not.toContain('sk-secret-value');
  });

  it.each([['sk-proj-Abc123-secret'], ['A'.repeat(80)]])(
    'never echoes a key given to --api-key-var (%#)',
    async (value) => {
      const r = await bas(['eval', '-m', 'm', '--api-key-var', value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--api-key-var/);
      expect(r.stderr).not.toContain(value);
    },
  );
});

describe('a reader that stops early', () => {
  it.each([['validate -n 5'], ['gen -n 100000'], ['eval -m builtin:oracle -n 2 --no-progress --output OUT']])(
    'ends `bas %s | true` quietly',
    (args) => {
      const cmd = `"${process.execPath}" "${BIN}" ${args.replace('OUT', join(tempDir(), 'run'))} | true`;
      const r = spawnSync('bash', ['-c', `set -o pipefail; ${cmd}`], { encoding: 'utf8' });
      expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
      expect(r.status).toBe(0);
    },
  );
});

describe('one process per run folder', () => {
  it('refuses to resume a run that another process is still writing, and takes over a dead one', async () => {
    const { existsSync } = await import('node:fs');
    // Two requests are answered and the rest held, so the first process is still at work
    // whatever the machine's speed.
    const s = await gatedServer(2);
    const dir = join(tempDir(), 'run');
    const args = ['eval', '-m', 'm', '-n', '40', '-c', '2', '--base-url', s.url, '--output', dir, '--no-progress'];
    const child = startBas(args, { env: { OPENAI_API_KEY: 'k' } });
    try {
      while (!existsSync(join(dir, 'run.json'))) await new Promise((r) => setTimeout(r, 20));
      const second = await bas(['eval', '--resume', dir, '--no-progress', '--base-url', s.url], {
        env: { OPENAI_API_KEY: 'k' },
      });
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`in use by another bas process \\(pid ${child.pid}\\)`));
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    s.release();
    // The killed process left its lock behind; a resume takes the folder over and finishes.
    expect(existsSync(join(dir, '.bas.lock'))).toBe(true);
    const resumed = await bas(['eval', '--resume', dir, '--no-progress', '-c', '40', '--json', '--base-url', s.url], {
      env: { OPENAI_API_KEY: 'k' },
    });
    await s.close();
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).counts.completed).toBe(40);
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  });
});
