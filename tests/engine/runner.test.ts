import { describe, expect, it, vi } from 'vitest';
import { APIError } from 'openai';
import type { ModelClient } from '../../src/endpoint/client.js';
import { runEpisode } from '../../src/engine/rollout.js';
import { DEFAULT_RETRY_POLICY } from '../../src/endpoint/retry.js';
import { Runner } from '../../src/engine/runner.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { runPolicy } from '../../src/task/policies.js';
import type { Usage } from '../../src/endpoint/completion.js';
import { MalformedResponseError } from '../../src/errors/index.js';

const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxDelayMs: 2, maxRetries: 3, waitFloorMs: 1 };
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
const err = (status: number, headers: Record<string, string> = {}) =>
  APIError.generate(status, { message: 'x' }, undefined, new Headers(headers));

/** A client answering like the oracle, after `ms`, that counts requests in flight. */
function countingClient(ms: number) {
  const seen = { inFlight: 0, max: 0, calls: 0 };
  const client: ModelClient = {
    async complete(messages) {
      seen.calls++;
      seen.inFlight++;
      seen.max = Math.max(seen.max, seen.inFlight);
      await tick(ms);
      seen.inFlight--;
      return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
    },
  };
  return { client, seen };
}

/**
 * A runner over the default tasks that hands each record to `sink` (or collects it in `records`).
 * `slowStart` is off unless asked for: most tests here are about the run once it is open.
 */
function runner(
  client: ModelClient,
  concurrency: number,
  records: RolloutRecord[],
  sink?: (r: RolloutRecord) => void,
  slowStart = false,
) {
  return new Runner({
    slowStart,
    taskConfig: DEFAULT_TASK_CONFIG,
    model: 'test',
    client,
    policy,
    concurrency,
    episodeTimeoutMs: 10_000,
    requestTimeoutMs: 5_000,
    sink: sink ?? ((r) => records.push(r)),
  });
}

/**
 * Runs `body` on fake timers (setTimeout, setImmediate, the clocks), driving them until none
 * is left: what the runner does then depends on the order of its events, not on how fast the
 * machine gets through them.
 */
async function onFakeTime<T>(body: () => Promise<T>): Promise<T> {
  vi.useFakeTimers();
  try {
    const done = body();
    await vi.runAllTimersAsync();
    return await done;
  } finally {
    vi.useRealTimers();
  }
}

