/**
 * The pace of a run: how many requests may be in flight right now. `-c` is the ceiling; a
 * rate limit (a 429, or a reply whose rate-limit headers say the budget is spent) lowers the
 * limit, and replies that come back while the limit is what holds requests back raise it
 * again, one step per `limit` of them (additive increase, multiplicative decrease, as TCP
 * does with its window). Every attempt passes through the gate, retries first, so a rollout
 * waiting out a Retry-After holds no slot.
 *
 * A 429 also closes the gate for a while, and then lets one request through (a probe) before
 * the others: else each slot freed by a refusal would go straight to another refusal. How
 * long it stays closed follows the server's hint, read for what it can mean. A hint in whole
 * seconds (`Retry-After: 1`) is often a wait of a few milliseconds rounded up, so the gate
 * stays closed only for all but the last second of it, and the probe finds out the rest: a
 * hint of 1 s costs the others no wait at all, one of 20 s (a per-minute budget spent) holds
 * them 19 s. A finer hint (`retry-after-ms`) is taken as it is. The refused rollout itself
 * waits the whole hint (retry.ts). A probe that is refused closes the gate again, each time
 * twice as long as the last, from PROBE_FLOOR_MS, but no longer than the hint (or a second,
 * if the hint is shorter): a refused probe is one request's answer, and while the gate is
 * closed every rollout waits. Without a hint the doubling goes on to MAX_PAUSE_MS. A probe
 * that is answered, or is still out after PROBE_PATIENCE_MS (so it was not refused at once),
 * opens the gate.
 */

// What run.json keeps of the pace is the run folder's format, so its type lives there.
import type { PaceChange, PaceRecord } from '../runfile/sessions.js';

/** How an attempt that held a slot ended, as far as the pace is concerned. */
export type AttemptOutcome = 'ok' | 'limited' | 'spent' | 'other';

/** A slot held by one attempt. */
export interface Ticket {
  readonly epoch: number;
  readonly startedAt: number;
  /** The one request let through a closed gate to learn whether the limit has cleared. */
  readonly probe?: boolean;
}

export interface PaceOptions {
  /** The ceiling (`-c`), and the starting limit. */
  max: number;
  /** False keeps the limit at `max` whatever happens (`--no-adapt`). */
  adaptive: boolean;
  now?: () => number;
}

/** How many changes run.json keeps (half from the start, half the latest). */
const HISTORY_CAP = 64;
/** Reply times kept for the estimate (more than any window at -c 4096 needs is not useful). */
const REPLIES_KEPT = 8192;
/** Longest the gate stays closed on one Retry-After; the episode deadline bounds the rest. */
const MAX_PAUSE_MS = 60_000;
/** Fewest replies in the window for the rate estimate to be trusted. */
const MIN_SAMPLES = 4;
/** The first wait after a refused probe; each further refused probe doubles it. */
const PROBE_FLOOR_MS = 250;
/** How far that doubling goes when the server named a shorter wait than this (else: to its wait). */
const PROBE_CEILING_MS = 1000;
/** A probe still out after this long was not refused at once: the gate opens without its answer. */
const PROBE_PATIENCE_MS = 1000;

/**
 * How long a hint of `ms` keeps the gate closed: a whole number of seconds may be a short
 * wait rounded up, so its last second is left to a probe; a finer hint is taken as it is.
 */
function gateClosure(ms: number): number {
  return ms >= 1000 && ms % 1000 === 0 ? ms - 1000 : ms;
}

interface Waiter {
  resolve: (t: Ticket | null) => void;
  cleanup: () => void;
}

