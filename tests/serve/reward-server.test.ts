/**
 * The reward server in process: grading equal to `bas score`, bit for bit, on a few thousand
 * replies; OpenRLHF's request and answer shapes; a 4xx for every bad request and never a
 * crash; the bounded key cache; concurrent requests; the token; a graceful close.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startRewardServer } from '../../src/serve/reward-server.js';
import { responseOf } from '../../src/serve/reward-grade.js';
import { datasetRow } from '../../src/task/dataset.js';
import { generateTask } from '../../src/task/generate.js';
import { taskToJson } from '../../src/task/serialize.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import type { Task } from '../../src/task/types.js';
import { bas } from '../support/cli.js';
import { chatml, openrlhfBody, repliesFor } from '../support/replies.js';
import { REWARD_SERVER_BASE, rewardServers } from '../support/reward-servers.js';

const { start, post } = rewardServers();

const tasks: Task[] = Array.from({ length: 8 }, (_, i) => generateTask(DEFAULT_TASK_CONFIG, i));
const rows = tasks.map(datasetRow);
const oracle = (i: number) => repliesFor(tasks[i]!)[0]!;

/** OpenRLHF's body for some (task, reply) pairs. */
const openrlhf = (pairs: Array<[number, string]>) => openrlhfBody(pairs.map(([i, reply]) => ({ ...rows[i]!, reply })));

