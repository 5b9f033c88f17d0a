/**
 * `bas score` keeps eval's error budget: a replies file that lost most of its lines, or a
 * batch whose requests mostly failed, exits 3 after printing and writing what it scored,
 * instead of passing for a measurement with a warning a script never reads.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

let dir: string;
let tasks: string;

beforeAll(async () => {
  dir = tempDir();
  tasks = join(dir, 'tasks.jsonl');
  expect((await bas(['gen', '-n', '20', '-o', tasks])).code).toBe(0);
});

/** A replies file answering the tasks `indices` (the replies score 0; what counts is that they exist). */
function replies(name: string, indices: number[]): string {
  const path = join(dir, name);
  writeFileSync(path, indices.map((index) => JSON.stringify({ index, reply: 'no answer' })).join('\n') + '\n');
  return path;
}

const range = (n: number) => [...Array(n).keys()];

describe('bas score and missing replies', () => {
  it('exits 3 when more replies are missing than --max-error-rate allows, after printing and writing them', async () => {
    const out = join(dir, 'most-missing');
    const r = await bas(['score', '--tasks', tasks, '--replies', replies('five.jsonl', range(5)), '--output', out]);
    expect(r.code).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^bas: warning: incomplete: 5 of 20 planned rollouts have a reply/);
    expect(lines[1]).toBe(
      'bas: 15 of 20 rollouts errored (15 missing_reply), more than --max-error-rate 0.1 allows; give the missing replies, or --max-error-rate 1 to accept them',
    );
    // The figures are still shown and kept: the gate is on top of the measurement, not instead of it.
    expect(r.stdout).toMatch(/bas_correct/);
    // The title counts the replies the file held, not the planned rollouts.
    expect(r.stdout.split('\n')[0]).toBe(`Scored 5 replies from ${join(dir, 'five.jsonl')}`);
    const info = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(info).toMatchObject({ status: 'incomplete', max_error_rate: 0.1 });
  });

  it('accepts them within --max-error-rate, and records the budget for the leaderboard', async () => {
    const out = join(dir, 'allowed');
    const r = await bas([
      'score',
      '--tasks',
      tasks,
      '--replies',
      replies('five-again.jsonl', range(5)),
      '--max-error-rate',
      '0.75',
      '--output',
      out,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/incomplete: 5 of 20/);
    expect(JSON.parse(r.stdout).counts).toMatchObject({ rollouts: 20, errored: 15 });
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).max_error_rate).toBe(0.75);
  });

  it('lets one missing reply in twenty pass with its warning (the default budget is 0.1)', async () => {
    const r = await bas(['score', '--tasks', tasks, '--replies', replies('nineteen.jsonl', range(19)), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/incomplete: 19 of 20 planned rollouts have a reply/);
  });

  it('exits 3 when no reply completed, whatever the budget', async () => {
    const batch = join(dir, 'batch-failed.jsonl');
    writeFileSync(
      batch,
      range(20)
        .map((i) =>
          JSON.stringify({
            custom_id: `task-${i}-r0`,
            response: null,
            error: { code: 'batch_expired', message: 'expired' },
          }),
        )
        .join('\n') + '\n',
    );
    const r = await bas(['score', '--tasks', tasks, '--replies', batch, '--max-error-rate', '1']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^bas: no rollout completed \(20 errored: 20 provider\)/);
  });

  it('refuses a budget outside 0..1 before reading any file', async () => {
    const r = await bas(['score', '--tasks', '/nonexistent', '--replies', '/nonexistent', '--max-error-rate', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bas: --max-error-rate must be/);
  });
});

describe('bas score of a run folder’s own results.jsonl', () => {
  it('grades its replies again and keeps its errored lines as errored rollouts of their type', async () => {
    const lines = range(20).map((index) =>
      index < 18
        ? { index, rollout: 0, reply: 'no answer', reward: 0, error: null }
        : {
            index,
            rollout: 0,
            reply: null,
            error: { type: 'timeout', message: `the request timed out\u001b[2J after ${index} s` },
          },
    );
    const results = join(dir, 'results-of-a-run.jsonl');
    writeFileSync(results, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const out = join(dir, 'regraded.jsonl');
    const r = await bas(['score', '--tasks', tasks, '--replies', results, '--out', out, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary.counts).toMatchObject({ completed: 18, errored: 2, errors_by_type: { timeout: 2 } });
    const scored = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(scored).toHaveLength(20);
    // The recorded message is outside text: its control characters are shown, not sent to the terminal.
    expect(scored[18].error.type).toBe('timeout');
    expect(scored[18].error.message).not.toContain('\u001b');
  });

  it('refuses a null reply without a recorded error, naming the line', async () => {
    const file = join(dir, 'null-reply.jsonl');
    writeFileSync(file, '{"index": 0, "reply": "x"}\n{"index": 1, "reply": null, "error": {"type": "Timeout!"}}\n');
    const r = await bas(['score', '--tasks', tasks, '--replies', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/null-reply\.jsonl:2: "reply" must be a string \(or null, with the "error"/);
  });
});
