/**
 * The trainer's side, end to end: export a dataset with `bas gen --format dataset`, start
 * `bas reward-server`, and post what OpenRLHF posts (the prompt rendered by a chat template,
 * the policy's reply appended, the label from the dataset): the rewards must be those
 * `bas score` gives the same replies. Then SIGTERM: the server finishes and exits 0.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskFromJson } from '../../src/task/serialize.js';
import { bas, startBas } from '../support/cli.js';
import { openrlhfBody, repliesFor } from '../support/replies.js';

interface Row {
  prompt: Array<{ role: string; content: string }>;
  prompt_text: string;
  label: string;
}

const dir = mkdtempSync(join(tmpdir(), 'bas-trainer-'));
let child: ChildProcess;
let url = '';
let stderr = '';

beforeAll(async () => {
  // Two grading threads whatever the machine: the threads are what a trainer's server runs.
  child = startBas(['reward-server', '--port', '0', '--workers', '2', '--token-var', 'BAS_TEST_REWARD_TOKEN'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { BAS_TEST_REWARD_TOKEN: 'tok-123' },
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`bas reward-server exited ${code}: ${stderr}`)));
  });
});
afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

function lines<T>(text: string): T[] {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
}

describe('a trainer of OpenRLHF against bas reward-server', () => {
  it('gets the rewards bas score gives, for the dataset it exported', async () => {
    const gen = await bas([
      'gen',
      '--format',
      'dataset',
      '-n',
      '300',
      '--split',
      'train',
      '--out',
      join(dir, 'train.jsonl'),
    ]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(gen.stderr).toMatch(
      /^bas gen: train split of seed 20260826: tasks of seed \d+; the test split is seed 20260826\n$/,
    );
    const rows = lines<Row>(readFileSync(join(dir, 'train.jsonl'), 'utf8'));
    expect(rows).toHaveLength(300);
    expect(readFileSync(join(dir, 'train.jsonl'), 'utf8')).not.toMatch(/"key"|"faults"|"injected"/);

    // The same tasks with their keys, for bas score (the seed the split used is in every label).
    const seed = /:s(\d+):/.exec(rows[0]!.label)![1]!;
    const tasksText = (await bas(['gen', '--format', 'jsonl', '-n', '300', '--seed', seed])).stdout;
    writeFileSync(join(dir, 'tasks.jsonl'), tasksText);
    const tasks = lines<unknown>(tasksText).map(taskFromJson);

    // What the policy answered: every built-in policy and hostile replies, per task.
    const samples = rows.flatMap((row, index) =>
      repliesFor(tasks[index]!).map((reply, rollout) => ({ row, index, rollout, reply })),
    );
    writeFileSync(
      join(dir, 'replies.jsonl'),
      samples.map((s) => `${JSON.stringify({ index: s.index, rollout: s.rollout, reply: s.reply })}\n`).join(''),
    );
    const score = await bas([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'replies.jsonl'),
      '--output',
      join(dir, 'scored'),
      '--json',
    ]);
    expect(score.code, score.stderr).toBe(0);
    const scored = lines<Record<string, unknown>>(readFileSync(join(dir, 'scored', 'results.jsonl'), 'utf8'));
    const want = scored as Array<{ reward: number; rewards: Record<string, number> }>;
    expect(want.length).toBeGreaterThanOrEqual(2000);

    // OpenRLHF renders the dataset's messages with --apply_chat_template, appends the sampled
    // tokens (with the end-of-turn token) and posts in batches; newer versions post one sample at a time.
    const post = async (batch: typeof samples) => {
      const res = await fetch(`${url}/get_reward`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer tok-123' },
        body: JSON.stringify(openrlhfBody(batch.map((s) => ({ ...s.row, reply: s.reply })))),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { rewards: number[]; scores: number[]; extra_logs: Record<string, number[]> };
    };
    const got: number[] = [];
    const audit: number[] = [];
    for (let k = 0; k < samples.length; k += 64) {
      const r = await post(samples.slice(k, k + 64));
      got.push(...r.rewards);
      audit.push(...r.extra_logs.fault_audit!);
    }
    expect(got).toEqual(want.map((w) => w.reward));
    expect(audit).toEqual(want.map((w) => w.rewards.fault_audit));
    for (const k of [0, 1, 2, 3]) expect((await post([samples[k]!])).rewards).toEqual([want[k]!.reward]);
    // POST /score through the threads: what bas score --out writes, as JSON text, for every reply.
    const res = await fetch(`${url}/score`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok-123' },
      body: JSON.stringify(samples.map((s) => ({ label: s.row.label, completion: s.reply }))),
    });
    const results = ((await res.json()) as { results: unknown[] }).results;
    expect(results.map((r) => JSON.stringify(r))).toEqual(
      scored.map((l) => JSON.stringify({ reward: l.reward, rewards: l.rewards, metrics: l.metrics, detail: l.detail })),
    );
    // The oracle scores 1 on every task: the prompt is enough, through the trainer's template too.
    expect(samples.filter((s) => s.rollout === 0).map((s) => got[samples.indexOf(s)])).toEqual(rows.map(() => 1));
  });

  it('curl-like checks: /health, a missing token, then SIGTERM ends it cleanly', async () => {
    const health = (await (await fetch(`${url}/health`)).json()) as {
      status: string;
      workers: number;
      cache: { misses: number; hits: number };
    };
    expect(health.status).toBe('ok');
    expect(health.workers).toBe(2);
    // Each label goes to one thread: 300 tasks regenerated once each, every other sample a hit.
    expect(health.cache.misses).toBe(300);
    expect(health.cache.hits).toBeGreaterThan(0);
    const refused = await fetch(`${url}/score`, { method: 'POST', body: '[]' });
    expect(refused.status).toBe(401);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/bas reward-server: SIGTERM: finishing the requests under way\n/);
    expect(stderr).toMatch(/bas reward-server: \d+ requests, \d+ replies graded, 1 refused, 0 failed/);
    expect(stderr).not.toContain('tok-123');
  });
});

describe('bas reward-server refuses bad flags in one line', () => {
  it.each([
    [['--port', 'x'], 'bas: --port must be an integer from 0 to 65535, got "x"\n'],
    [['--workers', '65'], 'bas: --workers must be an integer from 0 to 64, got "65"\n'],
    [['--max-batch', '0'], 'bas: --max-batch must be an integer from 1 to 1000000, got "0"\n'],
    [['--max-body-mb', '0'], 'bas: --max-body-mb must be a number from 0.001 to 1024, got "0"\n'],
    [['--token-var', 'NOPE_UNSET_VAR'], 'bas: --token-var NOPE_UNSET_VAR: the variable is not set, or is empty\n'],
    [
      ['--token-var', 'a-b'],
      'bas: --token-var must be the NAME of an environment variable (letters, digits, _), not its value\n',
    ],
  ])('%j', async (args, message) => {
    const r = await bas(['reward-server', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(message);
    expect(r.stdout).toBe('');
  });

  it('a port in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const r = await bas(['reward-server', '--port', String(port)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`bas: cannot listen on 127.0.0.1:${port}: the port is in use (try --port 0)\n`);
    } finally {
      taken.close();
    }
  });
});
