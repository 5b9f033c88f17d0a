/**
 * When pacing by rate starts (src/endpoint/rate.ts): on a sign of a rate only. A 429 that names
 * no budget and asks for a few milliseconds comes from a limit on bursts or on requests in
 * flight (the runner's 429 test: an endpoint that takes three at a time); pacing such an
 * endpoint by a rate measured at a lowered concurrency starved its rollouts past their deadline.
 */
import { describe, expect, it } from 'vitest';
import { RateGauge } from '../../src/endpoint/rate.js';

/** A gauge that has answered `answers` requests, then is refused twice, 500 ms apart, with `hintMs`. */
function refusedTwice(hintMs: number | null, limits: Parameters<RateGauge['refused']>[2] = null): RateGauge {
  const g = new RateGauge();
  let epoch = g.send(0);
  g.answered(null, null, false, false);
  g.refused(100, epoch, limits, hintMs);
  for (let t = 100; t < 600; t += 50) {
    epoch = g.send(t);
    g.answered(null, null, false, false);
  }
  epoch = g.send(600);
  g.refused(600, epoch, limits, hintMs);
  return g;
}

describe('pacing by rate starts', () => {
  it('not on refusals without a budget header that ask for under a second', () => {
    expect(refusedTwice(2).rate).toBeNull();
    expect(refusedTwice(null).rate).toBeNull();
    expect(refusedTwice(999).rate).toBeNull();
  });

  it('on refusals that ask for a second or more, at the rate let through between them', () => {
    const g = refusedTwice(1000);
    // Ten answers between the two refusals, 500 ms apart: counted one higher under a second.
    expect(g.rate).toBeCloseTo(22, 6);
    expect(g.record().rate_limited).toBe(2);
  });

  it('on refusals that carry a rate-limit budget, whatever their hint', () => {
    const limits = { requests: { limit: 10, remaining: 0, resetMs: 1000 }, tokens: null, spent: true, waitMs: 1000 };
    expect(refusedTwice(2, limits).rate).not.toBeNull();
  });
});

describe('the rate measured from refusals alone', () => {
  it('counts the requests let through between two refusals, not the replies of requests sent before the first', () => {
    // A bucket of 40 emptied at once: the 41st request is refused at 0, and the 40 before it are
    // answered in the second that follows, beside 10 requests sent in that second (the refill)
    // before the next refusal at 1 s.
    const g = new RateGauge();
    for (let i = 0; i < 40; i++) g.send(0);
    g.refused(0, g.send(0), null, 1000);
    for (let i = 0; i < 40; i++) g.answered(null, null, false, false);
    for (let t = 100; t <= 1000; t += 100) {
      g.send(t);
      g.answered(null, null, false, false);
    }
    g.refused(1000, g.send(1000), null, 1000);
    // Ten let through in a second; counting the 50 replies took it to 50 a second.
    expect(g.rate).toBeCloseTo(10, 6);
  });
});

describe('the spacing', () => {
  /** A gauge pacing at 40 requests a second (a 429 naming a budget of 40 a second). */
  function at40(): RateGauge {
    const g = new RateGauge();
    const limits = { requests: { limit: 40, remaining: 0, resetMs: 1000 }, tokens: null, spent: true, waitMs: 1000 };
    g.refused(0, g.send(0), limits, 25);
    expect(g.rate).toBe(40);
    return g;
  }

  /** When the next request may go, after one sent at `now`. */
  const dueAfter = (g: RateGauge, now: number): number => (g.send(now), g.readyAt);

  it('makes up a late request: a timer that fires late does not push every later request back', () => {
    const g = at40();
    expect(dueAfter(g, 25)).toBe(50);
    // Let through 10 ms late (a busy machine): the next is still due on the 25 ms grid.
    expect(dueAfter(g, 60)).toBe(75);
    expect(dueAfter(g, 75)).toBe(100);
  });

  it('makes up at most one interval: after a pause, two requests may go together, not a burst', () => {
    const g = at40();
    expect(dueAfter(g, 1000)).toBe(1000);
    expect(dueAfter(g, 1000)).toBe(1025);
  });
});
