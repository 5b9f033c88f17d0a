import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyError } from '../../src/endpoint/classify.js';
import { httpClient } from '../../src/endpoint/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/endpoint/retry.js';
import { Runner } from '../../src/engine/runner.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/serve/serve.js';
import { QUIET_SERVE } from '../support/serve-options.js';
import { tokenBucket } from '../../src/serve/token-bucket.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { generateTask } from '../../src/task/generate.js';

const base: ServeOptions = QUIET_SERVE;
const sampling = { temperature: 0, max_tokens: null, reasoning_effort: null, extra: {} };
const prompt = generateTask(DEFAULT_TASK_CONFIG, 0).prompt;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function attempt(o: Partial<ServeOptions>, model = 'm', apiKey = 'k') {
  server = await startServer({ ...base, ...o });
  const client = httpClient({ model, baseURL: server.url, apiKey, sampling, requestTimeoutMs: 5000 });
  try {
    return { ok: await client.complete(prompt, new AbortController().signal) };
  } catch (err) {
    return { failure: classifyError(err, false) };
  }
}

describe('bas serve as a reasoning model', () => {
  const ask = async (reasoningTokens: number, max_tokens: number | null) => {
    server = await startServer({ ...base, reasoningTokens });
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: prompt, ...(max_tokens === null ? {} : { max_tokens }) }),
    });
    return (await res.json()) as {
      choices: Array<{ message: { content: string; reasoning_content?: string }; finish_reason: string }>;
      usage: {
        prompt_tokens: number;
        completion_tokens: number;
        completion_tokens_details?: { reasoning_tokens: number };
      };
    };
  };

  it('spends the whole limit reasoning when it is below the reasoning budget: empty content, cut', async () => {
    const b = await ask(5000, 4096);
    expect(b.choices[0]!.message.content).toBe('');
    expect(b.choices[0]!.message.reasoning_content).toMatch(/reasoning/);
    expect(b.choices[0]!.finish_reason).toBe('length');
    expect(b.usage.completion_tokens).toBe(4096);
    expect(b.usage.completion_tokens_details?.reasoning_tokens).toBe(4096);
  });

  it('answers after reasoning when the limit leaves room, and cuts the answer when it leaves too little', async () => {
    const whole = await ask(5000, 8000);
    expect(whole.choices[0]!.message.content).toContain('<answer>');
    expect(whole.choices[0]!.finish_reason).toBe('stop');
    expect(whole.usage.completion_tokens_details?.reasoning_tokens).toBe(5000);
    await server!.close();
    const cut = await ask(5000, 5010);
    expect(cut.choices[0]!.message.content).toHaveLength(40);
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.usage.completion_tokens).toBe(5010);
  });

  it('counts the tokens it reports, served at /v1/bas/stats', async () => {
    const b = await ask(300, null);
    const stats = (await (await fetch(`${server!.url}/bas/stats`)).json()) as Record<string, number>;
    expect(stats).toMatchObject({
      ok: 1,
      promptTokens: b.usage.prompt_tokens,
      completionTokens: b.usage.completion_tokens,
      reasoningTokens: 300,
    });
  });
});

