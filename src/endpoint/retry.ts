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
}

/** 429, 5xx, connection failures and request timeouts are transient; the rest are not. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 5,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  retryOn: ['rate_limit', 'provider', 'network', 'timeout'] as const,
  waitOn: ['rate_limit'] as const,
  providerStatuses: { from: 500, to: 599 },
});

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
 * The wait before retry number `retry` (0-based), or null to give up: the type is not
 * retryable, retries are spent, or the wait would end at or past the deadline (sleeping
 * until the deadline only to time out would waste the slot). A server's Retry-After wins
 * over the jittered backoff, since it knows when it will take us back, unless it asks for none.
 */
export function nextDelay(
  policy: RetryPolicy,
  retry: number,
  failure: AttemptFailure,
  now: number,
  deadline: number,
  random: () => number = Math.random,
): number | null {
  if (!retryable(policy, failure)) return null;
  // A waiting turn (a 429) is bounded by the deadline alone; `retry` then counts waits, for the backoff.
  if (!policy.waitOn.includes(failure.type) && retry >= policy.maxRetries) return null;
  // A wait of 0 (Retry-After: 0, a date already past) gives no guidance: taken at its word it
  // would turn endless waiting turns into a tight loop of requests, so the backoff applies.
  const asked = failure.retryAfterMs;
  const wait = asked != null && asked > 0 ? asked : backoffDelay(policy, retry, random);
  if (now + wait >= deadline) return null;
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
