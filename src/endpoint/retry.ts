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