describe('grading equals bas score', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bas-reward-'));
  const many: Task[] = Array.from({ length: 300 }, (_, i) => generateTask(DEFAULT_TASK_CONFIG, i));
  const items: Array<{ index: number; rollout: number; reply: string }> = [];
  let scored: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    for (const t of many) repliesFor(t).forEach((reply, rollout) => items.push({ index: t.index, rollout, reply }));
    writeFileSync(join(dir, 'tasks.jsonl'), many.map((t) => `${JSON.stringify(taskToJson(t))}\n`).join(''));
    writeFileSync(join(dir, 'replies.jsonl'), items.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const r = await bas([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'replies.jsonl'),
      '--output',
      join(dir, 'scored'),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    scored = readFileSync(join(dir, 'scored', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  });

  it('POST /score gives what bas score --out gives, for every one of a few thousand replies', async () => {
    expect(items.length).toBeGreaterThanOrEqual(2000);
    expect(scored).toHaveLength(items.length);
    const s = await start();
    const labels = new Map(many.map((t) => [t.index, datasetRow(t).label]));
    const results: unknown[] = [];
    for (let k = 0; k < items.length; k += 500) {
      const batch = items.slice(k, k + 500).map((r) => ({ label: labels.get(r.index), completion: r.reply }));
      const res = await post(s, '/score', batch);
      expect(res.status).toBe(200);
      results.push(...(res.body.results as unknown[]));
    }
    // Compared as JSON text: every number printed the shortest way that reads back to its bits.
    const want = scored.map((l) =>
      JSON.stringify({ reward: l.reward, rewards: l.rewards, metrics: l.metrics, detail: l.detail }),
    );
    expect(results.map((r) => JSON.stringify(r))).toEqual(want);
    // Every kind of outcome is in there: full marks, partial credit, and unparseable replies.
    const rewards = new Set(scored.map((l) => l.reward));
    expect(rewards.has(1) && rewards.has(0) && [...rewards].some((x) => (x as number) > 0 && (x as number) < 1)).toBe(
      true,
    );
  });

  it('POST /get_reward gives the same rewards, with each component in extra_logs', async () => {
    const s = await start();
    const pairs = items.slice(0, 1200);
    const body = openrlhfBody(pairs.map((r) => ({ ...datasetRow(many[r.index]!), reply: r.reply })));
    const res = await post(s, '/get_reward', body);
    expect(res.status).toBe(200);
    const want = scored.slice(0, 1200);
    expect(res.body.rewards).toEqual(want.map((l) => l.reward));
    expect(res.body.scores).toEqual(res.body.rewards);
    const logs = res.body.extra_logs as Record<string, number[]>;
    expect(logs.bas_correct).toEqual(want.map((l) => (l.rewards as Record<string, number>).bas_correct));
    expect(logs.fault_audit).toEqual(want.map((l) => (l.rewards as Record<string, number>).fault_audit));
    for (const m of ['bas_label_accuracy', 'fault_precision', 'fault_recall', 'num_flagged', 'parsed'])
      expect(logs[m], m).toEqual(want.map((l) => (l.metrics as Record<string, number>)[m]));
    expect(new Set(logs.prompt_matched)).toEqual(new Set([1]));
    expect(res.body.response_from).toEqual(pairs.map(() => 'prompt'));
  });
});

describe('the response inside a query', () => {
  const prompt = chatml(rows[0]!.prompt);
  it.each([
    ['after its prompt', `${prompt}REPLY<|im_end|>`, prompt, 'REPLY<|im_end|>', 'prompt'],
    [
      'after its prompt with whitespace changed',
      // The prompt's own trailing whitespace, as decoded, stays with the response: harmless to grading.
      `${prompt.replace(/\n/g, '\r\n ')}REPLY`,
      prompt,
      '\r\n REPLY',
      'prompt_loose',
    ],
    ['after the last assistant marker', `cut${prompt.slice(40)}REPLY`, prompt, '\nREPLY', 'marker'],
    ['after a Llama 3 marker', 'x<|start_header_id|>assistant<|end_header_id|>\n\nREPLY', 'y', '\n\nREPLY', 'marker'],
    ['nowhere', 'something else entirely', prompt, '', 'none'],
    ['the whole query, for an empty prompt', 'REPLY', '', 'REPLY', 'prompt'],
  ])('%s', (_name, query, p, response, from) => {
    expect(responseOf(query, p)).toEqual({ response, from });
  });

  it('a query whose prompt is not found is graded from the marker, reported in extra_logs and warned about once', async () => {
    const warnings: string[] = [];
    const s = await start({ warn: (l) => warnings.push(l) });
    const body = openrlhf([
      [0, oracle(0)],
      [1, oracle(1)],
    ]);
    body.query[0] = body.query[0]!.slice(100); // the prompt cut from the left, as a trainer does to fit
    body.query[1] = oracle(1); // no prompt and no marker: nothing to grade
    for (let k = 0; k < 2; k++) {
      const res = await post(s, '/get_reward', body);
      expect(res.body.rewards).toEqual([1, 0]);
      expect((res.body.extra_logs as Record<string, number[]>).prompt_matched).toEqual([0, 0]);
      expect((res.body.extra_logs as Record<string, number[]>).parsed).toEqual([1, 0]);
      expect(res.body.response_from).toEqual(['marker', 'none']);
    }
    expect(warnings).toHaveLength(1);
    expect(s.stats.responseFrom).toEqual({ prompt: 0, prompt_loose: 0, marker: 2, none: 2 });
  });
});

describe('bad requests get a 4xx and one reason, and the server goes on', () => {
  const good = () => openrlhf([[0, oracle(0)]]);
  it.each([
    ['not JSON', '{"query": [', 400, 'the body is not valid JSON'],
    ['a list', [], 400, 'the body must be a JSON object {"query": [...], "prompts": [...], "labels": [...]}'],
    ['no query', { prompts: [], labels: [] }, 400, '"query" must be a list of strings'],
    ['a query that is not a string', { ...good(), query: [1] }, 400, 'query[0] must be a string'],
    ['no labels', { ...good(), labels: undefined }, 400, '"labels" must be a list of task labels'],
    [
      'unequal lengths',
      { ...good(), prompts: ['a', 'b'] },
      400,
      '"query", "prompts" and "labels" must be of one length, got 1, 2 and 1',
    ],
    ['an empty label (no --label_key)', { ...good(), labels: [''] }, 400, 'labels[0]: the label is empty'],
    ['a bad label', { ...good(), labels: ['bas:g3:p2:n24:f.25:s1:i0'] }, 400, 'labels[0]: the fault rate must be'],
    [
      'a label of another generator',
      { ...good(), labels: ['bas:g2:p2:n24:f0.25:s1:i0'] },
      422,
      'labels[0]: the label names generator version 2, but this bas generates version 3',
    ],
    [
      'a label of another prompt',
      { ...good(), labels: ['bas:g3:p1:n24:f0.25:s1:i0'] },
      422,
      'labels[0]: the label names prompt version 1, but this bas writes prompt version 2',
    ],
  ])('%s', async (_name, body, status, message) => {
    const s = await start();
    const res = await post(s, '/get_reward', body);
    expect(res.status).toBe(status);
    expect((res.body.error as { message: string }).message).toContain(message);
    expect((await post(s, '/get_reward', good())).body.rewards).toEqual([1]);
    expect(s.stats.failed).toBe(0);
  });

  it.each([
    ['an item without a completion', [{ label: rows[0]!.label }], 400, 'item 0: "completion" must be a string'],
    ['an item that is not an object', [7], 400, 'item 0 must be an object'],
    ['a bad label', [{ label: 'bas:x', completion: '' }], 400, 'item 0: label: a label has the form'],
    ['an object without items', { x: 1 }, 400, 'the body must be a list of {"label", "completion"} items'],
  ])('/score: %s', async (_name, body, status, message) => {
    const s = await start();
    const res = await post(s, '/score', body);
    expect(res.status).toBe(status);
    expect((res.body.error as { message: string }).message).toContain(message);
  });

  it('a batch over --max-batch and a body over the byte limit are 413s', async () => {
    const s = await start({ maxBatch: 2, maxBodyBytes: 200_000 });
    const three = openrlhf([
      [0, ''],
      [1, ''],
      [2, ''],
    ]);
    const tooMany = await post(s, '/get_reward', three);
    expect(tooMany.status).toBe(413);
    expect((tooMany.body.error as { message: string }).message).toContain('at most 2 items (--max-batch), got 3');
    const big = await post(s, '/score', [{ label: rows[0]!.label, completion: 'x'.repeat(300_000) }]);
    expect(big.status).toBe(413);
    expect((big.body.error as { message: string }).message).toContain(
      'larger than the 200000 bytes (0.191 MiB, --max-body-mb)',
    );
    // A body that says nothing of its length is cut off as it streams in.
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/score`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      for (let k = 0; k < 30; k++) req.write('x'.repeat(10_000));
      req.end();
    });
    expect(streamed).toBe(413);
    expect((await post(s, '/get_reward', openrlhf([[0, oracle(0)]]))).status).toBe(200);
  });

  it('a client that goes away half-way through its body costs nothing', async () => {
    const s = await start();
    const req = request(`${s.url}/get_reward`, { method: 'POST', headers: { 'content-length': '100000' } });
    req.on('error', () => undefined);
    req.write('{"query": [');
    while (s.stats.requests === 0) await new Promise((r) => setImmediate(r));
    req.destroy();
    while (s.stats.refused === 0) await new Promise((r) => setImmediate(r));
    expect(s.stats.failed).toBe(0);
    expect((await post(s, '/get_reward', openrlhf([[0, oracle(0)]]))).body.rewards).toEqual([1]);
  });

  it('routes and methods', async () => {
    const s = await start();
    expect((await fetch(`${s.url}/nope`)).status).toBe(404);
    expect((await fetch(`${s.url}/get_reward`)).status).toBe(405);
    expect((await post(s, '/health', {})).status).toBe(405);
    const health = (await (await fetch(`${s.url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', generator: 3, prompt_version: 2, max_batch: 4096 });
  });
});

describe('a service in a training loop', () => {
  it('keeps at most --cache-size keys, and hits the cache for repeated labels', async () => {
    const s = await start({ cacheSize: 3 });
    const all = openrlhf(tasks.map((_, i): [number, string] => [i, oracle(i)]));
    expect((await post(s, '/get_reward', all)).body.rewards).toEqual(tasks.map(() => 1));
    expect(s.cache()).toMatchObject({ size: 3, max: 3, misses: 8, hits: 0 });
    // Samples of one prompt in a row: one miss, then hits.
    const same = openrlhf([7, 7, 7, 7].map((i): [number, string] => [i, oracle(i)]));
    expect((await post(s, '/get_reward', same)).body.rewards).toEqual([1, 1, 1, 1]);
    expect(s.cache()).toMatchObject({ size: 3, misses: 8, hits: 4 });
  });

  it('serves concurrent requests, each its own answer', async () => {
    const s = await start();
    const bodies = tasks.map((_, i) => openrlhf([[i, repliesFor(tasks[i]!)[i % 4]!]]));
    const answers = await Promise.all(bodies.map((b) => post(s, '/get_reward', b)));
    const want = await post(
      s,
      '/get_reward',
      openrlhf(tasks.map((_, i): [number, string] => [i, repliesFor(tasks[i]!)[i % 4]!])),
    );
    expect(answers.map((a) => (a.body.rewards as number[])[0])).toEqual(want.body.rewards);
  });

  it('grading threads that cannot start fail the start, once, with advice', async () => {
    // Run from the TypeScript sources there is no compiled grade-worker.js beside this module.
    await expect(startRewardServer({ ...REWARD_SERVER_BASE, workers: 2 })).rejects.toThrow(
      /^the grading threads did not start: .* \(try --workers 0\)$/,
    );
  });

  it('with a token, needs it on every POST, and /health stays open', async () => {
    const s = await start({ token: 's3cret-token' });
    expect((await post(s, '/get_reward', openrlhf([[0, oracle(0)]]))).status).toBe(401);
    expect((await post(s, '/get_reward', openrlhf([[0, oracle(0)]]), { authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
    const ok = await post(s, '/get_reward', openrlhf([[0, oracle(0)]]), { authorization: 'Bearer s3cret-token' });
    expect(ok.body.rewards).toEqual([1]);
    const health = await fetch(`${s.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).not.toContain('s3cret');
  });

  it('a close lets the request under way finish, then refuses connections', async () => {
    const s = await start();
    const text = JSON.stringify(openrlhf([[0, oracle(0)]]));
    const half = text.length >> 1;
    let answered = '';
    const response = new Promise<number>((resolve, reject) => {
      const req = request(
        `${s.url}/get_reward`,
        { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(text)) } },
        (res) => {
          res.on('data', (d: Buffer) => (answered += d.toString()));
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.write(text.slice(0, half));
      // The rest is sent once the server has the request, and is closing.
      void (async () => {
        while (s.stats.requests === 0) await new Promise((r) => setImmediate(r));
        const closed = s.close();
        req.end(text.slice(half));
        await closed;
      })();
    });
    expect(await response).toBe(200);
    expect((JSON.parse(answered) as { rewards: number[] }).rewards).toEqual([1]);
    await s.close();
    await expect(fetch(`${s.url}/health`)).rejects.toThrow();
  });
});