/** Resolves once `value()` has not changed for 200 turns of the event loop in a row. */
async function untilStill(value: () => number): Promise<void> {
  const turn = () => new Promise((r) => setImmediate(r));
  let last = value();
  for (let still = 0; still < 200;) {
    await turn();
    const now = value();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

function* pairs(n: number, r = 1): Generator<readonly [number, number]> {
  for (let i = 0; i < n; i++) for (let k = 0; k < r; k++) yield [i, k] as const;
}

describe('Runner', () => {
  it.each([1, 3, 8])('keeps at most -c %i requests in flight, and uses them', async (c) => {
    // Each request is held until -c are in flight (or 2 s of fake time pass, so that a runner
    // that never fills them fails rather than hangs): whether it fills every slot is then a
    // matter of what it does, not of how busy the machine is.
    const seen = { inFlight: 0, max: 0 };
    let release: () => void = () => {};
    let full = new Promise<void>((r) => (release = r));
    const client: ModelClient = {
      async complete(messages) {
        seen.inFlight++;
        seen.max = Math.max(seen.max, seen.inFlight);
        if (seen.inFlight >= c) release();
        await Promise.race([full, tick(2000)]);
        seen.inFlight--;
        if (seen.inFlight === 0) full = new Promise<void>((r) => (release = r));
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const records: RolloutRecord[] = [];
    await onFakeTime(() => runner(client, c, records).run(pairs(3 * c)));
    expect(seen.max).toBe(c);
    expect(records).toHaveLength(3 * c);
  });

  it('records every (index, rollout) pair once and emits start/done events', async () => {
    const { client } = countingClient(0);
    const records: RolloutRecord[] = [];
    const r = runner(client, 4, records);
    let starts = 0;
    let dones = 0;
    r.on('start', () => starts++).on('done', () => dones++);
    await r.run(pairs(5, 3));
    expect(starts).toBe(15);
    expect(dones).toBe(15);
    expect(new Set(records.map((x) => `${x.index}:${x.rollout}`)).size).toBe(15);
    expect(records.every((x) => x.reward === 1 && x.error === null && x.attempts === 1)).toBe(true);
  });

  it('stops the run at the first refused key and leaves that rollout unrecorded', async () => {
    let calls = 0;
    const client: ModelClient = {
      async complete() {
        calls++;
        await tick(1);
        throw err(401);
      },
    };
    const records: RolloutRecord[] = [];
    const out = await runner(client, 2, records).run(pairs(50));
    expect(out.fatal?.type).toBe('auth');
    expect(out.stopped).toBe(true);
    expect(records).toHaveLength(0);
    expect(calls).toBeLessThanOrEqual(4);
  });

  it('records failures as typed errors and emits error and retry events', async () => {
    const client: ModelClient = { complete: async () => Promise.reject(err(500)) };
    const records: RolloutRecord[] = [];
    const r = runner(client, 2, records);
    let retries = 0;
    let errors = 0;
    r.on('retry', () => retries++).on('error', () => errors++);
    await r.run(pairs(3));
    expect(records.map((x) => x.error?.type)).toEqual(['provider', 'provider', 'provider']);
    expect(records.every((x) => x.attempts === 4 && x.reward === null)).toBe(true);
    expect(retries).toBe(9);
    expect(errors).toBe(3);
  });

  it('stop() starts nothing new and records nothing aborted', async () => {
    const { client } = countingClient(20);
    const records: RolloutRecord[] = [];
    const r = runner(client, 2, records);
    r.on('done', () => r.stop());
    const out = await r.run(pairs(20));
    expect(out.stopped).toBe(true);
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(records.length).toBeLessThan(20);
  });

  it('prepares a whole wave behind the requests in flight, and no more', async () => {
    const c = 20;
    let pulled = 0;
    let pulledAtFirstReply = -1;
    function* counted(): Generator<readonly [number, number]> {
      for (const p of pairs(100)) {
        pulled++;
        yield p;
      }
    }
    // No reply comes back until the runner has stopped pulling pairs: it has either prepared
    // what it will hold, or is waiting for room. Counting turns of the event loop, not ms, makes
    // this the same on a busy machine as on an idle one.
    let settled: Promise<void> | null = null;
    const client: ModelClient = {
      async complete(messages) {
        settled ??= untilStill(() => pulled);
        await settled;
        if (pulledAtFirstReply < 0) pulledAtFirstReply = pulled;
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const records: RolloutRecord[] = [];
    await runner(client, c, records).run(counted());
    expect(records).toHaveLength(100);
    // c in flight and c ready; the loop may hold one more pair while it waits for room.
    expect(pulledAtFirstReply).toBeGreaterThanOrEqual(2 * c);
    expect(pulledAtFirstReply).toBeLessThanOrEqual(2 * c + 1);
  });

  it('holds back new requests while replies wait to be scored, so the backlog stays bounded', async () => {
    const c = 4;
    let pulled = 0;
    let recorded = 0;
    let ahead = 0;
    function* counted(): Generator<readonly [number, number]> {
      for (const p of pairs(60)) {
        pulled++;
        ahead = Math.max(ahead, pulled - recorded);
        yield p;
      }
    }
    const { client } = countingClient(0);
    // Scoring and recording slower than the model answers.
    const r = runner(client, c, [], () => {
      const until = performance.now() + 3;
      while (performance.now() < until);
      recorded++;
    });
    await r.run(counted());
    expect(recorded).toBe(60);
    expect(ahead).toBeLessThanOrEqual(2 * c + 1);
  });

  it('sends the follow-up requests of a burst of replies before scoring them', async () => {
    const log: string[] = [];
    let release: () => void = () => {};
    let gate = new Promise<void>((r) => (release = r));
    const client: ModelClient = {
      async complete(messages) {
        log.push('request');
        await gate;
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const records: RolloutRecord[] = [];
    const r = runner(client, 5, records, (rec) => {
      log.push('record');
      records.push(rec);
    });
    let pulled = 0;
    function* counted(): Generator<readonly [number, number]> {
      for (const p of pairs(10)) {
        pulled++;
        yield p;
      }
    }
    const done = r.run(counted());
    // Five in flight and the next five prepared behind them.
    while (log.length < 5 || pulled < 10) await tick(1);
    // Let the first wave's five replies land together.
    const first = release;
    gate = new Promise<void>((res) => (release = res));
    first();
    while (log.filter((x) => x === 'request').length < 10) await tick(1);
    release();
    await done;
    expect(records).toHaveLength(10);
    // All five follow-ups went out before the first reply was scored and recorded.
    expect(log.slice(0, 10), log.join(' ')).toEqual(Array(10).fill('request'));
  });
});

describe('runEpisode', () => {
  const base = { policy, episodeTimeoutMs: 10_000, requestTimeoutMs: 5_000, stop: new AbortController().signal };

  it('retries a 429, then scores', async () => {
    let n = 0;
    const client: ModelClient = {
      async complete() {
        if (n++ < 2) throw err(429, { 'retry-after-ms': '1' });
        return { text: 'ok', finish_reason: 'stop', usage: null };
      },
    };
    const res = await runEpisode([], { ...base, client });
    expect(res.kind).toBe('reply');
    expect(res.kind === 'reply' && res.attempts).toBe(3);
  });

  it('gives up at once when Retry-After would pass the deadline', async () => {
    let n = 0;
    const client: ModelClient = {
      async complete() {
        n++;
        throw err(429, { 'retry-after': '60' });
      },
    };
    const res = await runEpisode([], { ...base, episodeTimeoutMs: 5_000, client });
    expect(res.kind === 'failed' && res.failure.type).toBe('rate_limit');
    expect(n).toBe(1);
  });

  it("an in-process client gets the run's stop signal, no signal or timer of its own per attempt", async () => {
    const stop = new AbortController();
    const seen: AbortSignal[] = [];
    const client: ModelClient = {
      inProcess: true,
      async complete(_m, signal) {
        seen.push(signal);
        return { text: 'ok', finish_reason: 'stop', usage: null };
      },
    };
    const res = await runEpisode([], { ...base, stop: stop.signal, client });
    expect(res.kind).toBe('reply');
    expect(seen).toEqual([stop.signal]);
    // A client that talks to an endpoint still gets a signal per attempt (its timeout's).
    const remote: ModelClient = { complete: client.complete };
    seen.length = 0;
    await runEpisode([], { ...base, stop: stop.signal, client: remote });
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(stop.signal);
  });

  it('fails a 400 without retrying', async () => {
    let n = 0;
    const client: ModelClient = {
      async complete() {
        n++;
        throw err(400);
      },
    };
    const res = await runEpisode([], { ...base, client });
    expect(res.kind === 'failed' && res.failure.type).toBe('provider');
    expect(n).toBe(1);
  });

  it('aborts a hanging request at the request timeout and calls it a timeout', async () => {
    const client: ModelClient = {
      complete: (_m, signal) =>
        new Promise((_res, rej) =>
          signal.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError'))),
        ),
    };
    const res = await runEpisode([], { ...base, policy: { ...policy, maxRetries: 1 }, requestTimeoutMs: 20, client });
    expect(res.kind === 'failed' && res.failure.type).toBe('timeout');
    expect(res.kind === 'failed' && res.attempts).toBe(2);
  });

  it('the episode deadline bounds every attempt together', async () => {
    let n = 0;
    const client: ModelClient = {
      complete: (_m, signal) => {
        n++;
        return new Promise((_res, rej) =>
          signal.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError'))),
        );
      },
    };
    const res = await runEpisode([], {
      ...base,
      policy: { ...policy, maxRetries: 100 },
      episodeTimeoutMs: 60,
      requestTimeoutMs: 25,
      client,
    });
    expect(res.kind === 'failed' && res.failure.type).toBe('timeout');
    expect(n).toBeLessThan(10);
  });
});

describe('usage: every response that was paid for', () => {
  const base = { policy, episodeTimeoutMs: 10_000, requestTimeoutMs: 5_000, stop: new AbortController().signal };
  const spent: Usage = { prompt_tokens: 1100, completion_tokens: 4096, total_tokens: 5196, reasoning_tokens: 4096 };
  const cut = () =>
    new MalformedResponseError('empty content (finish_reason "length")', {
      fault: 'cut_empty',
      usage: spent,
      finishReason: 'length',
    });

  it("a rollout's usage is the sum of its attempts: a retried unusable reply, then a reply", async () => {
    let n = 0;
    const client: ModelClient = {
      async complete() {
        if (n++ === 0) throw cut();
        if (n === 2) throw err(500);
        return {
          text: 'ok',
          finish_reason: 'stop',
          usage: { prompt_tokens: 1100, completion_tokens: 900, total_tokens: 2000, reasoning_tokens: 800 },
        };
      },
    };
    // A policy that retries unusable replies, so that one attempt's usage comes from an error.
    const res = await runEpisode([], {
      ...base,
      policy: { ...policy, retryOn: [...policy.retryOn, 'malformed'] },
      client,
    });
    expect(res.kind).toBe('reply');
    expect(res.kind === 'reply' && res.attempts).toBe(3);
    expect(res.kind === 'reply' && res.usage).toEqual({
      prompt_tokens: 2200,
      completion_tokens: 4996,
      total_tokens: 7196,
      reasoning_tokens: 4896,
    });
  });

  it('an errored rollout keeps the usage of the reply it could not score', async () => {
    const client: ModelClient = {
      async complete() {
        throw cut();
      },
    };
    const res = await runEpisode([], { ...base, client });
    expect(res.kind === 'failed' && res.failure.type).toBe('malformed');
    expect(res.kind === 'failed' && res.usage).toEqual(spent);
  });

  it('the first rollouts all cut by the token limit stop the run; each record keeps its usage', async () => {
    let calls = 0;
    const client: ModelClient = {
      async complete() {
        calls++;
        await tick(1);
        throw cut();
      },
    };
    const records: RolloutRecord[] = [];
    const out = await runner(client, 1, records).run(pairs(50));
    expect(out.fatal?.message).toMatch(/sent no usable reply: malformed response: empty content/);
    expect(out.fatal?.message).toMatch(/the first 3 rollouts all ended this way/);
    expect(calls).toBe(3);
    expect(records).toHaveLength(3);
    for (const r of records) {
      expect(r.error?.type).toBe('malformed');
      expect(r.usage).toEqual(spent);
      expect(r.finish_reason).toBe('length');
    }
  });

  it('replies over --max-response-mb on every first rollout stop the run, naming the cap', async () => {
    const { createServer } = await import('node:http');
    const { httpClient } = await import('../../src/endpoint/client.js');
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { content: 'x'.repeat(8192) }, finish_reason: 'stop' }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
      const client = httpClient({
        model: 'm',
        baseURL: url,
        apiKey: 'k',
        sampling: { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} },
        requestTimeoutMs: 5000,
        maxResponseBytes: 1024,
      });
      const records: RolloutRecord[] = [];
      const out = await runner(client, 1, records).run(pairs(20));
      expect(out.fatal?.message).toMatch(/sent no usable reply: the response body passed the 1 KiB cap/);
      expect(out.fatal?.message).toMatch(/raise --max-response-mb/);
      expect(records.map((r) => r.error?.type)).toEqual([
        'response_too_large',
        'response_too_large',
        'response_too_large',
      ]);
      expect(requests).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('random failures on every first rollout do not stop the run', async () => {
    let n = 0;
    const client: ModelClient = {
      async complete() {
        // 500s (retried, then given up) and replies with no choices, alternating.
        if (n++ % 2 === 0) throw err(500);
        throw new MalformedResponseError('no choices in the response', { fault: 'shape' });
      },
    };
    const records: RolloutRecord[] = [];
    const out = await runner(client, 2, records).run(pairs(8));
    expect(out.fatal).toBeNull();
    expect(records).toHaveLength(8);
  });
});

describe('Runner: first contact and pace', () => {
  const refusal = (message: string) =>
    APIError.generate(
      400,
      { error: { message, type: 'invalid_request_error', param: 'temperature', code: null } },
      undefined,
      new Headers(),
    );

  it("stops when the first rollouts all get the same refusal, naming the provider's message and parameter", async () => {
    let calls = 0;
    const client: ModelClient = {
      async complete() {
        calls++;
        await tick(1);
        throw refusal("Unsupported value: 'temperature' does not support 0 with this model.");
      },
    };
    const records: RolloutRecord[] = [];
    const out = await runner(client, 2, records).run(pairs(50));
    expect(out.fatal?.message).toContain("Unsupported value: 'temperature' does not support 0");
    expect(out.fatal?.message).toContain('parameter temperature');
    expect(out.stopped).toBe(true);
    expect(calls).toBeLessThanOrEqual(5);
  });

  it('does not stop for refusals that differ, nor once anything has succeeded', async () => {
    let n = 0;
    const varied: ModelClient = { complete: async () => Promise.reject(refusal(`too long: ${n++} tokens`)) };
    const records: RolloutRecord[] = [];
    expect((await runner(varied, 2, records).run(pairs(10))).fatal).toBeNull();
    expect(records).toHaveLength(10);
    let k = 0;
    const later: ModelClient = {
      async complete(messages) {
        if (k++ === 0) return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
        throw refusal('same every time');
      },
    };
    const rest: RolloutRecord[] = [];
    expect((await runner(later, 1, rest).run(pairs(10))).fatal).toBeNull();
    expect(rest).toHaveLength(10);
  });

  it('stops within a few attempts when the endpoint refuses connections, naming the URL', async () => {
    const { createServer } = await import('node:net');
    const { httpClient } = await import('../../src/endpoint/client.js');
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const url = `http://127.0.0.1:${port}/v1`;
    const client = httpClient({
      model: 'm',
      baseURL: url,
      apiKey: 'k',
      sampling: { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} },
      requestTimeoutMs: 5000,
    });
    const records: RolloutRecord[] = [];
    const r = new Runner({
      taskConfig: DEFAULT_TASK_CONFIG,
      model: 'm',
      client,
      policy,
      concurrency: 4,
      episodeTimeoutMs: 10_000,
      requestTimeoutMs: 5000,
      endpoint: url,
      sink: (x) => records.push(x),
    });
    const out = await r.run(pairs(40));
    expect(out.fatal?.message).toContain(`cannot reach ${url}`);
    expect(out.fatal?.message).toContain('ECONNREFUSED');
    expect(records.length).toBeLessThan(40);
  });

  it('a quota refusal (429 insufficient_quota, or 402) is not a rate limit: the run stops at once with the message', async () => {
    for (const e of [
      APIError.generate(
        429,
        {
          error: {
            message: 'You exceeded your current quota.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          },
        },
        undefined,
        new Headers({ 'retry-after': '1' }),
      ),
      APIError.generate(402, { error: { message: 'Insufficient credits.' } }, undefined, new Headers()),
    ]) {
      let calls = 0;
      const client: ModelClient = {
        async complete() {
          calls++;
          throw e;
        },
      };
      const records: RolloutRecord[] = [];
      const out = await runner(client, 2, records).run(pairs(50));
      expect(out.fatal?.message).toMatch(
        /lack of quota or credit \(HTTP 40?2?9?\): (You exceeded|Insufficient credits)/,
      );
      expect(calls).toBeLessThanOrEqual(2);
      expect(records).toHaveLength(0);
    }
  });

  it('a wait past the episode deadline fails the rollout at once, and on the first rollouts stops the run', async () => {
    let calls = 0;
    const client: ModelClient = {
      async complete() {
        calls++;
        throw err(429, { 'retry-after': '999999' });
      },
    };
    const records: RolloutRecord[] = [];
    const out = await runner(client, 2, records).run(pairs(50));
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(records[0]!.error?.type).toBe('rate_limit');
    expect(records[0]!.error?.message).toContain('the server asked to wait 1,000,000 s, more than the');
    expect(records[0]!.attempts).toBe(1);
    expect(out.fatal?.message).toContain('asks for longer waits than an episode allows');
    expect(calls).toBeLessThanOrEqual(4);
  });

  it('429s are waiting turns: a rollout refused more often than --max-retries still completes', async () => {
    // Each refused probe closes the pace's gate twice as long as the last (0.25 s, 0.5 s, ... 4 s):
    // fake timers let those waits pass without the test sitting through them.
    vi.useFakeTimers();
    try {
      let n = 0;
      const client: ModelClient = {
        async complete(messages) {
          if (n++ < 6) throw err(429, { 'retry-after-ms': '1' });
          return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
        },
      };
      const records: RolloutRecord[] = [];
      const done = runner(client, 1, records).run(pairs(1));
      await vi.runAllTimersAsync();
      await done;
      expect(records[0]!.error).toBeNull();
      expect(records[0]!.attempts).toBe(7);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lowers the requests in flight under 429s and loses no rollout', async () => {
    // An endpoint that takes 3 requests at a time and refuses the rest.
    let open = 0;
    let refused = 0;
    const client: ModelClient = {
      async complete(messages) {
        if (open >= 3) {
          refused++;
          throw err(429, { 'retry-after-ms': '2' });
        }
        open++;
        await tick(5);
        open--;
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const records: RolloutRecord[] = [];
    const limits: number[] = [];
    const r = runner(client, 16, records).on('pace', ({ limit }) => limits.push(limit));
    // On fake time: the first refusal comes before any reply, whatever the machine's load, so
    // there is nothing yet to judge the endpoint's rate from and the limit halves.
    const out = await onFakeTime(() => r.run(pairs(60)));
    expect(records.filter((x) => x.error === null)).toHaveLength(60);
    expect(out.pace.lowest).toBeLessThanOrEqual(4);
    expect(out.pace.changes.length).toBeGreaterThan(0);
    expect(limits[0]).toBe(8);
    expect(refused).toBeLessThan(60);
  });
});

describe('runEpisode: tiny waits (fake timers)', () => {
  it.each(['1', '0.001', '1e-300'])(
    'a server that always answers 429 retry-after-ms: %s gets a handful of requests in 5 s',
    async (ms) => {
      vi.useFakeTimers();
      try {
        let calls = 0;
        const client: ModelClient = {
          async complete() {
            calls++;
            throw err(429, { 'retry-after-ms': ms });
          },
        };
        const done = runEpisode([], {
          client,
          policy: DEFAULT_RETRY_POLICY,
          episodeTimeoutMs: 5000,
          requestTimeoutMs: 5000,
          stop: new AbortController().signal,
        });
        await vi.runAllTimersAsync();
        const res = await done;
        expect(res.kind === 'failed' && res.failure.type).toBe('rate_limit');
        expect(calls).toBeLessThanOrEqual(5);
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
