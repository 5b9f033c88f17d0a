/**
 * What a server's headers say about waiting: `Retry-After`, `retry-after-ms` and the
 * `x-ratelimit-*` budget headers. Read by the classifier (which records the wait on a failure)
 * and by the retry loop and pacing gate (which honour it); it imports nothing of theirs.
 */
/** Anything with a `get(name)` method, such as the fetch `Headers` an SDK error carries. */
export interface HeaderLike {
  get(name: string): string | null | undefined;
}

/**
 * How long the server asked us to wait, in ms: `retry-after-ms`, else `Retry-After` as
 * seconds or an HTTP date (RFC 9110 s10.2.3), else the reset time of a spent rate-limit
 * budget (`x-ratelimit-reset-requests` / `-tokens`, as "1s", "6m0s" or "250ms"). Null when
 * absent or unreadable; never negative. `limits` is the reply's budgets when the caller has
 * read them already (readRateLimits): the budget headers are then not read again.
 */
export function parseRetryAfter(
  headers: HeaderLike | null | undefined,
  now = Date.now(),
  limits?: RateLimits | null,
): number | null {
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
  return (limits === undefined ? readRateLimits(headers) : limits)?.waitMs ?? null;
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

/** One rate-limit budget as its headers give it. */
interface RateBudget {
  limit: number;
  remaining: number;
  /** Until the budget is full again, in ms. */
  resetMs: number;
}

/**
 * What a reply's `x-ratelimit-*` headers say, each header read once: the budgets the pace learns
 * a rate from, whether one is used up, and the wait they imply.
 */
export interface RateLimits {
  /** Each null when not all three of its headers are there and readable. */
  requests: RateBudget | null;
  tokens: RateBudget | null;
  /** True when a remaining count is 0 (whatever else is there): a budget is used up. */
  spent: boolean;
  /**
   * The wait they imply, in ms: the reset time of each spent budget (the longest of them), or,
   * when none is spent, the shortest reset given; null without a readable reset.
   */
  waitMs: number | null;
}

/** The three headers of one budget, each read once (each null when absent or unreadable). */
function budgetHeaders(headers: HeaderLike, budget: 'requests' | 'tokens') {
  const num = (name: string): number | null => {
    const v = headers.get(`x-ratelimit-${name}-${budget}`)?.trim();
    if (v == null || v === '' || v.length > 32 || !/^\d+(\.\d+)?$/.test(v)) return null;
    return Number(v);
  };
  return {
    limit: num('limit'),
    remaining: num('remaining'),
    resetMs: parseDuration(headers.get(`x-ratelimit-reset-${budget}`)),
  };
}

/** The reply's rate-limit headers, read once, or null when it sends none that can be read. */
export function readRateLimits(headers: HeaderLike | null | undefined): RateLimits | null {
  if (!headers) return null;
  const limits: RateLimits = { requests: null, tokens: null, spent: false, waitMs: null };
  let spentWait: number | null = null;
  let anyWait: number | null = null;
  let heard = false;
  for (const budget of ['requests', 'tokens'] as const) {
    const { limit, remaining, resetMs } = budgetHeaders(headers, budget);
    heard ||= limit !== null || remaining !== null || resetMs !== null;
    if (limit !== null && remaining !== null && resetMs !== null) limits[budget] = { limit, remaining, resetMs };
    if (remaining === 0) limits.spent = true;
    if (resetMs === null) continue;
    anyWait = anyWait === null ? resetMs : Math.min(anyWait, resetMs);
    if (remaining === 0) spentWait = Math.max(spentWait ?? 0, resetMs);
  }
  limits.waitMs = spentWait ?? anyWait;
  return heard ? limits : null;
}

/** True when the headers named a whole budget (limit, remaining and reset): a rate can be read from them. */
export function namesBudget(limits: RateLimits | null): boolean {
  return limits !== null && (limits.requests !== null || limits.tokens !== null);
}

/**
 * The requests a second the budgets allow: a budget of `limit` that is full again in `resetMs`
 * with `remaining` left refills at (limit - remaining) / reset. A token budget counts in
 * requests of `tokensPerRequest` tokens (unknown: not counted). The lower of the two; null
 * when neither says (a full budget, or one with no time to refill, tells no rate).
 */
export function impliedRate(limits: RateLimits, tokensPerRequest: number | null): number | null {
  const perSecond = (b: RateBudget | null): number | null =>
    b !== null && b.limit > 0 && b.remaining < b.limit && b.resetMs > 0
      ? (b.limit - b.remaining) / (b.resetMs / 1000)
      : null;
  const requests = perSecond(limits.requests);
  const tokens = perSecond(limits.tokens);
  const byTokens =
    tokens !== null && tokensPerRequest !== null && tokensPerRequest > 0 ? tokens / tokensPerRequest : null;
  if (requests === null) return byTokens;
  return byTokens === null ? requests : Math.min(requests, byTokens);
}
