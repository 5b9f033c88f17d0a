/**
 * Most tests run the CLI inside the test's process (tests/support/cli.ts). Here every command
 * also runs as a user starts it, `node bin/bas.js …` in a process of its own, and must answer
 * exactly as it does in-process: the same exit code, standard output and standard error. So the
 * real process path (the launcher, `main`, the process's own streams and environment) stays
 * covered for each command, and the in-process runs stay a faithful stand-in for it. (eval,
 * serve and reward-server are started as processes by their own tests: signals, kills, pipes.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bas, basProcess, tempDir, type CliResult } from '../support/cli.js';
import { generateTask } from '../../src/task/generate.js';
import { runPolicy } from '../../src/task/policies.js';

let dir = '';
let a = '';
let b = '';
let tasks = '';
let replies = '';

beforeAll(async () => {
  dir = tempDir();
  [a, b] = [join(dir, 'a'), join(dir, 'b')];
  for (const [i, out] of [a, b].entries()) {
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '6', '--shard', `${i + 1}/2`, '--output', out]);
    expect(r.code, r.stderr).toBe(0);
  }
  tasks = join(dir, 'tasks.jsonl');
  expect((await bas(['gen', '-n', '3', '-o', tasks])).code).toBe(0);
  replies = join(dir, 'replies.jsonl');
  const config = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };
  const line = (i: number) => JSON.stringify({ index: i, reply: runPolicy('oracle', generateTask(config, i).prompt) });
  writeFileSync(replies, [0, 1, 2].map(line).join('\n') + '\n');
});

/** Runs `args` both ways, each with a fresh folder for `OUT`; shows OUT as `<OUT>` and hides timings. */
async function bothWays(args: string[], env?: Record<string, string>): Promise<[CliResult, CliResult]> {
  const run = async (how: typeof bas): Promise<CliResult> => {
    const out = join(tempDir(), 'out');
    const r = await how(
      args.map((x) => (x === 'OUT' ? out : x)),
      { env },
    );
    const hide = (text: string) =>
      text
        .split(out)
        .join('<OUT>')
        .replace(/\b\d+ ms\b/g, '<T> ms');
    return { ...r, stdout: hide(r.stdout), stderr: hide(r.stderr) };
  };
  return [await run(bas), await run(basProcess)];
}

describe('every command started as a process answers as it does in-process', () => {
  it.each([
    ['gen', () => ['gen', '-n', '2']],
    ['validate', () => ['validate', '-n', '3']],
    ['score', () => ['score', '--tasks', tasks, '--replies', replies, '--json']],
    ['merge', () => ['merge', a, b, '--output', 'OUT', '--json']],
    ['report', () => ['report', a]],
    ['compare', () => ['compare', a, b, '--json']],
    ['leaderboard', () => ['leaderboard', a, b]],
    ['check', () => ['check', '-m', 'builtin:oracle']],
    ['sweep', () => ['sweep', '-m', 'builtin:oracle', '--num-transactions', '8,12', '-n', '2', '--output', 'OUT']],
    ['a usage error', () => ['report', '--bogus']],
    ['a missing input', () => ['report', join(dir, 'nothing-here')]],
  ])('%s', async (_what, args) => {
    const [inside, outside] = await bothWays(args());
    expect(outside).toEqual(inside);
  });

  it('models, with its key from the environment given', async () => {
    const args = ['models', '--base-url', 'http://127.0.0.1:1/v1', '--api-key-var', 'BAS_TEST_KEY'];
    const [inside, outside] = await bothWays(args, { BAS_TEST_KEY: 'sk-test' });
    expect(inside.stderr).toMatch(/connection failed/);
    expect(outside).toEqual(inside);
  });
});
