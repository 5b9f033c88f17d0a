/**
 * The retry policy as plain data, and the one loop that applies it. The SDK's own retries are
 * switched off (maxRetries 0) so that every attempt, and every sleep between attempts, is
 * bounded by the episode deadline that this loop owns.
 */
import type { ErrorType } from './classify.js';

/** How failed attempts are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). */
  maxRetries: number;
  /** First backoff ceiling; the ceiling doubles with every retry. */
  baseDelayMs: number;
  /** The ceiling never grows past this. */
  maxDelayMs: number;
  /** Error types worth another attempt; anything else fails the rollout at once. */
  retryOn: readonly ErrorType[];
  /**
   * Error types that are waiting turns, not failures: retried until the episode deadline and
   * not counted against `maxRetries` (a 429 says "later", not "wrong").
   */
  waitOn: readonly ErrorType[];
  /** A `provider` error is retried only when its HTTP status is in this range (server faults). */
  providerStatuses: { from: number; to: number };
  /**
   * The shortest wait after a server's hint, and where a waiting turn's backoff starts. A
   * hint below it (`retry-after-ms: 1`, `Retry-After: 0.0001`, `1e-300`) is raised to it:
   * taken at its word, a server that always says "1 ms" would get a tight loop of requests.
   */
  waitFloorMs: number;
}

/** 429, 5xx, connection failures and request timeouts are transient; the rest are not. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 5,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  retryOn: ['rate_limit', 'provider', 'network', 'timeout'] as const,
  waitOn: ['rate_limit'] as const,
  providerStatuses: { from: 500, to: 599 },
  waitFloorMs: 250,
});

/** Anything with a `get(name)` method, such as the fetch `Headers` an SDK error carries. */
export interface HeaderLike {
  get(name: string): string | null | undefined;
}

/**
 * How long the server asked us to wait, in ms: `retry-after-ms`, else `Retry-After` as
 * seconds or an HTTP date (RFC 9110 s10.2.3), else the reset time of a spent rate-limit
 * budget (`x-ratelimit-reset-requests` / `-tokens`, as "1s", "6m0s" or "250ms"). Null when
 * absent or unreadable; never negative.
 */
export function parseRetryAfter(headers: HeaderLike | null | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && ms.length <= 32) {
    const v = Number(ms.trim());
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = headers.get('retry-after');
  if (ra != null && ra.trim() !== '' && ra.length <= 64) {
    const text = ra.trim();
    const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (Number.isFinite(seconds)) return seconds * 1000;
    // An HTTP date names its weekday and month; anything else (say "-3") is not one.
    const when = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
    if (!Number.isNaN(when)) return Math.max(0, when - now);
  }
  return rateLimitReset(headers);
}

/**
 * The wait that the `x-ratelimit-*` headers imply: the reset time of each budget whose
 * remaining count is 0 (the longest of them), or, when none says so, the shortest reset given.
 */
function rateLimitReset(headers: HeaderLike): number | null {
  let spent: number | null = null;
  let any: number | null = null;
  for (const budget of ['requests', 'tokens']) {
    const reset = parseDuration(headers.get(`x-ratelimit-reset-${budget}`));
    if (reset === null) continue;
    any = any === null ? reset : Math.min(any, reset);
    if (headers.get(`x-ratelimit-remaining-${budget}`)?.trim() === '0') spent = Math.max(spent ?? 0, reset);
  }
  return spent ?? any;
}

/** True when the rate-limit headers say a budget is used up (remaining 0). */
export function budgetSpent(headers: HeaderLike | null | undefined): boolean {
  if (!headers) return false;
  return ['requests', 'tokens'].some((b) => headers.get(`x-ratelimit-remaining-${b}`)?.trim() === '0');
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };

/**
 * A Go-style duration ("1s", "6m0s", "1h2m3.5s", "250ms") or a bare number of seconds, in
 * ms; null when unreadable. One pass over at most 32 characters, no regular expression.
 */
