/**
 * Refusals at random are not a rate (issue 36): an endpoint with room to spare that answers a
 * few percent of its requests with a 429 and `Retry-After: 1`, whatever the load, as
 * `bas serve --rate-limit-rate` does. The run is on fake timers, so the figures are counts: the
 * simulated time of an adaptive run against the same run with `--no-adapt`, and the lowest
 * limit in flight.
 */
import { describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import type { ModelClient } from '../../src/endpoint/client.js';
import { seeded } from '../../src/serve/answers.js';
import { runPolicy } from '../../src/task/policies.js';
import { runOnFakeTime } from '../support/fake-time-run.js';

/** Refuses a `share` of requests at random, at once, with `Retry-After: 1`; answers the rest after `latencyMs`. */
function sporadicClient(share: number, latencyMs: number, seed: number) {
  const rand = seeded(seed);
  const seen = { requests: 0, refused: 0 };
  const client: ModelClient = {
    async complete(messages) {
      seen.requests++;
      if (rand() < share) {
        seen.refused++;
        throw APIError.generate(429, { message: 'try again' }, undefined, new Headers({ 'retry-after': '1' }));
      }
      await new Promise((r) => setTimeout(r, latencyMs));
      return { text: runPolicy('oracle', messages), finish_reason: 'stop', usage: null, rate_limits: null };
    },
  };
  return { client, seen };
}

async function run(adaptive: boolean, share: number, seed: number, n = 1000, concurrency = 64) {
  const { client, seen } = sporadicClient(share, 400, seed);
  const { out, records, seconds } = await runOnFakeTime(client, n, concurrency, adaptive);
  return { out, seen, completed: records.filter((r) => r.error === null).length, seconds };
}

describe('refusals at random', () => {
  it.each([
    [1, 64, 0.03],
    [2, 64, 0.03],
    [3, 64, 0.03],
    [4, 64, 0.05],
    [5, 8, 0.03],
    [6, 8, 0.05],
  ])(
    'seed %i, -c %i, %f of requests refused at random, 400 ms replies: the limit holds and the run keeps the pace of --no-adapt',
    async (seed, c, share) => {
      const fixed = await run(false, share, seed, 1000, c);
      const adapted = await run(true, share, seed, 1000, c);
      expect(adapted.completed).toBe(1000);
      expect(adapted.seen.refused).toBeGreaterThan(10);
      expect(adapted.seconds).toBeLessThanOrEqual(1.15 * fixed.seconds);
      // Before: 2.2-3.1 times --no-adapt's time at -c 64, the limit down to 7 of 64.
      expect(adapted.out.pace.lowest).toBeGreaterThanOrEqual(0.75 * c);
      expect(adapted.out.pace.final).toBe(c);
      expect(adapted.out.pace.rate_rps).toBeNull();
      // Every refusal is still counted in run.json's record of the pace.
      expect(adapted.out.pace.rate_limited).toBe(adapted.seen.refused);
    },
  );
});
