import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  nextDelay,
  plannedDelay,
  retryable,
  type RetryPolicy,
} from '../../src/endpoint/retry.js';
import { impliedRate, parseDuration, parseRetryAfter, readRateLimits } from '../../src/endpoint/retry-after.js';

const headers = (h: Record<string, string>) => new Headers(h);
const policy: RetryPolicy = {
  ...DEFAULT_RETRY_POLICY,
  maxRetries: 3,
  baseDelayMs: 100,
  maxDelayMs: 1000,
  waitFloorMs: 40,
};

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-09-12T10:00:00Z');
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.25' }, 250],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': 'Sat, 12 Sep 2026 10:00:07 GMT' }, 7000],
    [{ 'retry-after': 'Sat, 12 Sep 2026 09:59:00 GMT' }, 0],
    [{ 'retry-after-ms': '150', 'retry-after': '9' }, 150],
    [{ 'retry-after': 'soon' }, null],
    [{ 'retry-after': '-3' }, null],
    [{}, null],
  ])('%j -> %s ms', (h, want) => {
    expect(parseRetryAfter(headers(h), now)).toBe(want);
  });
  it('tolerates missing headers', () => expect(parseRetryAfter(null)).toBeNull());
});

describe('backoffDelay (full jitter)', () => {
  it('stays in [0, ceiling) and the ceiling doubles up to the cap', () => {
    expect(backoffDelay(policy, 0, () => 0)).toBe(0);
    expect(backoffDelay(policy, 0, () => 0.999999)).toBe(99);
    expect(backoffDelay(policy, 2, () => 0.999999)).toBe(399);
    expect(backoffDelay(policy, 10, () => 0.999999)).toBe(999);
    for (let r = 0; r < 12; r++) {
      const d = backoffDelay(policy, r);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(Math.min(1000, 100 * 2 ** r));
    }
  });
});

