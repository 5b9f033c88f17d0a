import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listModels, probe } from '../../src/endpoint/endpoint-check.js';
import { renderProbe } from '../../src/endpoint/probe-text.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { generateTask } from '../../src/task/generate.js';
import { runPolicy } from '../../src/task/policies.js';
import { hostileServer, type HostileServer } from '../support/hostile-server.js';

const NO_SAMPLING = { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} };

describe('probe', () => {
  let url = '';
  let status = 400;
  let body: unknown = {};
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  beforeAll(
    () =>
      new Promise<void>((done) =>
        server.listen(0, '127.0.0.1', () => {
          url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
          done();
        }),
      ),
  );
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  const ep = () => ({ baseURL: url, apiKey: 'k', requestTimeoutMs: 10_000 });

  it('names a refused field from the message when the body names no param', async () => {
    status = 400;
    body = { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model." } };
    const r = await probe(ep(), 'm', { ...NO_SAMPLING, max_tokens: 50 });
    expect(r).toMatchObject({
      ok: false,
      reachable: true,
      status: 400,
      keyAccepted: true,
      paramsAccepted: false,
      refusedParam: 'max_tokens',
    });
    expect(renderProbe(r, 'h')).toMatch(/parameters +refused: max_tokens \(sent max_tokens=50\)/);
  });

  it('a 422 that names nothing it was sent still reports the parameters refused, with the message', async () => {
    status = 422;
    body = { error: { message: 'bad request' } };
    const r = await probe(ep(), 'm', NO_SAMPLING);
    expect(r).toMatchObject({ paramsAccepted: false, refusedParam: null, message: 'bad request' });
  });

  it('a 500 is neither a refused key nor a refused parameter', async () => {
    status = 500;
    body = { error: { message: 'overloaded' } };
    const r = await probe(ep(), 'm', NO_SAMPLING);
    expect(r).toMatchObject({
      ok: false,
      reachable: true,
      keyAccepted: true,
      paramsAccepted: null,
      message: 'overloaded',
    });
  });

  const chat = (message: Record<string, unknown>, finish: string, usage?: unknown) => ({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage,
  });

  it('sends the first task and grades its reply as a rollout: a right answer passes with its reward', async () => {
    const task = generateTask(DEFAULT_TASK_CONFIG, 0);
    status = 200;
    body = chat({ content: runPolicy('oracle', task.prompt) }, 'stop', { prompt_tokens: 900, completion_tokens: 80 });
    const r = await probe(ep(), 'm', NO_SAMPLING, { index: 0, prompt: task.prompt, key: task.key });
    expect(r.ok).toBe(true);
    expect(r.graded).toMatchObject({ parsed: true, reward: 1, finishReason: 'stop', completionTokens: 80 });
    expect(r.advice).toBeNull();
    const text = renderProbe(r, 'h');
    expect(text).toMatch(/answer +parsed/);
    expect(text).toMatch(/reward +1\.000/);
    expect(text).toMatch(/tokens +80 completion \(reasoning not reported\), 900 prompt/);
    expect(text).toMatch(/result +ok/);
  });

  it('a wrong answer that parses passes: a low score is what the run measures', async () => {
    const task = generateTask(DEFAULT_TASK_CONFIG, 0);
    status = 200;
    body = chat({ content: runPolicy('blanket', task.prompt) }, 'stop');
    const r = await probe(ep(), 'm', NO_SAMPLING, { index: 0, prompt: task.prompt, key: task.key });
    expect(r.ok).toBe(true);
    expect(r.graded!.reward).toBeLessThan(1);
  });

  it.each([
    [
      'every token spent reasoning',
      chat({ content: '' }, 'length', {
        prompt_tokens: 1100,
        completion_tokens: 4096,
        completion_tokens_details: { reasoning_tokens: 4096 },
      }),
      { ...NO_SAMPLING, max_tokens: 4096, reasoning_effort: 'high' },
      /the model spent all 4,096 tokens reasoning and wrote no reply: raise --max-tokens \(now 4,096\) or lower --reasoning-effort \(now high\)/,
    ],
    [
      'reasoning text cut by the limit, no counts',
      chat({ content: null, reasoning_content: 'thinking' }, 'length'),
      NO_SAMPLING,
      /ran out while the model was reasoning, before any reply: set --max-tokens higher/,
    ],
    ['an empty reply', chat({ content: '' }, 'stop'), NO_SAMPLING, /empty reply/],
    [
      'an empty reply after hidden reasoning',
      chat({ content: '' }, 'stop', { completion_tokens: 700, completion_tokens_details: { reasoning_tokens: 700 } }),
      NO_SAMPLING,
      /reasoned for 700 tokens but wrote no reply/,
    ],
    ['reasoning and no content', chat({ content: '', reasoning: 'r' }, 'stop'), NO_SAMPLING, /all reasoning/],
    [
      'a reply cut before its answer',
      chat({ content: 'Let me add up the rows: 12.50 + ' }, 'length', { completion_tokens: 300 }),
      { ...NO_SAMPLING, max_tokens: 300 },
      /cut by the token limit at 300 tokens, before its answer: raise --max-tokens \(now 300\)/,
    ],
    ['a reply with no answer block', chat({ content: 'OK' }, 'stop'), NO_SAMPLING, /no answer the scorer can read/],
    ['no choices', { choices: [] }, NO_SAMPLING, /not a chat completion/],
  ])('%s fails the check, with what to change', async (_name, sent, sampling, advice) => {
    status = 200;
    body = sent;
    const r = await probe(ep(), 'm', sampling);
    expect(r.ok).toBe(false);
    expect(r.reachable).toBe(true);
    expect(r.advice).toMatch(advice);
    const text = renderProbe(r, 'h');
    expect(text).toMatch(/advice +/);
    expect(text).toMatch(/result +FAILED/);
  });

  it.each([{}, '<html>sign in</html>', { data: 'none' }, { error: null }])(
    'a 200 that is not a model list (%j) is an error, not "0 models"',
    async (sent) => {
      status = 200;
      body = sent;
      await expect(listModels(ep())).rejects.toThrow(/not a model list/);
    },
  );

  it('a model list is read, ids sorted', async () => {
    status = 200;
    body = { object: 'list', data: [{ id: 'b' }, { id: 'a', owned_by: 'me' }, { nothing: 1 }] };
    expect(await listModels(ep())).toEqual([
      { id: 'a', owned_by: 'me' },
      { id: 'b', owned_by: null },
    ]);
  });
});

describe('probe of a stream that fails once begun', () => {
  // Answers with a 2xx other than 200 and a rate-limit header, sends one piece, then ends.
  let fake: HostileServer;
  beforeAll(async () => {
    fake = await hostileServer((_req, res) => {
      res.writeHead(203, { 'content-type': 'text/event-stream', 'x-ratelimit-remaining-requests': '7' });
      const piece = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
      res.end(`data: ${JSON.stringify({ ...piece, choices: [{ index: 0, delta: { content: 'Let' } }] })}\n\n`);
    });
  });
  afterAll(() => fake.close());

  it('reports the status and rate-limit headers the endpoint sent, not a 200 inferred from the stream', async () => {
    const r = await probe({ baseURL: fake.url, apiKey: 'k', requestTimeoutMs: 10_000 }, 'm', NO_SAMPLING, undefined, {
      idleTimeoutMs: 10_000,
    });
    expect(r).toMatchObject({
      ok: false,
      reachable: true,
      status: 203,
      keyAccepted: true,
      modelKnown: true,
      paramsAccepted: true,
      rateLimits: { 'x-ratelimit-remaining-requests': '7' },
      stream: { streamed: true, ttftMs: null },
    });
    expect(r.advice).toMatch(/ended before the reply finished/);
  });
});