/** The gate every attempt passes, and the limit it enforces. */
export class Pace {
  private current: number;
  private lowestSeen: number;
  private inFlight = 0;
  /** Bumped by every decrease: a refusal of a request sent before the last one says nothing new. */
  private epoch = 0;
  private credit = 0;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  private latencyMs: number | null = null;
  /** Arrival times of recent successful replies, oldest first. */
  private readonly replies: number[] = [];
  private readonly retries: Waiter[] = [];
  private readonly fresh: Waiter[] = [];
  private readonly history: PaceChange[] = [];
  private dropped = 0;
  /** No request is admitted before this time (a 429's Retry-After). */
  private pausedUntil = 0;
  private pauseTimer: NodeJS.Timeout | null = null;
  /** After a 429, one request at a time is let through until one is not refused. */
  private probing = false;
  private probeOut = false;
  /** The wait after the last refused probe (0: none refused yet). */
  private probeWait = 0;
  private probeTimer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  private readonly started: number;
  /** Told about every change of the limit. */
  onChange: ((limit: number) => void) | null = null;

  constructor(private readonly o: PaceOptions) {
    if (!Number.isSafeInteger(o.max) || o.max < 1)
      throw new RangeError(`the pace needs a ceiling of at least 1, got ${o.max}`);
    this.now = o.now ?? Date.now;
    this.started = this.now();
    this.current = o.max;
    this.lowestSeen = o.max;
  }

  /** The number of requests allowed in flight now. */
  get limit(): number {
    return this.current;
  }

  /** Requests holding a slot now. */
  get active(): number {
    return this.inFlight;
  }

  /**
   * Waits for a slot. Retries go before first attempts: a rollout already started should
   * finish before new ones begin. Resolves null when `signal` aborts first.
   */
  acquire(signal: AbortSignal, retry = false): Promise<Ticket | null> {
    if (signal.aborted) return Promise.resolve(null);
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      const queue = retry ? this.retries : this.fresh;
      const onAbort = (): void => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        resolve(null);
      };
      const waiter: Waiter = { resolve, cleanup: () => signal.removeEventListener('abort', onAbort) };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  /** A slot at once when one is free and nobody waits for one, else null (no waiting). */
  tryAcquire(): Ticket | null {
    return this.inFlight < this.current &&
      this.retries.length + this.fresh.length === 0 &&
      this.now() >= this.pausedUntil &&
      !this.probeOut
      ? this.take()
      : null;
  }

  /**
   * Gives the slot back and learns from how the attempt ended; `retryAfterMs` is the wait a
   * 429 asked for, if it named one.
   */
  release(ticket: Ticket, outcome: AttemptOutcome, retryAfterMs: number | null = null): void {
    const now = this.now();
    const binding = this.inFlight >= this.current;
    this.inFlight--;
    if (outcome === 'ok' || outcome === 'spent') {
      this.replies.push(now);
      // Only the last window matters to the estimate; keep the list short in a long run.
      if (this.replies.length > 4 * REPLIES_KEPT) this.replies.splice(0, this.replies.length - REPLIES_KEPT);
      const took = now - ticket.startedAt;
      this.latencyMs = this.latencyMs === null ? took : 0.8 * this.latencyMs + 0.2 * took;
    }
    if (this.o.adaptive) {
      const current = ticket.epoch === this.epoch;
      if (outcome === 'limited' && current) this.decrease(now, this.estimate(now));
      else if (outcome === 'spent' && current) this.decrease(now, this.current - 1);
      else if (outcome === 'ok' && binding && now - this.lastDecrease >= this.holdMs()) this.increase(now);
      if (ticket.probe) this.probeAnswered(now, outcome, retryAfterMs);
      // A refusal of a request sent before the gate last closed says nothing new.
      else if (outcome === 'limited' && current && !this.probing) this.close(now, gateClosure(retryAfterMs ?? 0));
    }
    this.admit();
  }

  /** Closes the gate for `ms` (at most MAX_PAUSE_MS), then lets one probe through. */
  private close(now: number, ms: number): void {
    this.probing = true;
    this.pause(now + Math.min(Math.max(0, ms), MAX_PAUSE_MS));
  }

  /** Admits nobody before `until`, then wakes the waiters. */
  private pause(until: number): void {
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    if (this.pauseTimer) clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(() => {
      // A timer may fire a millisecond before the clock says it is due: the pause ends now.
      this.pauseTimer = null;
      this.pausedUntil = 0;
      this.admit();
    }, until - this.now());
    // A paused gate alone must not keep the process alive: whoever waits holds timers of its own.
    this.pauseTimer.unref();
  }

