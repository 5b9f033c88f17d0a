/**
 * Issue 25 §1: slow start (the first rollout alone, then the run opens to -c), and what a
 * stopped run spent: every response that came back counted, recorded or not, and the requests
 * abandoned in flight counted as such. Counts and events only, no clocks.
 */
import { describe, expect, it, vi } from 'vitest';
import { APIError } from 'openai';
import type { ModelClient } from '../../src/endpoint/client.js';
import { DEFAULT_RETRY_POLICY } from '../../src/endpoint/retry.js';
import { Runner, type RunnerOptions } from '../../src/engine/runner.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { runPolicy } from '../../src/task/policies.js';
import { MalformedResponseError } from '../../src/errors/index.js';

const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxDelayMs: 2, maxRetries: 3, waitFloorMs: 1 };

function* pairs(n: number): Generator<readonly [number, number]> {
  for (let i = 0; i < n; i++) yield [i, 0] as const;
}

function runner(client: ModelClient, concurrency: number, extra: Partial<RunnerOptions> = {}) {
  const records: RolloutRecord[] = [];
  const r = new Runner({
    taskConfig: DEFAULT_TASK_CONFIG,
    model: 'm',
    client,
    policy,
    concurrency,
    episodeTimeoutMs: 60_000,
    requestTimeoutMs: 30_000,
    endpoint: 'http://x/v1',
    sink: (x) => records.push(x),
    ...extra,
  });
  return { r, records };
}

/** A reasoning model out of budget: every reply empty, cut by the limit, 4,096 tokens billed. */
function outOfBudget() {
  const seen = { requests: 0, inFlight: 0, max: 0, completion: 0 };
  const client: ModelClient = {
    async complete() {
      seen.requests++;
      seen.inFlight++;
      seen.max = Math.max(seen.max, seen.inFlight);
      await new Promise((r) => setImmediate(r));
      seen.inFlight--;
      seen.completion += 4096;
      throw new MalformedResponseError('empty content (finish_reason "length")', {
        fault: 'cut_empty',
        finishReason: 'length',
        usage: { prompt_tokens: 1000, completion_tokens: 4096, total_tokens: 5096, reasoning_tokens: 4096 },
      });
    },
  };
  return { client, seen };
}

