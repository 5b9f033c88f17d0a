/**
 * Running at scale: a batch file through a stand-in batch engine and back through
 * `bas score`, and shards of a run merged back into one. Each must give the same figures as
 * the plain `bas eval` run with the same model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPolicy } from '../../src/task/policies.js';
import type { ChatMessage } from '../../src/task/types.js';
import { bas, readResults, stableSummary, tempDir } from '../support/cli.js';

/** A stand-in for a batch engine: answers each request with a policy, failing the ones asked. */
function runBatch(requests: string, fail: (customId: string) => Record<string, unknown> | null): string {
  return requests
    .trim()
    .split('\n')
    .map((line, k) => {
      const req = JSON.parse(line) as { custom_id: string; body: { model: string; messages: ChatMessage[] } };
      const failure = fail(req.custom_id);
      if (failure) return JSON.stringify({ id: `batch_req_${k}`, custom_id: req.custom_id, ...failure });
      const content = runPolicy('blanket', req.body.messages);
      const body = {
        id: `chatcmpl-${k}`,
        object: 'chat.completion',
        model: req.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      };
      return JSON.stringify({
        id: `batch_req_${k}`,
        custom_id: req.custom_id,
        response: { status_code: 200, request_id: `r${k}`, body },
        error: null,
      });
    })
    .join('\n');
}

const summaryOf = async (args: string[]) => {
  const r = await bas([...args, '--json']);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('batch files round trip', () => {
  it('gen --format batch, a batch engine, score: the same summary as eval with the same policy', async () => {
    const dir = tempDir();
    const task = ['-n', '12', '--seed', '9', '--fault-rate', '0.4'];
    writeFileSync(join(dir, 'tasks.jsonl'), (await bas(['gen', ...task])).stdout);
    const requests = (
      await bas(['gen', ...task, '--format', 'batch', '-m', 'batch-model', '-r', '2', '--temperature', '0'])
    ).stdout;
    const lines = requests
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(24);
    expect(lines[3]).toMatchObject({
      custom_id: 'task-1-r1',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'batch-model', temperature: 0 },
    });
    writeFileSync(
      join(dir, 'output.jsonl'),
      runBatch(requests, () => null),
    );

    const scored = await summaryOf([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'output.jsonl'),
      '--output',
      join(dir, 'run'),
    ]);
    const direct = await summaryOf([
      'eval',
      '-m',
      'builtin:blanket',
      ...task,
      '-r',
      '2',
      '--output',
      join(dir, 'eval'),
      '--no-progress',
    ]);
    const { tokens: _t, ...a } = stableSummary(scored) as Record<string, unknown>;
    const { tokens: _u, ...b } = stableSummary(direct) as Record<string, unknown>;
    expect(a).toEqual(b);
    expect(scored.tokens.prompt).toBe(2400);

    // The run folder reads like any other.
    const report = JSON.parse((await bas(['report', join(dir, 'run'), '--json'])).stdout);
    expect(report.run.model).toBe('batch-model');
    expect(report.summary.counts.rollouts).toBe(24);
    const compare = await bas(['compare', join(dir, 'eval'), join(dir, 'run'), '--json']);
    expect(compare.code).toBe(0);
    // score was not told how the batch was sampled: unknown, and the verdict says so.
    const pairing = JSON.parse(compare.stdout).pairings[0];
    expect(pairing.verdict).toBe('no difference shown at 95%; sampling differs (sampling known vs unknown)');
  });

  it('failed batch requests become typed errors, counted and left out of the means', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tasks.jsonl'), (await bas(['gen', '-n', '4'])).stdout);
    const requests = (await bas(['gen', '-n', '4', '--format', 'batch', '-m', 'm'])).stdout;
    writeFileSync(
      join(dir, 'output.jsonl'),
      runBatch(requests, (id) =>
        id === 'task-1-r0'
          ? { response: { status_code: 429, request_id: 'x', body: { error: { message: 'slow down' } } }, error: null }
          : id === 'task-2-r0'
            ? { response: null, error: { code: 'batch_expired', message: 'expired' } }
            : null,
      ),
    );
    const out = join(dir, 'scored');
    const s = await summaryOf([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'output.jsonl'),
      '--output',
      out,
      // Two of four failed: within a budget of a half, over eval's default of a tenth.
      '--max-error-rate',
      '0.5',
    ]);
    expect(s.counts).toMatchObject({
      rollouts: 4,
      completed: 2,
      errored: 2,
      errors_by_type: { rate_limit: 1, provider: 1 },
    });
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[1]).toMatchObject({ index: 1, reward: null, error: { type: 'rate_limit' } });
  });
});

