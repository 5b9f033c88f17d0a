/**
 * NeMo Gym's resources-server protocol on `bas reward-server`: /verify grades the task row's
 * response as `bas score` does and answers as NeMo Gym's BaseVerifyResponse (the request
 * echoed, the reward, numeric metrics); /seed_session answers both of NeMo Gym's callers; every
 * bad request is a 4xx naming the fault, under the same bounds and token as the other routes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { responseText } from '../../src/serve/nemo-gym.js';
import { datasetRow } from '../../src/task/dataset.js';
import { generateTask } from '../../src/task/generate.js';
import { taskToJson } from '../../src/task/serialize.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { bas } from '../support/cli.js';
import { repliesFor } from '../support/replies.js';
import { rewardServers } from '../support/reward-servers.js';

const { start, post } = rewardServers({ cacheSize: 100 });

const tasks = Array.from({ length: 6 }, (_, i) => generateTask(DEFAULT_TASK_CONFIG, i));

/** A NeMo Gym dataset row for a task: its prompt as the Responses input, and its label. */
function row(i: number): Record<string, unknown> {
  const { prompt, label } = datasetRow(tasks[i]!);
  return { responses_create_params: { input: prompt, temperature: 0 }, label, task_id: `bas-${i}` };
}

/** A Responses object as NeMo Gym's model servers (and verifiers' NeMo Gym taskset) build it. */
function responseOf(text: string, extra: unknown[] = []): Record<string, unknown> {
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 0,
    model: 'm',
    output: [...extra, message],
    status: 'completed',
  };
}

describe('POST /verify grades as bas score does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bas-nemo-'));
  const items = tasks.flatMap((t) => repliesFor(t).map((reply) => ({ index: t.index, reply })));
  let scored: Array<Record<string, Record<string, number> & { reward?: number }>> = [];

  beforeAll(async () => {
    writeFileSync(join(dir, 'tasks.jsonl'), tasks.map((t) => `${JSON.stringify(taskToJson(t))}\n`).join(''));
    writeFileSync(join(dir, 'replies.jsonl'), items.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const out = join(dir, 'scored.jsonl');
    const r = await bas([
      'score',
      '--tasks',
      join(dir, 'tasks.jsonl'),
      '--replies',
      join(dir, 'replies.jsonl'),
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    scored = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as (typeof scored)[number]);
  });

  it('each reply: the reward, both parts and every metric of bas score, the request echoed', async () => {
    const s = await start();
    for (const [k, item] of items.entries()) {
      const request = { ...row(item.index), response: responseOf(item.reply) };
      const res = await post(s, '/verify', request);
      expect(res.status).toBe(200);
      const want = scored[k]!;
      expect(res.body).toEqual({ ...request, reward: want.reward, ...want.rewards, ...want.metrics });
    }
    expect(new Set(scored.map((l) => l.reward)).size).toBeGreaterThan(2);
  });

  it('reads the message text only: reasoning and tool calls are not the answer', async () => {
    const s = await start();
    const oracle = repliesFor(tasks[0]!)[0]!;
    const half = Math.floor(oracle.length / 2);
    const reasoning = {
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: '<answer>{}</answer>' }],
    };
    const call = { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' };
    const split = responseOf(oracle.slice(0, half));
    (split.output as Array<{ content: unknown[] }>)[0]!.content.push({ type: 'output_text', text: oracle.slice(half) });
    expect(responseText(split)).toBe(oracle);
    for (const response of [responseOf(oracle, [reasoning, call]), split]) {
      const res = await post(s, '/verify', { ...row(0), response });
      expect(res.body.reward).toBe(1);
    }
    const silent = await post(s, '/verify', { ...row(0), response: { output: [reasoning, call] } });
    expect([silent.status, silent.body.reward, silent.body.parsed]).toEqual([200, 0, 0]);
  });
});

describe('POST /seed_session', () => {
  it("an agent's task row gets {}, an environment server's session id comes back", async () => {
    const s = await start();
    const plain = await post(s, '/seed_session', row(1));
    expect([plain.status, plain.body]).toEqual([200, {}]);
    const seeded = { resources_session_id: 'r-1', episode_id: 'e', task_id: 't', task_data: row(1) };
    const back = await post(s, '/seed_session', seeded);
    expect([back.status, back.body]).toEqual([200, { resources_session_id: 'r-1' }]);
  });
});

describe('bad requests and bounds', () => {
  const reply = { response: responseOf('<answer>{}</answer>') };
  it.each([
    ['no label', { responses_create_params: {}, ...reply }, 400, /"label".*label/],
    ['a label that does not read', { label: 'bas:x', ...reply }, 400, /"label"/],
    ['another generator', { label: 'bas:g1:p2:n24:f0.25:s1:i0', ...reply }, 422, /generator version 1/],
    ['no response', { label: datasetRow(tasks[0]!).label }, 400, /"response" must be an OpenAI Responses object/],
    ['output not a list', { label: datasetRow(tasks[0]!).label, response: { output: 'x' } }, 400, /"output" list/],
    ['a list body', [row(0)], 400, /JSON object/],
    ['not JSON', '{', 400, /not valid JSON/],
  ])('/verify with %s: %i', async (_, body, status, message) => {
    const s = await start();
    const res = await post(s, '/verify', body);
    expect(res.status).toBe(status);
    expect((res.body.error as { message: string }).message).toMatch(message);
  });

  it('/seed_session refuses a non-object and an empty session id', async () => {
    const s = await start();
    expect((await post(s, '/seed_session', 'null')).status).toBe(400);
    expect((await post(s, '/seed_session', { resources_session_id: '' })).status).toBe(400);
  });

  it('a body over the byte limit is a 413; without the token, a 401; GET, a 405', async () => {
    const s = await start({ maxBodyBytes: 4096 });
    const big = await post(s, '/verify', { ...row(0), response: responseOf('x'.repeat(8192)) });
    expect(big.status).toBe(413);
    const t = await start({ token: 'tok-123' });
    for (const path of ['/verify', '/seed_session']) {
      expect((await post(t, path, { ...row(0), ...reply })).status).toBe(401);
      const ok = await post(t, path, { ...row(0), ...reply }, { authorization: 'Bearer tok-123' });
      expect(ok.status).toBe(200);
    }
    const get = await fetch(`${t.url}/verify`);
    expect(get.status).toBe(405);
    await get.body?.cancel();
  });
});
