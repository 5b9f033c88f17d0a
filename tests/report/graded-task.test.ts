/**
 * The drill-down (`bas report --rollout`, the HTML page) shows the task a reply was graded
 * against. A run of `bas score` took its tasks from a file, which may hold a task the
 * generator never made: its records carry the graded task's digest, and the rebuilt task is
 * shown only when it is that one; a folder that cannot say which task it graded shows none.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';
import { generateTask } from '../../src/task/generate.js';
import { taskDigest } from '../../src/runfile/task-digest.js';
import { taskFromJson } from '../../src/task/serialize.js';

let dir: string;
let genTasks: string;
let ownTasks: string;
let replies: string;

beforeAll(async () => {
  dir = tempDir();
  genTasks = join(dir, 'tasks.jsonl');
  expect((await bas(['gen', '-n', '1', '-o', genTasks])).code).toBe(0);
  // A task of one's own: the generator's, with another business name (still a valid task).
  const task = JSON.parse(readFileSync(genTasks, 'utf8'));
  task.ledger.business.name = 'Hand Made Pty Ltd';
  ownTasks = join(dir, 'own.jsonl');
  writeFileSync(ownTasks, JSON.stringify(task) + '\n');
  replies = join(dir, 'replies.jsonl');
  writeFileSync(replies, JSON.stringify({ index: 0, reply: 'no answer' }) + '\n');
});

const scoreInto = async (tasks: string, out: string) => {
  const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--output', out]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n')[0]!);
};

describe('the graded task in the drill-down', () => {
  it('a task read from its file and the same task generated have one digest', () => {
    const line = JSON.parse(readFileSync(genTasks, 'utf8'));
    const generated = generateTask(line.config, 0);
    expect(taskDigest(taskFromJson(line))).toBe(taskDigest(generated));
    expect(taskDigest(taskFromJson(line))).toMatch(/^[0-9a-f]{16}$/);
  });

  it("shows the generator's task when it is the one graded", async () => {
    const out = join(dir, 'generated');
    const record = await scoreInto(genTasks, out);
    expect(record.task_digest).toMatch(/^[0-9a-f]{16}$/);
    const r = await bas(['report', out, '--rollout', '0:0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('BAS figures');
    expect(r.stdout).not.toContain('not shown');
  });

  it('refuses to show a rebuilt task that is not the one graded (a tasks file of its own)', async () => {
    const out = join(dir, 'own');
    await scoreInto(ownTasks, out);
    const r = await bas(['report', out, '--rollout', '0:0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('BAS figures');
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /ledger: not shown: the task this reply was graded against is not the one the generator makes/,
    );
    const page = join(dir, 'own.html');
    expect((await bas(['report', out, '--html', page])).code).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).not.toContain(JSON.stringify('Hand Made Pty Ltd'));
    expect(html).toContain('the task this reply was graded against is not the one the generator makes');
  });

  it('a folder scored before 0.4.1 (no digest) cannot say which task it graded: none is shown', async () => {
    const out = join(dir, 'old');
    await scoreInto(genTasks, out);
    const file = join(out, 'results.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const old = lines.map((l) => {
      const { task_digest: _d, ...rest } = JSON.parse(l);
      return JSON.stringify(rest);
    });
    writeFileSync(file, old.join('\n') + '\n');
    const r = await bas(['report', out, '--rollout', '0:0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /not shown: this run was scored by a bas before 0\.4\.1 against a tasks file/,
    );
  });
});
