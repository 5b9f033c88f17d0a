/**
 * What a report says about a run folder it reads back: notes in plain words, and the key cut
 * out of a folder written by bas 0.3, whose redaction missed a key split by hidden characters.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRun } from '../../src/report/read.js';
import { GENERATOR_VERSION } from '../../src/task/generate.js';
import { bas } from '../support/cli.js';
import { done, failed } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'bas-read-words-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
function folder(lines: object[], run: object): string {
  const dir = join(root, `run${count++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'results.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
  return dir;
}

const RUN = {
  model: 'm',
  generator: GENERATOR_VERSION,
  task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
  n: 2,
  rollouts: 1,
  indices: null,
};

describe('notes about a run that ended early', () => {
  it.each([
    ['failed', 'This run failed before it finished'],
    ['interrupted', 'This run was interrupted before it finished'],
  ])('status %s', async (status, words) => {
    const d = await readRun(folder([done(0, 0, { bas: 1, audit: 1 })], { ...RUN, status }), () => {});
    expect(d.notes.join(' ')).toContain(words);
    expect(d.notes.join(' ')).not.toContain('was failed');
  });
});

describe('a folder of bas 0.3 that kept an echoed key split by hidden characters', () => {
  const KEY = 'sk-old-Zq81vXk2Lm0Tt9';
  const split = `${KEY.slice(0, 6)}\u200b${KEY.slice(6)}`;
  const rec = failed(1, 0);
  const dir = folder(
    [done(0, 0, { bas: 1, audit: 1 }), { ...rec, error: { type: 'provider', message: `HTTP 400: you sent ${split}` } }],
    {
      ...RUN,
      status: 'complete',
      api_key_var: 'OLD_API_KEY',
    },
  );

  it('has the key cut out of the report when its variable is set', async () => {
    for (const args of [
      ['report', dir],
      ['report', dir, '--json'],
    ]) {
      const r = await bas(args, { env: { OLD_API_KEY: KEY } });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('[redacted]');
      expect(r.stdout).not.toContain(KEY.slice(6));
    }
  });

  it('without the key shows the hidden character, never the key whole to the eye', async () => {
    const r = await bas(['report', dir, '--json']);
    expect(r.stdout).toContain(`${KEY.slice(0, 6)}\\\\u200b${KEY.slice(6)}`);
    expect(r.stdout).not.toContain(split);
  });
});
