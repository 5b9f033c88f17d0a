import { describe, expect, it, vi } from 'vitest';
import { Pace, type Ticket } from '../../src/endpoint/pace.js';
import { spentBudget } from '../support/spent-budget.js';

/** A pace on a clock the test moves by hand. */
function paced(max: number, adaptive = true) {
  const clock = { t: 0 };
  const pace = new Pace({ max, adaptive, now: () => clock.t });
  const changes: number[] = [];
  pace.onChange = (l) => changes.push(l);
  return { pace, clock, changes };
}

const never = new AbortController().signal;

/**
 * Refuses, at random as far as the pace can tell, all but the last of the refusals it takes to
 * count as a limit (refusal-window.ts: 1 in 8 of twice the ceiling, at least 64), each after
 * an answered request (three refused in a row count at once): the next refusal is a limit's.
 * Each is counted and changes nothing.
 */
async function tolerated(pace: Pace, max: number, hint: number | null = null): Promise<void> {
  for (let i = 1; i < Math.ceil(Math.max(64, 2 * max) / 8); i++) {
    const limit = pace.limit;
    pace.release((await pace.acquire(never))!, 'other');
    pace.release((await pace.acquire(never))!, 'limited', hint);
    expect(pace.limit).toBe(limit);
  }
}

describe('Pace', () => {
  it('admits up to the limit and queues the rest, retries first', async () => {
    const { pace } = paced(2);
    const a = (await pace.acquire(never))!;
    await pace.acquire(never);
    const order: string[] = [];
    void pace.acquire(never).then(() => order.push('fresh'));
    void pace.acquire(never, true).then(() => order.push('retry'));
    pace.release(a, 'other');
    await Promise.resolve();
    expect(order).toEqual(['retry']);
    expect(pace.active).toBe(2);
  });

  it('halves the limit on a 429 with no replies to judge from, once per batch of requests sent', async () => {
    const { pace, changes } = paced(64);
    const tickets: Ticket[] = [];
    for (let i = 0; i < 64; i++) tickets.push((await pace.acquire(never))!);
    for (const t of tickets.slice(0, 24)) pace.release(t, 'limited');
    expect(pace.limit).toBe(32);
    expect(changes).toEqual([32]);
  });

  it('falls to what the endpoint sustains (replies per second x latency) once replies are seen', async () => {
    const { pace, clock } = paced(64);
    const first: Ticket[] = [];
    for (let i = 0; i < 40; i++) first.push((await pace.acquire(never))!);
    clock.t = 200;
    for (const t of first) pace.release(t, 'ok');
    const second: Ticket[] = [];
    for (let i = 0; i < 33; i++) second.push((await pace.acquire(never))!);
    pace.release(second[0]!, 'limited');
    pace.release(second[2]!, 'limited');
    expect(pace.limit).toBe(64); // two refusals in 73 requests: chance, as far as the pace can tell
    pace.release(second[1]!, 'limited'); // three sent one after another, all refused: a limit
    // 40 replies in the last second, 0.2 s each: 8 requests fit in flight.
    expect(pace.limit).toBe(8);
  });

  it('lowers nothing for refusals at random: a limit refuses 1 in 8 of the last requests sent, or three in a row', async () => {
    const { pace } = paced(64);
    const tickets: Ticket[] = [];
    for (let i = 0; i < 128; i++) {
      const t = (await pace.acquire(never))!;
      tickets.push(t);
      if (i % 8 !== 3 && i !== 125) pace.release(t, 'other');
    }
    // 15 refused of the last 128 sent, none next to another: no change, however they come back.
    for (let i = 14; i >= 0; i--) pace.release(tickets[8 * i + 3]!, 'limited', 1000);
    expect(pace.limit).toBe(64);
    expect(pace.tryAcquire()).not.toBeNull(); // the gate is open: no probe
    expect(pace.rate).toBeNull();
    expect(pace.record().rate_limited).toBe(15);
    pace.release(tickets[125]!, 'limited', 1000); // the 16th of the window
    expect(pace.limit).toBe(32);
  });

  it('ignores refusals of requests sent before the last decrease', async () => {
    const { pace } = paced(16);
    await tolerated(pace, 16);
    const old = (await pace.acquire(never))!;
    const other = (await pace.acquire(never))!;
    pace.release(other, 'limited');
    expect(pace.limit).toBe(8);
    pace.release(old, 'limited');
    expect(pace.limit).toBe(8);
  });

  it('a reply saying the budget is spent lowers the limit by one', async () => {
    const { pace } = paced(8);
    pace.release((await pace.acquire(never))!, 'spent');
    expect(pace.limit).toBe(7);
  });

  it('raises the limit by one per limit replies while the limit holds requests back, never above the ceiling', async () => {
    const { pace, clock } = paced(4);
    await tolerated(pace, 4);
    pace.release((await pace.acquire(never))!, 'limited');
    expect(pace.limit).toBe(2);
    clock.t = 10_000; // past the hold after a decrease
    pace.release((await pace.acquire(never))!, 'other'); // the probe after the 429
    for (let round = 0; round < 20; round++) {
      const held: Ticket[] = [];
      for (let i = 0; i < pace.limit; i++) held.push((await pace.acquire(never))!);
      for (const t of held) pace.release(t, 'ok');
    }
    expect(pace.limit).toBe(4);
  });

  it('does not rise when the limit is not what holds requests back', async () => {
    const { pace, clock } = paced(4);
    await tolerated(pace, 4);
    pace.release((await pace.acquire(never))!, 'limited');
    clock.t = 10_000;
    for (let i = 0; i < 50; i++) pace.release((await pace.acquire(never))!, 'ok');
    expect(pace.limit).toBe(2);
  });

  it('never falls below one, and --no-adapt keeps the ceiling', async () => {
    const { pace, clock } = paced(3);
    await tolerated(pace, 3);
    for (let i = 0; i < 5; i++) {
      clock.t += 100_000; // past every closure of the gate
      pace.release((await pace.acquire(never))!, 'limited');
    }
    expect(pace.limit).toBe(1);
    const fixed = paced(3, false);
    fixed.pace.release((await fixed.pace.acquire(never))!, 'limited');
    expect(fixed.pace.limit).toBe(3);
    expect(fixed.pace.record().changes).toEqual([]);
  });

  it('records changes with their time, bounded in number', async () => {
    const { pace, clock } = paced(4096);
    await tolerated(pace, 4096);
    for (let i = 0; i < 12; i++) {
      clock.t += 61_000; // past every closure of the gate
      pace.release((await pace.acquire(never))!, 'limited');
    }
    const r = pace.record();
    expect(r.changes[0]).toEqual({ at_s: 61, limit: 2048 });
    expect(r.final).toBe(1);
    expect(r.lowest).toBe(1);
    const many = paced(4096);
    for (let i = 0; i < 200; i++) {
      many.clock.t += 1;
      many.pace.release((await many.pace.acquire(never))!, 'spent');
    }
    const m = many.pace.record();
    expect(m.final).toBe(3896);
    expect(m.changes).toHaveLength(64);
    expect(m.dropped).toBe(136);
    expect(m.changes[0]!.limit).toBe(4095);
    expect(m.changes.at(-1)!.limit).toBe(3896);
  });

  it('a waiter whose signal aborts leaves the queue with null', async () => {
    const { pace } = paced(1);
    await pace.acquire(never);
    const ac = new AbortController();
    const p = pace.acquire(ac.signal);
    ac.abort();
    expect(await p).toBeNull();
  });

  it('a 429 that names a wait closes the gate until then, for every request', async () => {
    // Fake timers: the gate's own timer fires when the clock says so, not when the machine gets to it.
    vi.useFakeTimers();
    try {
      const { pace, clock } = paced(8);
      await tolerated(pace, 8, 30);
      const t = (await pace.acquire(never))!;
      pace.release(t, 'limited', 30);
      expect(pace.tryAcquire()).toBeNull();
      let admitted = false;
      const waiting = pace.acquire(never).then((x) => (admitted = x !== null));
      clock.t += 29;
      await vi.advanceTimersByTimeAsync(29);
      expect(admitted).toBe(false);
      clock.t += 1;
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(admitted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a whole-second Retry-After does not hold the others for that second: one probe goes at once, and its answer opens the gate', async () => {
    const { pace } = paced(8);
    await tolerated(pace, 8, 1000);
    const a = (await pace.acquire(never))!;
    const b = (await pace.acquire(never))!;
    pace.release(a, 'limited', 1000);
    const probe = pace.tryAcquire();
    expect(probe?.probe).toBe(true);
    expect(pace.tryAcquire()).toBeNull(); // one probe at a time
    pace.release(b, 'limited', 1000); // an older refusal says nothing new
    expect(pace.tryAcquire()).toBeNull();
    pace.release(probe!, 'ok');
    expect(pace.tryAcquire()?.probe).toBeUndefined();
    expect(pace.tryAcquire()).not.toBeNull();
  });

  it('a 429 asking for 20 s holds every request 19 s, then probes the last second', async () => {
    const { pace, clock } = paced(8);
    await tolerated(pace, 8, 20_000);
    pace.release((await pace.acquire(never))!, 'limited', 20_000);
    clock.t = 18_999;
    expect(pace.tryAcquire()).toBeNull();
    clock.t = 19_000;
    expect(pace.tryAcquire()?.probe).toBe(true);
  });

  /** How long the gate stays closed after each of `refusals` refused probes, each answered with `hint`. */
  async function probeClosures(hint: number | null, refusals: number): Promise<number[]> {
    const { pace, clock } = paced(8);
    await tolerated(pace, 8, hint);
    pace.release((await pace.acquire(never))!, 'limited', hint);
    const closures: number[] = [];
    let probe: Ticket | null;
    while ((probe = pace.tryAcquire()) === null) clock.t += 1;
    for (let i = 0; i < refusals; i++) {
      expect(probe.probe).toBe(true);
      pace.release(probe, 'limited', hint);
      const from = clock.t;
      let next: Ticket | null;
      while ((next = pace.tryAcquire()) === null) clock.t += 1;
      closures.push(clock.t - from);
      probe = next;
    }
    return closures;
  }

  it("a probe refused again and again waits no longer than the server's hint, or a second when it asks for less", async () => {
    // A server that refuses at random says nothing new by refusing one probe more: doubling
    // past its hint stalled every rollout of a run for up to a minute.
    expect(await probeClosures(1000, 7)).toEqual([250, 500, 1000, 1000, 1000, 1000, 1000]);
    expect(await probeClosures(200, 7)).toEqual([250, 500, 1000, 1000, 1000, 1000, 1000]);
    expect(await probeClosures(3000, 7)).toEqual([2000, 2000, 2000, 2000, 3000, 3000, 3000]);
  });

  it('a probe refused without a hint keeps doubling its wait, up to a minute', async () => {
    expect(await probeClosures(null, 10)).toEqual([250, 500, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('a probe still out after a second (not refused at once) opens the gate without its answer', async () => {
    vi.useFakeTimers();
    try {
      const { pace } = paced(8);
      await tolerated(pace, 8, 1000);
      pace.release((await pace.acquire(never))!, 'limited', 1000);
      expect(pace.tryAcquire()?.probe).toBe(true);
      expect(pace.tryAcquire()).toBeNull();
      await vi.advanceTimersByTimeAsync(1000);
      expect(pace.tryAcquire()).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('once a limit is met, paces by rate: the rate-limit headers give it, and requests go one interval apart', async () => {
    const { pace, clock } = paced(8);
    const limits = spentBudget(10, 2000);
    expect(pace.rate).toBeNull();
    pace.release((await pace.acquire(never))!, 'limited', 1000, { limits });
    // 10 requests refill in 2 s: 5 a second, one every 200 ms; the 429's whole second is left to the spacing.
    expect(pace.rate).toBe(5);
    expect(pace.spaces(1000)).toBe(true);
    expect(pace.spaces(20_000)).toBe(false);
    clock.t = 199;
    expect(pace.tryAcquire()).toBeNull();
    clock.t = 200;
    expect(pace.tryAcquire()).not.toBeNull();
    expect(pace.tryAcquire()).toBeNull();
    clock.t = 400;
    expect(pace.tryAcquire()).not.toBeNull();
    expect(pace.record()).toMatchObject({ rate_limited: 1, rate_rps: 5, lowest_rate_rps: 5 });
  });

  it('without headers, learns the rate from what was answered between refusals, and a refusal never raises it', async () => {
    const { pace, clock } = paced(8);
    await tolerated(pace, 8, 1000);
    pace.release((await pace.acquire(never))!, 'limited', 1000);
    expect(pace.rate).toBeNull(); // one refusal says nothing of the rate
    // Ten answers in the next two seconds, then a refusal: 5 a second.
    for (let i = 1; i <= 10; i++) {
      clock.t = i * 200 - 100;
      pace.release(pace.tryAcquire()!, 'ok');
    }
    clock.t = 2000;
    pace.release(pace.tryAcquire()!, 'limited', 1000);
    expect(pace.rate).toBe(5);
    const learned = pace.rate!;
    clock.t = 2200;
    pace.release(pace.tryAcquire()!, 'limited', 1000);
    expect(pace.rate!).toBeLessThanOrEqual(learned);
  });

  it('--no-adapt paces by nothing but -c', async () => {
    const { pace } = paced(2, false);
    const limits = spentBudget(10, 2000);
    pace.release((await pace.acquire(never))!, 'limited', 1000, { limits });
    expect(pace.spaces(1000)).toBe(false);
    expect(pace.tryAcquire()).not.toBeNull();
    expect(pace.tryAcquire()).not.toBeNull();
  });

  // Found by `npm run bench -- pace` (1 run in about 30 at 5 requests/s): the gate read the
  // clock once to decide it was not yet open and again to decide whether to set its timer. When
  // the clock ticked past the interval between the two reads, it neither admitted the waiters
  // nor set a timer, and they waited until their episode's deadline (a run of 605 s).
  it('wakes its waiters when the clock ticks past the interval between two reads', async () => {
    vi.useFakeTimers();
    try {
      const t0 = Date.now();
      let lagOnce = false;
      // A clock read a hair before the due time, once, then on time: as Date.now() crossing a millisecond.
      const now = (): number => {
        const t = Date.now() - t0;
        if (lagOnce && t === 200) {
          lagOnce = false;
          return 199.9;
        }
        return t;
      };
      const pace = new Pace({ max: 8, adaptive: true, now });
      const limits = spentBudget(10, 2000);
      pace.release((await pace.acquire(never))!, 'limited', 1000, { limits });
      expect(pace.rate).toBe(5); // the next request is due at 200 ms
      vi.advanceTimersByTime(100);
      let admitted = false;
      void pace.acquire(never).then((t) => (admitted = t !== null));
      lagOnce = true;
      await vi.advanceTimersByTimeAsync(1000);
      expect(admitted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