export function parseDuration(text: string | null | undefined): number | null {
  if (text == null) return null;
  const s = text.trim();
  if (s === '' || s.length > 32) return null;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  let total = 0;
  let i = 0;
  while (i < s.length) {
    const start = i;
    while (i < s.length && ((s[i]! >= '0' && s[i]! <= '9') || s[i] === '.')) i++;
    const value = Number(s.slice(start, i));
    if (i === start || !Number.isFinite(value)) return null;
    const unitStart = i;
    while (i < s.length && !(s[i]! >= '0' && s[i]! <= '9') && s[i] !== '.') i++;
    const unit = s.slice(unitStart, i);
    if (!Object.hasOwn(UNIT_MS, unit)) return null;
    total += value * UNIT_MS[unit]!;
  }
  return total;
}

/**
 * Exponential backoff with full jitter: a uniform draw in [0, min(max, base * 2^retry)).
 * `retry` counts from 0 for the first retry. `random` is injectable for tests.
 */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** What the loop needs to know about one failed attempt. */
export interface AttemptFailure {
  type: ErrorType;
  /** HTTP status, when a response came back. */
  status?: number | null;
  /** The server's requested wait, when it sent one. */
  retryAfterMs?: number | null;
}

/**
 * The wait before retry number `retry` (0-based), or null when the policy gives up on this
 * failure (the type is not retryable, or retries are spent). No deadline is applied here.
 *
 * A waiting turn (a 429) backs off from the server's hint: the hint is where waiting starts,
 * not a schedule. Each wait of one rollout is at least twice its last one (`lastWaitMs`),
 * starting from `waitFloorMs`, and grows no further than `maxDelayMs` unless the server
 * itself asks for longer. A failure (5xx, network, timeout) keeps the jittered backoff, or
 * the server's hint raised to the floor when it gave one.
 */
export function plannedDelay(
  policy: RetryPolicy,
  retry: number,
  failure: AttemptFailure,
  random: () => number = Math.random,
  lastWaitMs = 0,
): number | null {
  if (!retryable(policy, failure)) return null;
  const asked = failure.retryAfterMs;
  const hint = asked != null && asked > 0 ? asked : null;
  if (policy.waitOn.includes(failure.type)) {
    // A waiting turn is bounded by the deadline alone, not by maxRetries.
    const grown = Math.max(policy.waitFloorMs, 2 * lastWaitMs);
    return Math.max(hint ?? 0, Math.min(grown, Math.max(policy.maxDelayMs, policy.waitFloorMs)));
  }
  if (retry >= policy.maxRetries) return null;
  // A wait of 0 (Retry-After: 0, a date already past) gives no guidance: the backoff applies.
  return hint !== null ? Math.max(hint, policy.waitFloorMs) : backoffDelay(policy, retry, random);
}

/**
 * The wait before retry number `retry` (0-based), or null to give up: the policy gives up
 * (see `plannedDelay`), or the wait would end at or past the deadline (sleeping until the
 * deadline only to time out would waste the slot).
 */
export function nextDelay(
  policy: RetryPolicy,
  retry: number,
  failure: AttemptFailure,
  now: number,
  deadline: number,
  random: () => number = Math.random,
  lastWaitMs = 0,
): number | null {
  const wait = plannedDelay(policy, retry, failure, random, lastWaitMs);
  if (wait === null || now + wait >= deadline) return null;
  return wait;
}

/** Whether the policy allows another attempt after this kind of failure at all. */
export function retryable(policy: RetryPolicy, failure: AttemptFailure): boolean {
  if (!policy.retryOn.includes(failure.type)) return false;
  if (failure.type !== 'provider') return true;
  const s = failure.status;
  return typeof s === 'number' && s >= policy.providerStatuses.from && s <= policy.providerStatuses.to;
}

/** Resolves after `ms`, or early (without rejecting) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
