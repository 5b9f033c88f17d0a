import type { RateLimits } from '../../src/endpoint/retry-after.js';

/**
 * What the rate-limit headers of a 429 say of a request budget of `limit` that is used up and
 * full again in `resetMs`: a rate of limit ÷ reset.
 */
export function spentBudget(limit: number, resetMs: number): RateLimits {
  return { requests: { limit, remaining: 0, resetMs }, tokens: null, spent: true, waitMs: resetMs };
}