describe('slow start', () => {
  for (const c of [1, 8, 64]) {
    it(`a run whose endpoint can only fail sends at most 3 requests at -c ${c}, one at a time, and counts what they cost`, async () => {
      const { client, seen } = outOfBudget();
      const { r, records } = runner(client, c);
      const out = await r.run(pairs(200));
      expect(out.fatal?.message).toMatch(/sent no usable reply: .*the first 3 rollouts all ended this way/);
      expect(out.stop?.kind).toBe('fatal');
      expect(seen.requests).toBe(3);
      expect(seen.max).toBe(1);
      // Every billed token is in a record; nothing was abandoned.
      const recorded = records.reduce((a, x) => a + (x.usage?.completion_tokens ?? 0), 0);
      expect(recorded).toBe(seen.completion);
      expect(out.spend.in_flight.requests).toBe(0);
    });
  }

  it('refused every time (a 400): 3 requests at -c 64', async () => {
    let calls = 0;
    const client: ModelClient = {
      async complete() {
        calls++;
        throw APIError.generate(
          400,
          { error: { message: 'unsupported parameter: temperature' } },
          undefined,
          new Headers(),
        );
      },
    };
    const { r } = runner(client, 64);
    const out = await r.run(pairs(100));
    expect(out.fatal?.message).toMatch(/refused every request/);
    expect(calls).toBe(3);
  });

  it('the first request goes alone, with the first wave prepared behind it; once answered the run opens to -c at once', async () => {
    const c = 8;
    let pulled = 0;
    function* counted(): Generator<readonly [number, number]> {
      for (const p of pairs(30)) {
        pulled++;
        yield p;
      }
    }
    // Each request waits until the test lets it go: the number in flight is what the runner sent.
    const waiting: Array<() => void> = [];
    let inFlight = 0;
    const client: ModelClient = {
      async complete(messages) {
        inFlight++;
        await new Promise<void>((r) => waiting.push(r));
        inFlight--;
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const { r, records } = runner(client, c);
    const done = r.run(counted());
    const settle = async (): Promise<void> => {
      // Turns of the event loop until nothing new is sent or prepared.
      for (let last = -1, same = 0; same < 20;) {
        await new Promise((res) => setImmediate(res));
        if (pulled + inFlight === last) same++;
        else [last, same] = [pulled + inFlight, 0];
      }
    };
    await settle();
    // One request out, and a wave's tasks generated behind it (no more: memory stays bounded),
    // so that the wave leaves as soon as the first reply is in.
    expect(inFlight).toBe(1);
    expect(pulled).toBe(1 + c);
    waiting.shift()!();
    await settle();
    // One round trip of slow start, then a full window.
    expect(inFlight).toBe(c);
    while (records.length < 30) {
      for (const w of waiting.splice(0)) w();
      await settle();
    }
    await done;
    expect(records.map((x) => x.index)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  // Issue 36: a first request that stalled held every other rollout for its whole episode
  // (3 stalled streams with --timeout 40 took 82 s). A rollout still out after 10 s was not
  // refused at once: the run opens without its answer.
  it('a first reply that does not come holds the run for 10 s, not for its episode', async () => {
    vi.useFakeTimers();
    try {
      let inFlight = 0;
      let calls = 0;
      const client: ModelClient = {
        async complete(messages) {
          inFlight++;
          // The first request stalls until its episode's deadline; the others answer in a second.
          await new Promise((res) => setTimeout(res, calls++ === 0 ? 3_600_000 : 1000));
          inFlight--;
          return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
        },
      };
      const { r, records } = runner(client, 8, { episodeTimeoutMs: 480_000, requestTimeoutMs: 480_000 });
      const done = r.run(pairs(20));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(inFlight).toBe(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(inFlight).toBe(8);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(records.length).toBeGreaterThanOrEqual(19 - 8);
      await vi.runAllTimersAsync();
      await done;
      expect(records).toHaveLength(20);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a random failure first (a 500) does not keep the run at one request: first contact can no longer stop it', async () => {
    let calls = 0;
    let inFlight = 0;
    let max = 0;
    const client: ModelClient = {
      async complete(messages) {
        calls++;
        inFlight++;
        max = Math.max(max, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        if (calls <= 4) throw APIError.generate(500, { error: { message: 'oops' } }, undefined, new Headers());
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const { r, records } = runner(client, 4);
    await r.run(pairs(40));
    expect(records).toHaveLength(40);
    expect(max).toBeGreaterThan(1);
  });

  it('an in-process client starts at -c (it costs nothing and is always there)', async () => {
    let inFlight = 0;
    let max = 0;
    let open: () => void = () => {};
    const full = new Promise<void>((r) => (open = r));
    const client: ModelClient = {
      inProcess: true,
      async complete(messages) {
        inFlight++;
        max = Math.max(max, inFlight);
        if (inFlight === 4) open();
        await full;
        inFlight--;
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null };
      },
    };
    const { r, records } = runner(client, 4);
    await r.run(pairs(12));
    expect(records).toHaveLength(12);
    expect(max).toBe(4);
  });
});

describe('a stop with a reason, and what it abandons', () => {
  it('counts the requests in flight at the stop as abandoned, and the usage of rollouts it leaves unrecorded', async () => {
    // The run's first rollout is answered; every later one gets a garbled reply first (billed
    // 100 completion tokens, retried), and its retry hangs until the stop.
    let requests = 0;
    let answered = 0;
    const tries = new WeakMap<object, number>();
    const client: ModelClient = {
      async complete(messages, signal) {
        requests++;
        if (requests === 1) return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: usage(200) };
        const n = (tries.get(messages) ?? 0) + 1;
        tries.set(messages, n);
        if (n === 1) {
          answered++;
          throw new MalformedResponseError('not JSON', {
            fault: 'shape',
            usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
          });
        }
        return await new Promise((_, rej) =>
          signal!.addEventListener('abort', () => rej(new DOMException('aborted', 'AbortError'))),
        );
      },
    };
    const { r, records } = runner(client, 4, { policy: { ...policy, retryOn: ['malformed', ...policy.retryOn] } });
    const done = r.run(pairs(50));
    while (r.inFlight < 4) await new Promise((res) => setImmediate(res));
    r.stop({ kind: 'precision', message: 'the interval is narrow enough' });
    r.stop({ kind: 'interrupted', message: 'later reasons do not replace the first' });
    const out = await done;
    expect(out.stop).toEqual({ kind: 'precision', message: 'the interval is narrow enough' });
    expect(out.fatal).toBeNull();
    expect(records).toHaveLength(1);
    expect(out.spend.in_flight.requests).toBe(4);
    // Four garbled replies came back for rollouts that were never recorded: billed all the same.
    expect(answered).toBe(4);
    expect(out.spend.unrecorded).toMatchObject({ prompt: 4000, completion: 400, total: 4400, lines: 4 });
    // Their worst case: the largest completion seen (200) with its margin, and the prompt's estimate.
    expect(out.spend.in_flight.completion).toBe(4 * 300);
    expect(out.spend.in_flight.prompt).toBeGreaterThan(0);
  });
});

function usage(completion: number) {
  return { prompt_tokens: 1000, completion_tokens: completion, total_tokens: 1000 + completion };
}

describe('budgets (issue 25 §2)', () => {
  /**
   * An endpoint that bills like a provider: the prompt at a quarter of its characters, a
   * completion drawn from [lo, hi] (never above the request's max_tokens), a share of 500s
   * (not billed, retried) and of garbled 200s (billed, errored). It counts what it billed.
   */
  function billing(seed: number, lo: number, hi: number, maxTokens: number | null) {
    let x = seed >>> 0 || 1;
    const rand = (): number => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    const billed = { requests: 0, prompt: 0, completion: 0, inFlight: 0 };
    const client: ModelClient = {
      async complete(messages) {
        billed.requests++;
        billed.inFlight++;
        await new Promise((r) => setImmediate(r));
        billed.inFlight--;
        const u = rand();
        if (u < 0.1) throw APIError.generate(500, { error: { message: 'oops' } }, undefined, new Headers());
        const prompt = Math.ceil(messages.reduce((a, m) => a + m.content.length, 0) / 4);
        const completion = Math.min(lo + Math.floor(rand() * (hi - lo + 1)), maxTokens ?? Number.POSITIVE_INFINITY);
        billed.prompt += prompt;
        billed.completion += completion;
        const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
        if (u < 0.2) throw new MalformedResponseError('not JSON', { fault: 'shape', usage });
        return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage };
      },
    };
    return { client, billed };
  }

  it('never lets the server bill past the budget, at any -c, with or without --max-tokens', async () => {
    const { default: fc } = await import('fast-check');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 3_000, max: 120_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 2 ** 31 }),
        async (c, budget, bounded, seed) => {
          // Without --max-tokens, completions stay within the margin of the largest seen (1.5x).
          const maxTokens = bounded ? 700 : null;
          const { client, billed } = billing(seed, 400, 600, bounded ? 800 : null);
          const { r, records } = runner(client, c, {
            maxTokens,
            budget: { maxCostUsd: null, maxTotalTokens: budget, prices: null },
          });
          const out = await r.run(pairs(60));
          expect(billed.prompt + billed.completion).toBeLessThanOrEqual(budget);
          if (out.stop) {
            expect(out.stop.kind).toBe('budget');
            expect(out.stop.message).toMatch(
              /^the budget is spent: [\d,]+ tokens so far, and the next request may take up to [\d,]+ more, past --max-total-tokens \d+$/,
            );
            // A budget stop waits for the requests in flight: nothing is abandoned, the cost is exact.
            expect(out.spend.in_flight.requests).toBe(0);
            const reported = records.reduce((a, x) => a + (x.usage?.total_tokens ?? 0), 0) + out.spend.unrecorded.total;
            expect(reported).toBe(billed.prompt + billed.completion);
          } else expect(records).toHaveLength(60);
        },
      ),
      { numRuns: 40, seed: 25 },
    );
  });

  it('a dollar budget is counted at the prices, prompt and completion apart', async () => {
    const { client, billed } = billing(7, 500, 500, null);
    const prices = { in: 2, out: 10 };
    const { r } = runner(client, 8, { budget: { maxCostUsd: 0.05, maxTotalTokens: null, prices } });
    const out = await r.run(pairs(200));
    expect(out.stop?.kind).toBe('budget');
    expect(out.stop?.message).toMatch(/\(\$0\.0\d{3}\) so far.*past --max-cost 0\.05$/);
    expect((billed.prompt * prices.in + billed.completion * prices.out) / 1e6).toBeLessThanOrEqual(0.05);
  });

  it('counts what earlier sessions spent: a resume with the same budget stops before any request', async () => {
    const { client, billed } = billing(3, 500, 500, null);
    const { r } = runner(client, 4, {
      budget: { maxCostUsd: null, maxTotalTokens: 50_000, prices: null },
      spentBefore: { prompt: 45_000, completion: 4_000 },
    });
    const out = await r.run(pairs(10));
    expect(out.stop?.kind).toBe('budget');
    expect(billed.requests).toBe(0);
  });

  it('before any completion is seen and without --max-tokens, the first request goes alone even without slow start', async () => {
    const { client, billed } = billing(5, 500, 500, null);
    let max = 0;
    const watched: ModelClient = {
      async complete(m, s) {
        const p = client.complete(m, s);
        max = Math.max(max, billed.inFlight);
        return p;
      },
    };
    const { r, records } = runner(watched, 8, {
      slowStart: false,
      budget: { maxCostUsd: null, maxTotalTokens: 1_000_000, prices: null },
    });
    await r.run(pairs(1));
    expect(records).toHaveLength(1);
    const two = runner(watched, 8, {
      slowStart: false,
      budget: { maxCostUsd: null, maxTotalTokens: 1_000_000, prices: null },
    });
    max = 0;
    const done = two.r.run(pairs(16));
    // The first request is out alone; the others wait for its completion to bound theirs.
    await new Promise((res) => setImmediate(res));
    expect(billed.inFlight).toBeLessThanOrEqual(1);
    await done;
    expect(two.records).toHaveLength(16);
  });
});
