/**
 * Starting again, resuming and counting what is missing: a run refused at its start can be
 * started again in its folder with corrected settings; a damaged run.json is refused on
 * resume, naming the file and the key, and the folder is left as it was; replies or shards
 * that are missing make a run `incomplete`, never `complete`. Uses the built CLI (dist/).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bas, serve, tempDir, type Served } from '../support/cli.js';

let server: Served;
beforeAll(async () => {
  server = await serve(['--api-key', 'right-key']);
});
afterAll(async () => server.stop());

describe('a failed start', () => {
  it('a run refused at its start is started again in the same folder with a corrected key', async () => {
    const dir = join(tempDir(), 'run');
    const args = ['eval', '-m', 'm1', '-n', '3', '--base-url', server.url, '--output', dir, '--no-progress'];
    const refused = await bas(args, { env: { OPENAI_API_KEY: 'wrong-key' } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`can be started again: fix the cause and run bas eval --output ${dir}`));
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('failed');
    const again = await bas(args, { env: { OPENAI_API_KEY: 'right-key' } });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/recorded no scored rollout; starting it again/);
    const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).error)).toEqual([null, null, null]);
    // Once something is scored, the folder is a run: --output refuses it, --resume continues it.
    const twice = await bas(args, { env: { OPENAI_API_KEY: 'right-key' } });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/already holds a run: continue it with --resume/);
  });

  for (const [name, text] of [
    ['run.json', '{"hello": 1}\n'],
    ['results.jsonl', '{"user": "data"}\n{"more": "data"}\n'],
    ['results.jsonl', 'not json at all\nnor this\n'],
  ] as const) {
    it(`a folder whose ${name} bas did not write (${JSON.stringify(text.slice(0, 12))}) is refused by --output and left as it was`, async () => {
      const dir = tempDir();
      writeFileSync(join(dir, name), text);
      const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', dir, '--no-progress']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        new RegExp(`holds files bas did not write \\(${name.replace('.', '\\.')}.* is not a bas (run file|record)\\)`),
      );
      expect(readFileSync(join(dir, name), 'utf8')).toBe(text);
      expect(existsSync(join(dir, name === 'run.json' ? 'results.jsonl' : 'run.json'))).toBe(false);
      expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
    });
  }

  it('--resume of a folder with no run.json says how to start it again', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'results.jsonl'), '');
    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has no run\.json, so there is no run to continue; .* --output/);
  });
});

describe('run.json read back on resume', () => {
  async function savedRun(): Promise<string> {
    const dir = join(tempDir(), 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', dir, '--no-progress'])).code).toBe(0);
    return dir;
  }

  for (const [key, value, pattern] of [
    ['concurrency', 0, /run\.json: "concurrency" must be an integer from 1 to 4096, got 0/],
    ['max_retries', -1, /run\.json: "max_retries" must be an integer from 0 to 100/],
    ['timeout_s', 'soon', /run\.json: "timeout_s" must be a number/],
    ['n', 1e12, /run\.json: "n" must be an integer from 1 to 10000000/],
    ['rollouts', 0, /run\.json: "rollouts" must be an integer from 1 to 1000/],
    [
      'task',
      { num_transactions: 10_000_000, fault_rate: 0.25, seed: 1 },
      /run\.json: "task\.num_transactions" must be an integer from 4 to 10000/,
    ],
    ['sampling', { temperature: 9 }, /run\.json: "sampling\.temperature" must be a number from 0 to 2/],
  ] as const) {
    it(`"${key}": ${JSON.stringify(value)} is refused in one line, and the folder is left as it was`, async () => {
      const dir = await savedRun();
      const file = join(dir, 'run.json');
      const edited = JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), [key]: value, status: 'interrupted' });
      writeFileSync(file, edited);
      const r = await bas(['eval', '--resume', dir, '--no-progress']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
      expect(readFileSync(file, 'utf8')).toBe(edited);
      expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
    });
  }
});

describe('missing rollouts', () => {
  it('score counts each missing reply as an errored rollout and the run as incomplete, "2 of 4"', async () => {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    expect((await bas(['gen', '-n', '4', '-o', tasks])).code).toBe(0);
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(replies, '{"index": 0, "reply": "a"}\n{"index": 2, "reply": "b"}\n');
    const out = join(dir, 'run');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--output', out, '--json']);
    // Half missing is over eval's default error budget (0.1): exit 3, with everything written.
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /incomplete: 2 of 4 planned rollouts have a reply; the 2 missing are counted as errored rollouts of type missing_reply/,
    );
    const summary = JSON.parse(r.stdout);
    expect(summary.counts).toMatchObject({ rollouts: 4, errored: 2 });
    expect(summary.counts.errors_by_type.missing_reply).toBe(2);
    const info = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(info.status).toBe('incomplete');
    const report = await bas(['report', out]);
    expect(report.stdout).toMatch(/status: +incomplete \(2 of 4 rollouts replied to, 2 missing\)/);
  });

  it('score refuses a reply numbered past the last rollout a run can have, instead of planning a billion missing ones', async () => {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    expect((await bas(['gen', '-n', '2', '-o', tasks])).code).toBe(0);
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(replies, '{"index": 0, "reply": "a"}\n{"index": 1, "rollout": 999999999, "reply": "b"}\n');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/replies\.jsonl:2: rollout 999999999 is out of range: rollouts are numbered 0 to 999/);
  });

  it('merge with a shard missing is incomplete and says "3 of 4"', async () => {
    const root = tempDir();
    const shard = (i: number) => join(root, `s${i}`);
    for (const i of [1, 2]) {
      expect(
        (
          await bas([
            'eval',
            '-m',
            'builtin:oracle',
            '-n',
            '4',
            '--shard',
            `${i}/3`,
            '--output',
            shard(i),
            '--no-progress',
          ])
        ).code,
      ).toBe(0);
    }
    const out = join(root, 'merged');
    const r = await bas(['merge', shard(1), shard(2), '--output', out, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/incomplete: 3 of 4 rollouts are in the inputs \(1 missing\)/);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).status).toBe('incomplete');
  });
});

describe('a scored run keeps the versions of its tasks', () => {
  const scoreInto = async (tasksText: string, out: string) => {
    const dir = tempDir();
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, tasksText);
    const replies = join(dir, 'replies.jsonl');
    writeFileSync(replies, '{"index": 0, "reply": "a"}\n{"index": 1, "reply": "b"}\n');
    return bas(['score', '--tasks', tasks, '--replies', replies, '--output', out, '--json']);
  };
  const genTasks = async () => {
    const file = join(tempDir(), 't.jsonl');
    expect((await bas(['gen', '-n', '2', '-o', file])).code).toBe(0);
    return readFileSync(file, 'utf8');
  };

  it('records the generator and prompt of its task file, and --resume names it a scored run', async () => {
    const out = join(tempDir(), 'scored');
    expect((await scoreInto(await genTasks(), out)).code).toBe(0);
    const info = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(info.generator).toBe(3);
    expect(typeof info.prompt_version).toBe('number');
    const r = await bas(['eval', '--resume', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/written by bas score, not bas eval/);
  });

  it('refuses a task file that mixes generators, and is never paired with an eval run of another generator', async () => {
    const lines = (await genTasks()).trimEnd().split('\n');
    const old = lines.map((l) => l.replace('"generator":3', '"generator":2'));
    const mixed = await scoreInto(`${lines[0]}\n${old[1]}\n`, join(tempDir(), 'mixed'));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/mixes task generators/);
    const scored = join(tempDir(), 'old');
    expect((await scoreInto(`${old.join('\n')}\n`, scored)).code).toBe(0);
    const run = join(tempDir(), 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', run, '--no-progress'])).code).toBe(0);
    const c = await bas(['compare', run, scored, '--json', '--resamples', '200']);
    expect(c.code).toBe(0);
    const pair = JSON.parse(c.stdout).pairings[0];
    expect(pair).toMatchObject({ comparable: false, shared_tasks: 0 });
    expect(pair.note).toMatch(/task generator 2/);
    // A bare results file records no version: it pairs only with another unknown one.
    const bare = await bas(['compare', run, join(scored, 'results.jsonl'), '--json', '--resamples', '200']);
    expect(bare.code).toBe(0);
    const p2 = JSON.parse(bare.stdout).pairings[0];
    expect(p2).toMatchObject({ comparable: false, shared_tasks: 0 });
    expect(p2.note).toMatch(/task generator unknown/);
  });
});