describe('nextDelay', () => {
  const half = () => 0.5;
  it('retries transient failures', () => {
    expect(nextDelay(policy, 0, { type: 'rate_limit' }, 0, 10_000, half)).toBe(40);
    expect(nextDelay(policy, 1, { type: 'network' }, 0, 10_000, half)).toBe(100);
    expect(nextDelay(policy, 0, { type: 'timeout' }, 0, 10_000, half)).toBe(50);
    expect(nextDelay(policy, 0, { type: 'provider', status: 503 }, 0, 10_000, half)).toBe(50);
  });
  it('fails other 4xx, malformed and auth at once', () => {
    expect(nextDelay(policy, 0, { type: 'provider', status: 400 }, 0, 10_000, half)).toBeNull();
    expect(nextDelay(policy, 0, { type: 'provider', status: 422 }, 0, 10_000, half)).toBeNull();
    expect(nextDelay(policy, 0, { type: 'malformed' }, 0, 10_000, half)).toBeNull();
    expect(nextDelay(policy, 0, { type: 'auth', status: 401 }, 0, 10_000, half)).toBeNull();
    expect(retryable(policy, { type: 'provider', status: null })).toBe(false);
  });
  it('honours Retry-After over the backoff', () => {
    expect(nextDelay(policy, 0, { type: 'rate_limit', retryAfterMs: 3000 }, 0, 10_000, half)).toBe(3000);
    expect(nextDelay(policy, 0, { type: 'provider', status: 503, retryAfterMs: 3000 }, 0, 10_000, half)).toBe(3000);
  });
  it('backs off when the server asks for no wait at all, so endless 429s cannot become a request storm', () => {
    // Retry-After: 0, retry-after-ms: 0 and an HTTP date in the past all come out as 0 ms.
    expect(nextDelay(policy, 0, { type: 'rate_limit', retryAfterMs: 0 }, 0, 1e9, half)).toBe(40);
    expect(nextDelay(policy, 3, { type: 'rate_limit', retryAfterMs: 0 }, 0, 1e9, half, 160)).toBe(320);
    expect(nextDelay(policy, 1, { type: 'provider', status: 503, retryAfterMs: 0 }, 0, 1e9, half)).toBe(100);
  });
  it.each([
    ['retry-after-ms: 1', { 'retry-after-ms': '1' }],
    ['retry-after-ms: 0.001', { 'retry-after-ms': '0.001' }],
    ['retry-after-ms: 1e-300', { 'retry-after-ms': '1e-300' }],
    ['Retry-After: 0.0001', { 'retry-after': '0.0001' }],
  ])('a tiny hint (%s) is where waiting starts: each wait of a rollout at least doubles the last', (_n, headers) => {
    const asked = parseRetryAfter(new Headers(headers));
    expect(asked).toBeGreaterThan(0);
    const waits: number[] = [];
    let last = 0;
    for (let k = 0; k < 6; k++) {
      last = plannedDelay(policy, k, { type: 'rate_limit', retryAfterMs: asked }, half, last)!;
      waits.push(last);
    }
    expect(waits).toEqual([40, 80, 160, 320, 640, 1000]);
    // A 5xx's tiny hint is raised to the floor as well.
    expect(plannedDelay(policy, 0, { type: 'provider', status: 503, retryAfterMs: asked }, half)).toBe(40);
  });
  it('a server that always says "1 ms" gets a handful of requests in five seconds, not thousands', () => {
    const p = DEFAULT_RETRY_POLICY;
    let t = 0;
    let requests = 1;
    let last = 0;
    for (;;) {
      const d = nextDelay(p, requests - 1, { type: 'rate_limit', retryAfterMs: 1 }, t, 5000, Math.random, last);
      if (d === null) break;
      t += d;
      last = d;
      requests++;
    }
    expect(requests).toBeLessThanOrEqual(5);
  });
  it('a long hint is honoured whole, past the growth cap', () => {
    expect(plannedDelay(policy, 0, { type: 'rate_limit', retryAfterMs: 20_000 }, half, 0)).toBe(20_000);
    expect(plannedDelay(policy, 1, { type: 'rate_limit', retryAfterMs: 1 }, half, 20_000)).toBe(1000);
  });
  it('never sleeps past the episode deadline', () => {
    expect(nextDelay(policy, 0, { type: 'rate_limit', retryAfterMs: 3000 }, 8000, 10_000, half)).toBeNull();
    expect(nextDelay(policy, 0, { type: 'rate_limit', retryAfterMs: 1999 }, 8000, 10_000, half)).toBe(1999);
    expect(nextDelay(policy, 3, { type: 'network' }, 9990, 10_000, () => 0.99)).toBeNull();
  });
  it('stops after maxRetries', () => {
    expect(nextDelay(policy, 2, { type: 'network' }, 0, 1e9, half)).not.toBeNull();
    expect(nextDelay(policy, 3, { type: 'network' }, 0, 1e9, half)).toBeNull();
    expect(nextDelay({ ...policy, maxRetries: 0 }, 0, { type: 'network' }, 0, 1e9, half)).toBeNull();
  });
});

