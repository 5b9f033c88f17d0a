/**
 * Streamed replies (`--stream`) through the real SDK and the node fetch, against an
 * in-process endpoint that streams whatever each test scripts: assembly, usage from the final
 * chunk, time to first token, and every way a stream can go wrong, each a typed failure.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyError, type Failure } from '../../src/endpoint/classify.js';
import { httpClient } from '../../src/endpoint/client.js';
import type { Completion } from '../../src/endpoint/completion.js';
import { hostileServer, sendJson, type HostileServer, type Respond } from '../support/hostile-server.js';

const sampling = { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} };
let server: HostileServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage === undefined ? {} : { usage }) })}\n\n`;
const usageChunk = (u: unknown) => `data: ${JSON.stringify({ id: 'c', choices: [], usage: u })}\n\n`;
const DONE = 'data: [DONE]\n\n';
const USAGE = {
  prompt_tokens: 11,
  completion_tokens: 7,
  total_tokens: 18,
  completion_tokens_details: { reasoning_tokens: 3 },
};

function head(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
}

/** Streams `parts` (strings written as they are), then ends or not. */
function streams(parts: string[], end = true): Respond {
  return (_req, res) => {
    head(res);
    for (const p of parts) res.write(p);
    if (end) res.end();
  };
}

async function attempt(
  respond: Respond,
  o: { idleMs?: number; maxBytes?: number; requestTimeoutMs?: number } = {},
): Promise<{ ok?: Completion; failure?: Failure }> {
  server = await hostileServer(respond);
  // No test here depends on how fast the machine is: the request and idle timeouts are far
  // beyond any test's own (a 10 s request timeout failed the suite on a loaded machine), and a
  // test that means to time out sets a short idle timeout of its own. A hang is the test's timeout.
  const client = httpClient({
    model: 'm',
    baseURL: server.url,
    apiKey: 'sk-test-key-123456',
    sampling,
    requestTimeoutMs: o.requestTimeoutMs ?? UNREACHED_MS,
    maxResponseBytes: o.maxBytes,
    stream: { idleTimeoutMs: o.idleMs ?? UNREACHED_MS },
  });
  const ac = new AbortController();
  try {
    return { ok: await client.complete([{ role: 'user', content: 'hi' }], ac.signal) };
  } catch (err) {
    return { failure: classifyError(err, ac.signal.aborted) };
  }
}

/** A timeout no test reaches. */
const UNREACHED_MS = 3_600_000;

