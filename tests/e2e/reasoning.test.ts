/**
 * A reasoning model whose token budget runs out, end to end: `bas serve --reasoning-tokens`
 * answers with empty content cut by the limit, every completion token a reasoning token.
 * `bas check` must fail on it with advice, `bas eval` must stop after the first rollouts and
 * leave the folder restartable, and every token the server reported must be counted, in the
 * summary, the report and the leaderboard, with the part that bought nothing shown apart.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bas, readResults, serve, tempDir, type Served } from '../support/cli.js';

let thinker: Served;
let flaky: Served;
const KEY = { OPENAI_API_KEY: 'k' };

interface Stats {
  requests: number;
  ok: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

async function stats(s: Served): Promise<Stats> {
  return (await (await fetch(`${s.url}/bas/stats`)).json()) as Stats;
}

beforeAll(async () => {
  // Reasons 5,000 tokens before it answers: a limit of 4,096 leaves nothing for the reply.
  thinker = await serve(['--reasoning-tokens', '5000']);
  // Fails at random (500s, garbled bodies), reasons a little, answers right otherwise.
  flaky = await serve([
    '--reasoning-tokens',
    '200',
    '--error-rate',
    '0.3',
    '--malformed-rate',
    '0.15',
    '--retry-after',
    '0.01',
    '--seed',
    '3',
  ]);
});
afterAll(async () => {
  await thinker.stop();
  await flaky.stop();
});

const spent = ['--max-tokens', '4096', '--reasoning-effort', 'high'];

describe('bas check against a reasoning model out of tokens', () => {
  it('fails, says what it saw and what to change, and never says ok', async () => {
    const r = await bas(['check', '-m', 'r1', '--base-url', thinker.url, ...spent], { env: KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/task +0 \(the run's first\)/);
    expect(r.stdout).toMatch(/finish +length/);
    expect(r.stdout).toMatch(/tokens +4,096 completion \(4,096 reasoning, 0 content\), [\d,]+ prompt/);
    expect(r.stdout).toMatch(/answer +not parsed/);
    expect(r.stdout).toMatch(/reward +none/);
    expect(r.stdout).toMatch(/result +FAILED/);
    expect(r.stdout).not.toMatch(/result +ok/);
    expect(r.stderr).toMatch(
      /^bas: check failed: the model spent all 4,096 tokens reasoning and wrote no reply: raise --max-tokens \(now 4,096\) or lower --reasoning-effort \(now high\)$/m,
    );
  });

  it('passes with a limit that leaves room for the answer, grading it', async () => {
    const r = await bas(['check', '-m', 'r1', '--base-url', thinker.url, '--max-tokens', '8000', '--json'], {
      env: KEY,
    });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ ok: true, advice: null, task: { index: 0 } });
    expect(j.graded).toMatchObject({ finishReason: 'stop', reasoningTokens: 5000, parsed: true, reward: 1 });
  });

  it('eval --check stops before the run folder exists', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(
      ['eval', '-m', 'r1', '-n', '5', '--check', '--base-url', thinker.url, ...spent, '--output', dir, '--no-progress'],
      { env: KEY },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bas: check failed: the model spent all 4,096 tokens reasoning/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('bas eval against a reasoning model out of tokens', () => {
  it('stops after the first 3 rollouts, counts every token the server billed, and restarts with corrected flags', async () => {
    const dir = join(tempDir(), 'run');
    const before = await stats(thinker);
    const args = [
      'eval',
      '-m',
      'r1',
      '-n',
      '50',
      '-c',
      '1',
      '--base-url',
      thinker.url,
      '--output',
      dir,
      '--no-progress',
    ];
    const prices = ['--price-in', '1', '--price-out', '8'];
    const r = await bas([...args, ...spent, ...prices], { env: KEY });
    const after = await stats(thinker);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sent no usable reply: malformed response: the reply has reasoning but no content/);
    expect(r.stderr).toMatch(/raise --max-tokens \(now 4,096\) or lower --reasoning-effort/);
    expect(r.stderr).toMatch(/the first 3 rollouts all ended this way/);
    expect(r.stderr).toMatch(/can be started again/);
    // What the stopped run cost is said at once: 3 × (prompt + 4,096) tokens, all wasted.
    expect(r.stderr).toMatch(
      /; it used ([\d,]+) tokens \(\$0\.\d{4}\), \1 of them on errored rollouts; run stopped \(/,
    );
    expect(after.requests - before.requests).toBe(3);

    // Each errored line keeps what it cost, and the sums match the server's own count.
    const lines = readResults(dir);
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expect(l.error.type).toBe('malformed');
      expect(l.usage).toMatchObject({ completion_tokens: 4096, reasoning_tokens: 4096 });
      expect(l.finish_reason).toBe('length');
    }
    const sum = (k: string) => lines.reduce((a, l) => a + l.usage[k], 0);
    expect(sum('prompt_tokens')).toBe(after.promptTokens - before.promptTokens);
    expect(sum('completion_tokens')).toBe(after.completionTokens - before.completionTokens);
    expect(sum('reasoning_tokens')).toBe(after.reasoningTokens - before.reasoningTokens);
    const info = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(info.status).toBe('failed');
    expect(info.summary.tokens.unscored.total).toBe(info.summary.tokens.total);

    // The report prices them, and says they bought nothing.
    const rep = await bas(['report', dir, '--json']);
    const j = JSON.parse(rep.stdout);
    const dollars = (sum('prompt_tokens') * 1 + sum('completion_tokens') * 8) / 1e6;
    expect(j.cost.total_usd).toBeCloseTo(dollars, 10);
    expect(j.cost.unscored_usd).toBeCloseTo(dollars, 10);
    const text = await bas(['report', dir]);
    expect(text.stdout).toMatch(/of which bought nothing \(3 errored rollouts, [\d,]+ tokens\) +│ +\$0\.\d{4}/);
    expect(text.stdout).toMatch(/of which bought no score +│ +[\d,]+/);
    const lb = await bas(['leaderboard', dir, '--json']);
    // A failed run is listed below the ranking, with its cost all the same.
    const group = JSON.parse(lb.stdout).groups[0];
    expect(group.runs).toEqual([]);
    expect(group.unranked[0].cost.unscored_usd).toBeCloseTo(dollars, 10);

    // The same folder takes the corrected settings.
    const again = await bas(
      ['eval', '-m', 'r1', '-n', '3', '-c', '1', '--base-url', thinker.url, '--max-tokens', '8000'].concat([
        '--output',
        dir,
        '--no-progress',
        '--json',
      ]),
      { env: KEY },
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/held a run that recorded no scored rollout; starting it again/);
    expect(JSON.parse(again.stdout).counts).toMatchObject({ completed: 3, errored: 0 });
  });

  it('random failures (500s, garbled bodies) never stop a run, and its token sums equal the server count', async () => {
    const dir = join(tempDir(), 'run');
    const before = await stats(flaky);
    const r = await bas(
      ['eval', '-m', 'r1', '-n', '30', '-c', '4', '--max-retries', '1', '--max-error-rate', '1'].concat([
        '--base-url',
        flaky.url,
        '--max-tokens',
        '8000',
        '--price-in',
        '1',
        '--price-out',
        '8',
        '--output',
        dir,
        '--no-progress',
        '--json',
      ]),
      { env: KEY },
    );
    const after = await stats(flaky);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/no usable reply/);
    const s = JSON.parse(r.stdout);
    expect(s.counts.rollouts).toBe(30);
    expect(s.counts.errored).toBeGreaterThan(0);
    expect(s.counts.completed).toBeGreaterThan(0);
    expect(s.tokens.prompt).toBe(after.promptTokens - before.promptTokens);
    expect(s.tokens.completion).toBe(after.completionTokens - before.completionTokens);
    expect(s.tokens.reasoning).toBe(after.reasoningTokens - before.reasoningTokens);
    // --json carries the cost at the run's prices; these errors got no reply, so cost nothing.
    expect(s.cost.total_usd).toBeCloseTo((s.tokens.prompt + 8 * s.tokens.completion) / 1e6, 12);
    expect(s.cost.unscored_usd).toBe(0);
  });
});
