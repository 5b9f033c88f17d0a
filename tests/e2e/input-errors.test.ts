/**
 * Inputs that used to slip through: a run in which nothing completed, keys that cannot be
 * sent, a key passed where its variable's name belongs, and readers that close the pipe.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, BAS, ensureBuilt, tempDir } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('eval refuses what cannot work', () => {
  it('fails (exit 1) when no rollout completed, after keeping what it has', async () => {
    const dir = join(tempDir(), 'run');
    // Port 1 on loopback: nothing listens, so every connection is refused at once.
    const r = await bas(['eval', '-m', 'm', '-n', '3', '--base-url', 'http://127.0.0.1:1/v1', '--max-retries', '0', '--output', dir, '--no-progress', '--json'], { OPENAI_API_KEY: 'k' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no rollout completed \(3 network\)/);
    expect(JSON.parse(r.stdout).counts.errored).toBe(3);
  });

  it('refuses a key that cannot go in a header, without printing it', async () => {
    const r = await bas(['eval', '-m', 'm', '-n', '1', '--output', join(tempDir(), 'run')], { OPENAI_API_KEY: 'sk-secret-value\r' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/OPENAI_API_KEY holds characters that cannot go in an HTTP header/);
    expect(r.stderr).not.toContain('sk-secret-value');
  });

  it.each([['sk-proj-Abc123-secret'], ['A'.repeat(80)]])('never echoes a key given to --api-key-var (%#)', async (value) => {
    const r = await bas(['eval', '-m', 'm', '--api-key-var', value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--api-key-var/);
    expect(r.stderr).not.toContain(value);
  });
});

describe('a reader that stops early', () => {
  it.each([['validate -n 5'], ['gen -n 100000'], ['eval -m builtin:oracle -n 2 --no-progress --output OUT']])('ends `bas %s | true` quietly', (args) => {
    const cmd = `"${process.execPath}" "${BAS}" ${args.replace('OUT', join(tempDir(), 'run'))} | true`;
    const r = spawnSync('bash', ['-c', `set -o pipefail; ${cmd}`], { encoding: 'utf8' });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.status).toBe(0);
  });
});