describe('streamed replies', () => {
  it('asks for a stream with usage, assembles the content, takes the usage from the final chunk, and times the first token', async () => {
    const r = await attempt(
      streams([
        chunk({ role: 'assistant', content: '' }, null, null),
        chunk({ content: '<answer>' }, null, null),
        chunk({ content: '{"x": 1}</answer>' }, null, null),
        chunk({}, 'stop', null),
        usageChunk(USAGE),
        DONE,
      ]),
    );
    expect(r.ok?.text).toBe('<answer>{"x": 1}</answer>');
    expect(r.ok?.finish_reason).toBe('stop');
    expect(r.ok?.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 7,
      total_tokens: 18,
      reasoning_tokens: 3,
    });
    expect(typeof r.ok?.ttft_ms).toBe('number');
    expect(r.ok!.ttft_ms).toBeGreaterThanOrEqual(0);
    const sent = JSON.parse(server!.seen[0]!.body);
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
  });

  it.each(['reasoning_content', 'reasoning'])('accepts %s deltas and grades only the content', async (key) => {
    const r = await attempt(
      streams([
        chunk({ [key]: 'let me think' }),
        chunk({ [key]: ' more' }),
        chunk({ content: 'the answer' }, 'stop'),
        DONE,
      ]),
    );
    expect(r.ok?.text).toBe('the answer');
  });

  it('reasoning with no content is the typed reasoning-only failure', async () => {
    const r = await attempt(streams([chunk({ reasoning_content: 'thinking...' }), chunk({}, 'length'), DONE]));
    expect(r.failure?.type).toBe('malformed');
    expect(r.failure?.message).toContain('reasoning but no content');
    expect(r.failure?.message).toContain('--max-tokens');
  });

  it('a line split across writes, CR LF endings, keep-alive comments and multi-byte characters all read right', async () => {
    const text = chunk({ content: 'Grüße, 日本 ✓' }, 'stop').replace(/\n/g, '\r\n');
    const bytes = Buffer.from(`: keep-alive\r\n\r\n${text}${DONE}`);
    const r = await attempt((_req, res) => {
      head(res);
      let i = 0;
      const step = (): void => {
        if (i >= bytes.length) return void res.end();
        res.write(bytes.subarray(i, i + 3));
        i += 3;
        setImmediate(step);
      };
      step();
    });
    expect(r.ok?.text).toBe('Grüße, 日本 ✓');
  });

  it('CR-only line ends, which the event-stream format allows, read right, a CR at the end of a write too', async () => {
    const text = (chunk({ content: 'Grüße ✓' }, null) + chunk({}, 'stop') + DONE).replace(/\n/g, '\r');
    const bytes = Buffer.from(`: keep-alive\r\r${text}`);
    const r = await attempt((_req, res) => {
      head(res);
      let i = 0;
      const step = (): void => {
        if (i >= bytes.length) return void res.end();
        res.write(bytes.subarray(i, i + 5));
        i += 5;
        setImmediate(step);
      };
      step();
    });
    expect(r.failure).toBeUndefined();
    expect(r.ok?.text).toBe('Grüße ✓');
  });

  it('a total out of range beside good prompt and completion counts is their sum, not 0', async () => {
    for (const total of [-1, 1.5, 1e300, '18']) {
      const r = await attempt(
        streams([
          chunk({ content: 'x' }, 'stop'),
          usageChunk({ prompt_tokens: 11, completion_tokens: 7, total_tokens: total }),
          DONE,
        ]),
      );
      expect(r.ok?.usage, String(total)).toMatchObject({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
      await server?.close();
      server = null;
    }
  });

  it('a server that ignores stream and sends a whole completion is read as one', async () => {
    const r = await attempt((_req, res) =>
      sendJson(res, 200, {
        choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
      }),
    );
    expect(r.ok?.text).toBe('whole');
  });

  it('a refusal before the stream (HTTP 429, 400) is classified as without streaming', async () => {
    const r = await attempt((_req, res) =>
      sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after-ms': '300' }),
    );
    expect(r.failure).toMatchObject({ type: 'rate_limit', retryAfterMs: 300 });
  });

  it('a stream cut mid-way (connection closed) is a network failure, never a graded reply', async () => {
    const r = await attempt((_req, res) => {
      head(res);
      res.write(chunk({ content: '<answer>{"G1": ' }));
      setImmediate(() => res.destroy());
    });
    expect(r.failure?.type).toBe('network');
    expect(r.failure?.message).toContain('closed in the middle of the stream');
  });

  it('a stream that ends cleanly before it finished is a network failure; one with a finish reason but no [DONE] is whole', async () => {
    const cut = await attempt(streams([chunk({ content: 'half a rep' })]));
    expect(cut.failure?.type).toBe('network');
    expect(cut.failure?.message).toContain('ended before the reply finished');
    await server?.close();
    const whole = await attempt(streams([chunk({ content: 'all of it' }), chunk({}, 'stop')]));
    expect(whole.ok?.text).toBe('all of it');
  });

  it('a stream that stalls after its first token fails on the idle timeout, long before the request timeout', async () => {
    const r = await attempt(streams([chunk({ content: 'I will now' })], false), {
      idleMs: 50,
    });
    expect(r.failure?.type).toBe('timeout');
    expect(r.failure?.message).toContain('went silent for 0.05 s');
  });

  it('the wait for the first token is not an idle gap (a reasoning model thinks before it)', async () => {
    const r = await attempt(
      (_req, res) => {
        head(res);
        res.write(chunk({ role: 'assistant', content: '' }));
        // Silent for three idle timeouts before the first token.
        setTimeout(() => res.end(chunk({ content: 'done thinking' }, 'stop') + DONE), 150);
      },
      { idleMs: 50 },
    );
    expect(r.ok?.text).toBe('done thinking');
  });

  it('a stream past --max-response-mb is response_too_large, the connection closed', async () => {
    const r = await attempt(
      (_req, res) => {
        head(res);
        const piece = chunk({ content: 'x'.repeat(4000) });
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(piece)), 1);
        res.on('close', () => clearInterval(timer));
      },
      { maxBytes: 64 * 1024 },
    );
    expect(r.failure?.type).toBe('response_too_large');
    expect(r.failure?.message).toContain('64 KiB');
  });

  it('an error event in the stream is a provider failure with its message', async () => {
    const r = await attempt(
      streams([chunk({ content: 'a' }), `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`]),
    );
    expect(r.failure?.type).toBe('provider');
    expect(r.failure?.message).toContain('overloaded');
  });

  it('an event that is not JSON is malformed, and its text (which may echo the key) is not quoted', async () => {
    const r = await attempt((req, res) => {
      head(res);
      res.end(`data: {oops ${String(req.headers.authorization)}\n\n`);
    });
    expect(r.failure?.type).toBe('malformed');
    expect(r.failure?.message).not.toContain('sk-test');
  });
});