  /** The probe came back: refused, the gate closes again for longer; else it opens. */
  private probeAnswered(now: number, outcome: AttemptOutcome, retryAfterMs: number | null): void {
    this.probeOut = false;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    if (!this.probing) return;
    if (outcome === 'limited') {
      const doubled = Math.max(PROBE_FLOOR_MS, 2 * this.probeWait);
      // With a hint, no longer than it (or PROBE_CEILING_MS): a server that refuses at random
      // and says "1 s" each time is not saying "later and later".
      const hint = retryAfterMs !== null && retryAfterMs > 0 ? retryAfterMs : null;
      this.probeWait = hint === null ? doubled : Math.min(doubled, Math.max(PROBE_CEILING_MS, hint));
      this.close(now, Math.max(gateClosure(retryAfterMs ?? 0), this.probeWait));
      return;
    }
    this.probing = false;
    this.probeWait = 0;
  }
  /** What run.json keeps. */
  record(): PaceRecord {
    return {
      adaptive: this.o.adaptive,
      max: this.o.max,
      final: this.current,
      lowest: this.lowestSeen,
      changes: [...this.history],
      dropped: this.dropped,
    };
  }

  private take(): Ticket {
    this.inFlight++;
    if (!this.probing) return { epoch: this.epoch, startedAt: this.now() };
    // The gate is closed but for this one request.
    this.probeOut = true;
    this.probeTimer = setTimeout(() => {
      // Not refused at once: the limit has cleared, as far as the gate can tell.
      this.probeTimer = null;
      this.probing = false;
      this.probeWait = 0;
      this.probeOut = false;
      this.admit();
    }, PROBE_PATIENCE_MS);
    this.probeTimer.unref();
    return { epoch: this.epoch, startedAt: this.now(), probe: true };
  }

  private admit(): void {
    if (this.now() < this.pausedUntil) return;
    while (this.inFlight < this.current && !this.probeOut) {
      const w = this.retries.shift() ?? this.fresh.shift();
      if (!w) return;
      w.cleanup();
      w.resolve(this.take());
    }
  }

  /**
   * The limit the endpoint sustains, judged from the replies of the last window (at least a
   * second, or twice the latency): replies per second times seconds per reply is the number
   * of requests that fits in flight. Without enough replies yet, half the current limit.
   */
  private estimate(now: number): number {
    const latency = this.latencyMs;
    const window = Math.max(1000, 2 * (latency ?? 0));
    while (this.replies.length > 0 && this.replies[0]! < now - window) this.replies.shift();
    if (latency === null || this.replies.length < MIN_SAMPLES) return Math.floor(this.current / 2);
    return Math.ceil((this.replies.length / window) * latency);
  }

  /** After a decrease, no increase for a while: the refusals of requests already sent are still to come. */
  private holdMs(): number {
    return Math.max(2000, 8 * (this.latencyMs ?? 0));
  }

  private decrease(now: number, to: number): void {
    const next = Math.max(1, Math.min(this.current - 1, to));
    this.epoch++;
    this.lastDecrease = now;
    this.credit = 0;
    if (next !== this.current) this.set(next, now);
  }

  private increase(now: number): void {
    if (this.current >= this.o.max) return;
    this.credit += 1 / this.current;
    if (this.credit < 1) return;
    this.credit = 0;
    this.set(this.current + 1, now);
  }

  private set(limit: number, now: number): void {
    this.current = limit;
    this.lowestSeen = Math.min(this.lowestSeen, limit);
    this.history.push({ at_s: Math.round(now - this.started) / 1000, limit });
    if (this.history.length > HISTORY_CAP) {
      // Keep the first half (how the run found its pace) and the latest changes.
      this.history.splice(HISTORY_CAP / 2, 1);
      this.dropped++;
    }
    this.onChange?.(limit);
  }
}
