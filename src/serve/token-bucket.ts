/** The rate limit of `bas serve --rate-limit`. */

/**
 * A token bucket: `rps` tokens a second, holding at most one second's worth (so a burst of
 * `rps` requests passes at once, as a per-second budget would). `take` spends a token, or
 * says how long until one is there.
 */
export function tokenBucket(rps: number, now: () => number = Date.now): { take(): number; untilFullMs(): number } {
  const capacity = Math.max(1, rps);
  let tokens = capacity;
  let last = now();
  const refill = (): void => {
    const t = now();
    tokens = Math.min(capacity, tokens + ((t - last) / 1000) * rps);
    last = t;
  };
  return {
    /** 0 when a token was spent; else the ms until the next one. */
    take() {
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil(((1 - tokens) / rps) * 1000));
    },
    untilFullMs() {
      refill();
      return Math.ceil(((capacity - tokens) / rps) * 1000);
    },
  };
}