describe('bas serve through the real SDK', () => {
  it('answers with the policy, with usage', async () => {
    const r = await attempt({});
    expect(r.ok?.text).toContain('<answer>');
    expect(r.ok?.finish_reason).toBe('stop');
    expect(r.ok?.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('lists models', async () => {
    server = await startServer({ ...base, models: ['a', 'b'] });
    const body = (await (await fetch(`${server.url}/models`)).json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('a wrong key is a fatal auth failure, and the message does not repeat the key', async () => {
    const r = await attempt({ apiKey: 'right-key' }, 'm', 'wrong-key-123');
    expect(r.failure?.type).toBe('auth');
    expect(r.failure?.fatal).toBe(true);
    expect(r.failure?.message).not.toContain('wrong-key-123');
  });

  it('an unknown model is a fatal auth failure', async () => {
    const r = await attempt({ models: ['served'] }, 'other');
    expect(r.failure).toMatchObject({ type: 'auth', fatal: true, status: 404 });
  });

  it('a 429 carries its Retry-After to the classifier', async () => {
    const r = await attempt({ rateLimitRate: 1, retryAfterS: 7 });
    expect(r.failure).toMatchObject({ type: 'rate_limit', retryAfterMs: 7000, status: 429 });
  });

  it('a 500 is a provider error', async () => {
    const r = await attempt({ errorRate: 1 });
    expect(r.failure).toMatchObject({ type: 'provider', status: 500 });
  });

  it('every kind of malformed answer is a typed malformed error', async () => {
    server = await startServer({ ...base, malformedRate: 1 });
    const client = httpClient({ model: 'm', baseURL: server.url, apiKey: 'k', sampling, requestTimeoutMs: 5000 });
    const types = new Set<string>();
    for (let i = 0; i < 24; i++) {
      await client.complete(prompt, new AbortController().signal).then(
        () => types.add('ok'),
        (err) => types.add(classifyError(err, false).type),
      );
    }
    expect([...types]).toEqual(['malformed']);
  });

  it('a refused connection is a network error', async () => {
    server = await startServer(base);
    const url = server.url;
    await server.close();
    server = null;
    const client = httpClient({ model: 'm', baseURL: url, apiKey: 'k', sampling, requestTimeoutMs: 5000 });
    const f = await client.complete(prompt, new AbortController().signal).then(
      () => null,
      (err) => classifyError(err, false),
    );
    expect(f?.type).toBe('network');
  });

  it('an aborted hanging request rejects (and our timer makes it a timeout)', async () => {
    server = await startServer({ ...base, hangRate: 1 });
    const client = httpClient({ model: 'm', baseURL: server.url, apiKey: 'k', sampling, requestTimeoutMs: 5000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const f = await client.complete(prompt, ac.signal).then(
      () => null,
      (err) => classifyError(err, true),
    );
    expect(f?.type).toBe('timeout');
  });

  it('the runner keeps at most -c requests open at the server', async () => {
    // The server's latency timers are fake: every answer waits until the test moves the
    // clock, and the test moves it only once all the requests the runner may have open have
    // arrived. So five are in flight at once (after the first request, which goes alone)
    // however fast or slow the machine is.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      server = await startServer({ ...base, latencyMs: 1000 });
      const stats = server.stats;
      const records: RolloutRecord[] = [];
      const runner = new Runner({
        taskConfig: DEFAULT_TASK_CONFIG,
        model: 'm',
        client: httpClient({ model: 'm', baseURL: server.url, apiKey: 'k', sampling, requestTimeoutMs: 5000 }),
        policy: DEFAULT_RETRY_POLICY,
        concurrency: 5,
        episodeTimeoutMs: 30_000,
        requestTimeoutMs: 5_000,
        sink: (r) => records.push(r),
      });
      const pairs = Array.from({ length: 20 }, (_, i) => [i, 0] as const);
      let done = false;
      const ran = runner.run(pairs).finally(() => (done = true));
      while (!done) {
        const open = stats.requests - stats.ok;
        // Slow start: the first request goes alone; once it is answered, five at a time.
        if (open >= (stats.ok === 0 ? 1 : Math.min(5, 20 - stats.ok))) vi.advanceTimersByTime(1000);
        await new Promise((r) => setImmediate(r));
      }
      await ran;
      expect(records).toHaveLength(20);
      expect(records.every((r) => r.reward === 1)).toBe(true);
      expect(stats.maxInFlight).toBe(5);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('serve --rate-limit', () => {
  it("the token bucket passes one second's worth at once, then one request per 1/rps", () => {
    const clock = { t: 0 };
    const b = tokenBucket(4, () => clock.t);
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([0, 0, 0, 0]);
    expect(b.take()).toBe(250);
    expect(b.untilFullMs()).toBe(1000);
    clock.t = 250;
    expect(b.take()).toBe(0);
    expect(b.take()).toBe(250);
  });

  it('--whole-second-retry-after sends Retry-After in whole seconds and no retry-after-ms', async () => {
    // The bucket's clock stands still, so the second request finds it empty however long the
    // first took to answer on a busy machine (a second of real time would refill it).
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const whole of [false, true]) {
        server = await startServer({ ...base, rateLimitRps: 1, wholeSecondRetryAfter: whole });
        const send = () =>
          fetch(`${server!.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'm', messages: prompt }),
          });
        expect((await send()).status).toBe(200);
        const refused = await send();
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.headers.has('retry-after-ms')).toBe(!whole);
        await server.close();
        server = null;
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers 429 with Retry-After and rate-limit headers when the bucket is empty, and the runner paces itself to it', async () => {
    // The bucket's clock moves only when the test moves it: a second passes each time the
    // server has refused a request since the last move. The first wave of 32 then meets 20
    // tokens however fast or slow the machine sends it, and the run always ends. The runner's
    // own clock is the real one: pacing by rate, it spaces its requests in real time.
    const clock = { t: 0 };
    let out;
    {
      server = await startServer({ ...base, rateLimitRps: 20, latencyMs: 200, bucketClock: () => clock.t });
      const stats = server.stats;
      const client = httpClient({ model: 'm', baseURL: server.url, apiKey: 'k', sampling, requestTimeoutMs: 5000 });
      const records: RolloutRecord[] = [];
      const r = new Runner({
        taskConfig: DEFAULT_TASK_CONFIG,
        model: 'm',
        client,
        policy: DEFAULT_RETRY_POLICY,
        concurrency: 32,
        episodeTimeoutMs: 30_000,
        requestTimeoutMs: 5000,
        sink: (x) => records.push(x),
      });
      let done = false;
      const ran = r
        .run(
          (function* () {
            for (let i = 0; i < 80; i++) yield [i, 0] as const;
          })(),
        )
        .finally(() => (done = true));
      let seen = 0;
      while (!done) {
        if (stats.throttled > seen) {
          seen = stats.throttled;
          clock.t += 1000;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      out = await ran;
      expect(records.filter((x) => x.error === null)).toHaveLength(80);
    }
    expect(server.stats.throttled).toBeGreaterThan(0);
    // The 429s name the rate in their headers: the runner spaces its requests at that rate (or
    // below it) instead of lowering the requests in flight (docs/providers-and-pacing.md).
    expect(out.pace.rate_limited).toBeGreaterThan(0);
    expect(out.pace.lowest_rate_rps).toBeGreaterThan(0);
    expect(out.pace.lowest_rate_rps!).toBeLessThanOrEqual(20);
    expect(out.pace.lowest).toBe(32);
    // Every 429 cost one extra request; the pace keeps them few.
    expect(server.stats.requests).toBeLessThan(80 * 1.5);
  });
});