describe('score --output', () => {
  it('refuses a tasks file that mixes task configurations, writing nothing', async () => {
    const dir = tempDir();
    const lines = (await bas(['gen', '-n', '2'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    lines[1].config.seed = 77;
    writeFileSync(join(dir, 'tasks.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    writeFileSync(join(dir, 'replies.jsonl'), '{"index": 0, "reply": "x"}\n{"index": 1, "reply": "y"}\n');
    const r = await bas([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'replies.jsonl'),
      '--output',
      join(dir, 'run'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mixes task configurations \(task 0 and task 1 differ\)/);
    expect(() => readFileSync(join(dir, 'run', 'run.json'))).toThrow();
    // Refused from the tasks alone, before any reply is read.
    const early = await bas([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'missing.jsonl'),
      '--output',
      join(dir, 'run'),
    ]);
    expect(early.stderr).toMatch(/mixes task configurations/);
  });
});

describe('shards', () => {
  const task = ['-n', '11', '-r', '2', '--seed', '3'];

  it('shards are disjoint, cover the run, and merged equal the unsharded run', async () => {
    const dir = tempDir();
    const whole = await summaryOf([
      'eval',
      '-m',
      'builtin:blanket',
      ...task,
      '--output',
      join(dir, 'whole'),
      '--no-progress',
    ]);
    const seen = new Set<string>();
    for (const i of [1, 2, 3]) {
      await summaryOf([
        'eval',
        '-m',
        'builtin:blanket',
        ...task,
        '--shard',
        `${i}/3`,
        '--output',
        join(dir, `s${i}`),
        '--no-progress',
      ]);
      for (const r of readResults(join(dir, `s${i}`))) {
        expect(r.index % 3).toBe(i - 1);
        const key = `${r.index}:${r.rollout}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
      expect(JSON.parse(readFileSync(join(dir, `s${i}`, 'run.json'), 'utf8')).shard).toEqual({ index: i, count: 3 });
    }
    expect(seen.size).toBe(22);
    const merged = await summaryOf([
      'merge',
      join(dir, 's1'),
      join(dir, 's2'),
      join(dir, 's3'),
      '--output',
      join(dir, 'merged'),
    ]);
    expect(stableSummary(merged)).toEqual(stableSummary(whole));
    const run = JSON.parse(readFileSync(join(dir, 'merged', 'run.json'), 'utf8'));
    expect(run).toMatchObject({ status: 'complete', shard: null, n: 11, rollouts: 2 });
    // One process's pacing belongs to its shard, not to the merged run.
    const s1 = JSON.parse(readFileSync(join(dir, 's1', 'run.json'), 'utf8'));
    expect(s1.pace).toBeTruthy();
    expect(run.pace).toBeUndefined();
    expect(run.merged_from[0].pace).toEqual(s1.pace);
    // Nor do its sessions: shards may run side by side, so their times do not add up.
    expect(s1.sessions).toHaveLength(1);
    expect(run.sessions).toBeUndefined();
    expect(run.elapsed_s).toBeUndefined();
  });

  it('merge refuses overlapping shards and mismatched configurations, and leaves nothing behind', async () => {
    const dir = tempDir();
    await bas(['eval', '-m', 'builtin:oracle', ...task, '--shard', '1/2', '--output', join(dir, 'a'), '--no-progress']);
    await bas(['eval', '-m', 'builtin:oracle', ...task, '--shard', '1/2', '--output', join(dir, 'b'), '--no-progress']);
    await bas([
      'eval',
      '-m',
      'builtin:oracle',
      '-n',
      '11',
      '-r',
      '2',
      '--seed',
      '4',
      '--shard',
      '2/2',
      '--output',
      join(dir, 'c'),
      '--no-progress',
    ]);
    const overlap = await bas(['merge', join(dir, 'a'), join(dir, 'b'), '--output', join(dir, 'm')]);
    expect(overlap.code).toBe(2);
    expect(overlap.stderr).toMatch(/task 0 rollout 0 is in both .*overlapping shards/);
    const mismatch = await bas(['merge', join(dir, 'a'), join(dir, 'c'), '--output', join(dir, 'm')]);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/cannot merge: .*c has task\.seed 4, .*a has 3\n/);
    expect((await bas(['merge', join(dir, 'a'), '--output', join(dir, 'm')])).stderr).toMatch(/at least two/);
    expect(() => readFileSync(join(dir, 'm', 'run.json'))).toThrow();
  });

  it('merge keeps the prices its inputs agree on, and forgets the others', async () => {
    const dir = tempDir();
    const shard = (i: number, priceIn: string) =>
      bas([
        'eval',
        '-m',
        'builtin:oracle',
        '-n',
        '4',
        '--shard',
        `${i}/2`,
        '--price-in',
        priceIn,
        '--price-out',
        '2',
        '--output',
        join(dir, `s${i}`),
        '--no-progress',
      ]);
    await shard(1, '0.5');
    await shard(2, '0.7');
    expect((await bas(['merge', join(dir, 's1'), join(dir, 's2'), '--output', join(dir, 'm')])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'm', 'run.json'), 'utf8')).prices).toEqual({ in: null, out: 2 });
  });

  it('a shard resumes like a whole run, and keeps its slice', async () => {
    const dir = tempDir();
    const out = join(dir, 's');
    await summaryOf(['eval', '-m', 'builtin:oracle', ...task, '--shard', '2/4', '--output', out, '--no-progress']);
    const before = readResults(out).length;
    const again = await summaryOf(['eval', '--resume', out, '--no-progress']);
    expect(readResults(out)).toHaveLength(before);
    expect(again.counts.rollouts).toBe(6);
    const refused = await bas(['eval', '--resume', out, '--shard', '1/4', '--no-progress']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--shard "1\/4" differs/);

    // A hand-edited shard that is no shard (count 0 would step by nothing) is refused, not looped on.
    const file = join(out, 'run.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), shard: { index: 1, count: 0 } }));
    const broken = await bas(['eval', '--resume', out, '--no-progress']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/has an unreadable "shard"/);
    expect((await bas(['report', out, '--json'])).code).toBe(0);
  });
});
