import { describe, expect, it } from 'vitest';
import { builtinClient, requestFields } from '../../src/endpoint/client.js';
import type { Sampling } from '../../src/settings/setting-table.js';
import { addUsage, readCompletion } from '../../src/endpoint/completion.js';
import { MalformedResponseError, ReasoningOnlyError } from '../../src/errors/index.js';
import { generateTask } from '../../src/task/generate.js';
import { scoreReply } from '../../src/task/score.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';

const ok = (content: unknown, finish = 'stop') => ({
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }],
});

describe('readCompletion', () => {
  it('reads text, finish_reason and usage', () => {
    const c = readCompletion({ ...ok('hi'), usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
    expect(c).toEqual({
      text: 'hi',
      finish_reason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
  });
  it('keeps a reply cut by the token limit, with its finish_reason', () => {
    expect(readCompletion(ok('<answer>{"G1"', 'length')).finish_reason).toBe('length');
  });
  it.each([
    ['a string body', '<html>bad gateway</html>'],
    ['null', null],
    ['an array', []],
    ['no choices', { choices: [] }],
    ['choices missing', { id: 'x' }],
    ['empty content', ok('')],
    ['null content', ok(null)],
    ['blank content cut by length', ok('  ', 'length')],
    ['a refusal', { choices: [{ message: { content: null, refusal: 'no' }, finish_reason: 'stop' }] }],
  ])('%s is malformed', (_n, body) => {
    expect(() => readCompletion(body)).toThrow(MalformedResponseError);
  });
});

describe('requestFields', () => {
  const s: Sampling = { temperature: 0, max_tokens: 100, reasoning_effort: 'low', extra: { top_p: 0.5 } };
  it('sends max_tokens to compatible servers and max_completion_tokens to OpenAI', () => {
    expect(requestFields('m', s, 'http://127.0.0.1:1/v1')).toEqual({
      model: 'm',
      temperature: 0,
      max_tokens: 100,
      reasoning_effort: 'low',
      top_p: 0.5,
    });
    const o = requestFields('openai/gpt-5-mini', s, 'https://api.openai.com/v1');
    expect(o.max_completion_tokens).toBe(100);
    expect(o.max_tokens).toBeUndefined();
    expect(o.model).toBe('openai/gpt-5-mini');
  });
  it('leaves unset fields out', () => {
    expect(
      requestFields('m', { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} }, 'http://x/v1'),
    ).toEqual({ model: 'm' });
  });
});

describe('built-in models', () => {
  it('answer through the same interface, and the oracle scores 1', async () => {
    const task = generateTask(DEFAULT_TASK_CONFIG, 3);
    const c = await builtinClient('oracle').complete(task.prompt, new AbortController().signal);
    expect(scoreReply(c.text, task.key).reward).toBe(1);
  });
});

describe('readCompletion: reasoning', () => {
  const reply = (message: Record<string, unknown>, finish = 'stop', usage?: unknown) => ({
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage,
  });

  it('records reasoning tokens from completion_tokens_details', () => {
    const c = readCompletion(
      reply({ content: 'hi' }, 'stop', {
        prompt_tokens: 3,
        completion_tokens: 50,
        total_tokens: 53,
        completion_tokens_details: { reasoning_tokens: 40 },
      }),
    );
    expect(c.usage).toEqual({ prompt_tokens: 3, completion_tokens: 50, total_tokens: 53, reasoning_tokens: 40 });
  });

  it.each(['reasoning_content', 'reasoning'])(
    'a reply with %s but empty content is a typed error that says so',
    (field) => {
      expect(() => readCompletion(reply({ content: '', [field]: 'thinking about GST…' }, 'length'))).toThrow(
        ReasoningOnlyError,
      );
      expect(() => readCompletion(reply({ content: null, [field]: 'thinking' }))).toThrow(/reasoning but no content/);
      expect(() => readCompletion(reply({ content: '', [field]: 'x' }, 'length'))).toThrow(
        /token limit ran out while it was reasoning/,
      );
    },
  );
});

describe('readCompletion: what an unusable reply cost', () => {
  const body = (message: Record<string, unknown>, finish: string, usage: unknown) => ({
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    usage,
  });
  const spent = {
    prompt_tokens: 1100,
    completion_tokens: 4096,
    total_tokens: 5196,
    completion_tokens_details: { reasoning_tokens: 4096 },
    prompt_tokens_details: { cached_tokens: 1024 },
  };
  const caught = (b: unknown): MalformedResponseError => {
    try {
      readCompletion(b);
    } catch (err) {
      return err as MalformedResponseError;
    }
    throw new Error('no error thrown');
  };

  it('an empty reply cut by the limit carries its usage and says all of it went on reasoning', () => {
    const err = caught(body({ content: '' }, 'length', spent));
    expect(err).toBeInstanceOf(MalformedResponseError);
    expect(err.fault).toBe('cut_empty');
    expect(err.usage).toEqual({
      prompt_tokens: 1100,
      completion_tokens: 4096,
      total_tokens: 5196,
      reasoning_tokens: 4096,
      cached_tokens: 1024,
    });
    expect(err.message).toMatch(/the model spent all 4,096 completion tokens reasoning; raise --max-tokens/);
  });

  it('words the advice by the limit the request sent: raise it, or set one when none was sent', () => {
    const cut = body({ content: '' }, 'length', spent);
    const advice = (request: Record<string, unknown>): string => {
      try {
        readCompletion(cut, request);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('no error thrown');
    };
    expect(advice({ max_tokens: 4096 })).toMatch(/; raise --max-tokens \(now 4,096\) or lower --reasoning-effort\)$/);
    expect(advice({ max_completion_tokens: 2048 })).toMatch(/raise --max-tokens \(now 2,048\)/);
    expect(advice({})).toMatch(/; set --max-tokens higher than the endpoint's default or lower --reasoning-effort\)$/);
  });

  it.each([
    [{ content: '', reasoning_content: 'hmm' }, 'length', 'cut_empty'],
    [{ content: null, reasoning: 'hmm' }, 'stop', 'reasoning_only'],
    [{ content: '' }, 'stop', 'empty'],
    [{ content: '', refusal: 'no' }, 'stop', 'refused'],
  ])('%j with finish %s is a %s fault, its usage kept', (message, finish, fault) => {
    const err = caught(body(message, finish, { prompt_tokens: 5, completion_tokens: 7 }));
    expect(err.fault).toBe(fault);
    // The total is the sum when the server leaves it out.
    expect(err.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
  });

  it('the same cause reads the same on every reply, whatever the length of the reasoning', () => {
    const a = caught(body({ content: '', reasoning_content: 'x'.repeat(10) }, 'length', spent)).message;
    const b = caught(body({ content: '', reasoning_content: 'y'.repeat(9000) }, 'length', spent)).message;
    expect(a).toBe(b);
  });

  it("reads DeepSeek's prompt_cache_hit_tokens as cached tokens", () => {
    const c = readCompletion({
      ...ok('hi'),
      usage: { prompt_tokens: 9, completion_tokens: 1, prompt_cache_hit_tokens: 8 },
    });
    expect(c.usage?.cached_tokens).toBe(8);
  });

  it('addUsage sums counts field by field, keeping a count reported by either', () => {
    expect(addUsage(null, null)).toBeNull();
    const a = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, reasoning_tokens: 4 };
    expect(addUsage(a, null)).toBe(a);
    expect(addUsage(a, { prompt_tokens: 10, completion_tokens: null, total_tokens: 10, cached_tokens: 3 })).toEqual({
      prompt_tokens: 20,
      completion_tokens: 5,
      total_tokens: 25,
      reasoning_tokens: 4,
      cached_tokens: 3,
    });
  });
});

describe('httpClient: rate-limit headers on a reply', () => {
  const headerCases = [
    [{ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' }, true],
    [{ 'x-ratelimit-remaining-requests': '12' }, false],
    [{}, undefined],
  ] as const;
  it.each([false, true].flatMap((stream) => headerCases.map(([headers, spent]) => [stream, headers, spent] as const)))(
    'streamed %s, headers %j: rate_limits.spent %s',
    async (stream, headers, spent) => {
      const { createServer } = await import('node:http');
      const { httpClient } = await import('../../src/endpoint/client.js');
      const message = { role: 'assistant', content: 'hi' };
      const whole = JSON.stringify({ choices: [{ index: 0, message, finish_reason: 'stop' }] });
      const chunk = JSON.stringify({ choices: [{ index: 0, delta: message, finish_reason: 'stop' }] });
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json', ...headers });
          res.end(stream ? `data: ${chunk}\n\ndata: [DONE]\n\n` : whole);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const port = (server.address() as { port: number }).port;
        const client = httpClient({
          model: 'm',
          baseURL: `http://127.0.0.1:${port}/v1`,
          apiKey: 'k',
          sampling: { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} },
          requestTimeoutMs: 5000,
          stream: stream ? { idleTimeoutMs: 5000 } : null,
        });
        const c = await client.complete([{ role: 'user', content: 'x' }], new AbortController().signal);
        expect(c.text).toBe('hi');
        expect(c.rate_limits?.spent).toBe(spent);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    },
  );
});