describe('rate-limit headers', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['250ms', 250],
    ['1h2m3.5s', 3_723_500],
    ['0.5', 500],
    ['', null],
    ['3x', null],
    ['s', null],
    ['1'.repeat(40), null],
  ])('parseDuration(%j) = %j', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it('reads the reset time of the spent budget when no Retry-After is sent', () => {
    const headers = h({
      'x-ratelimit-remaining-requests': '5',
      'x-ratelimit-reset-requests': '1s',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '6m0s',
    });
    expect(parseRetryAfter(headers)).toBe(360_000);
    expect(parseRetryAfter(h({ 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-reset-tokens': '250ms' }))).toBe(250);
    expect(parseRetryAfter(h({ 'retry-after': '3', 'x-ratelimit-reset-requests': '9s' }))).toBe(3000);
  });

  it('a budget is spent only when a remaining count is 0', () => {
    const spent = (o: Record<string, string>): boolean | undefined => readRateLimits(h(o))?.spent;
    expect(spent({ 'x-ratelimit-remaining-requests': '0' })).toBe(true);
    expect(spent({ 'x-ratelimit-remaining-requests': '10', 'x-ratelimit-remaining-tokens': '0' })).toBe(true);
    expect(spent({ 'x-ratelimit-remaining-requests': '10' })).toBe(false);
    expect(readRateLimits(null)).toBeNull();
  });

  it('reads each rate-limit header of a reply once, for the budgets, whether one is spent and the wait they imply', () => {
    const sent = new Headers({
      'x-ratelimit-limit-requests': '60',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '2s',
      'x-ratelimit-remaining-tokens': '500',
      'x-ratelimit-reset-tokens': '250ms',
    });
    const reads = new Map<string, number>();
    const counted = {
      get(name: string) {
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return sent.get(name);
      },
    };
    const limits = readRateLimits(counted)!;
    // A 429's wait and its budgets come from the one reading.
    expect(parseRetryAfter(counted, 0, limits)).toBe(2000);
    expect(limits).toEqual({
      requests: { limit: 60, remaining: 0, resetMs: 2000 },
      tokens: null,
      spent: true,
      waitMs: 2000,
    });
    const budgetReads = [...reads].filter(([name]) => name.startsWith('x-ratelimit-'));
    expect(budgetReads).toHaveLength(6);
    expect(budgetReads.every(([, n]) => n === 1)).toBe(true);
  });

  it('a 429 is a waiting turn: retried past maxRetries, until the deadline', () => {
    const p = { ...DEFAULT_RETRY_POLICY, maxRetries: 1 };
    expect(nextDelay(p, 50, { type: 'rate_limit', status: 429, retryAfterMs: 10 }, 0, 1000)).toBe(250);
    expect(nextDelay(p, 50, { type: 'rate_limit', status: 429, retryAfterMs: 2000 }, 0, 1000)).toBeNull();
    expect(nextDelay(p, 1, { type: 'network' }, 0, 1000)).toBeNull();
  });
});

describe('the rate the rate-limit headers imply', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it('a budget of limit that is full again in reset with remaining left refills at (limit - remaining) / reset', () => {
    const limits = readRateLimits(
      h({
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '499',
        'x-ratelimit-reset-requests': '120ms',
      }),
    )!;
    expect(limits.requests).toEqual({ limit: 500, remaining: 499, resetMs: 120 });
    expect(impliedRate(limits, null)).toBeCloseTo(1 / 0.12, 6);
  });

  it('a token budget counts in requests of the tokens replies use; the lower of the two is the rate', () => {
    const limits = readRateLimits(
      h({
        'x-ratelimit-limit-requests': '60',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m0s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '10s',
      }),
    )!;
    expect(impliedRate(limits, null)).toBe(1);
    // 1,000 tokens a second at 2,000 tokens a request: half a request a second.
    expect(impliedRate(limits, 2000)).toBe(0.5);
  });

  it('says nothing of a full budget, one with no time to refill, or headers that are not all there', () => {
    const full = { requests: { limit: 5, remaining: 5, resetMs: 0 }, tokens: null, spent: false, waitMs: 0 };
    expect(impliedRate(full, null)).toBeNull();
    expect(readRateLimits(h({ 'x-ratelimit-limit-requests': '5' }))?.requests).toBeNull();
    const unreadable = readRateLimits(
      h({
        'x-ratelimit-limit-requests': '-5',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1s',
      }),
    )!;
    expect(unreadable.requests).toBeNull();
    expect(impliedRate(unreadable, null)).toBeNull();
    expect(readRateLimits(h({ 'x-ratelimit-limit-requests': 'many' }))).toBeNull();
    expect(readRateLimits(null)).toBeNull();
  });
});
