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
 *
 * Once a limit is met the gate paces by rate as well (rate.ts): every request waits one
 * interval of 1 / rate after the last. From then on a 429 whose hint is short (no longer than
 * a second, or than one interval rounded up to whole seconds) is answered by the spacing,
 * not by closing the gate and probing; a longer hint (a budget per minute spent) still
 * closes it. While pacing by rate, a refusal lowers the limit on requests in flight only to
 * what the replies show the endpoint sustains, never one step below the limit for its own
 * sake, and a reply saying the budget is spent does not lower it: the spacing keeps the rate.
 * Below what the rate needs in flight at the current latency (rate × latency), the limit rises
 * one step per reply, not per `limit` replies: replies that slow down need more in flight for
 * the same rate, and the spacing still holds the rate.
 *
 * The replies are kept here, one window of their arrival times: the limit's estimate reads it.
 */

// What run.json keeps of the pace is the run folder's format, so its type lives there.
import type { PaceChange, PaceRecord } from '../runfile/sessions.js';
import { RateGauge } from './rate.js';
import { RefusalWindow } from './refusal-window.js';
import { namesBudget, type RateLimits } from './retry-after.js';

/** How an attempt that held a slot ended, as far as the pace is concerned. */
export type AttemptOutcome = 'ok' | 'limited' | 'spent' | 'other';

/** A slot held by one attempt. */
export interface Ticket {
  readonly epoch: number;
  readonly startedAt: number;
  /** The one request let through a closed gate to learn whether the limit has cleared. */
  readonly probe?: boolean;
  /** The rate's epoch when it was sent (rate.ts). */
  readonly rateEpoch?: number;
  /** How many requests went before it (refusal-window.ts). */
  readonly seq?: number;
}

/** What an answer's headers and usage tell the rate (rate.ts). */
export interface AnswerSignals {
  /** The `x-ratelimit-*` budgets of the answer, if it named any. */
  limits?: RateLimits | null;
  /** Tokens the answer reported using (prompt and completion), if any. */
  tokens?: number | null;
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
  /** Wakes the waiters when the rate's interval has passed. */
  private rateTimer: NodeJS.Timeout | null = null;
  private rateWake = 0;
  private readonly now: () => number;
  private readonly started: number;
  private readonly gauge = new RateGauge();
  private readonly window: RefusalWindow;
  private sent = 0;
  /** Told about every change of the limit. */
  onChange: ((limit: number) => void) | null = null;

  constructor(private readonly o: PaceOptions) {
    if (!Number.isSafeInteger(o.max) || o.max < 1)
      throw new RangeError(`the pace needs a ceiling of at least 1, got ${o.max}`);
    this.now = o.now ?? Date.now;
    this.started = this.now();
    this.current = o.max;
    this.lowestSeen = o.max;
    this.window = new RefusalWindow(o.max);
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
      // Held back by the rate's interval alone, with nothing in flight to wake the gate: its timer will.
      this.admit();
    });
  }

  /** A slot at once when one is free and nobody waits for one, else null (no waiting). */
  tryAcquire(): Ticket | null {
    return this.inFlight < this.current &&
      this.retries.length + this.fresh.length === 0 &&
      this.open(this.now()) &&
      !this.probeOut
      ? this.take()
      : null;
  }

  /**
   * Gives the slot back and learns from how the attempt ended; `retryAfterMs` is the wait a
   * 429 asked for, if it named one.
   */
  release(
    ticket: Ticket,
    outcome: AttemptOutcome,
    retryAfterMs: number | null = null,
    signals: AnswerSignals = {},
  ): void {
    const now = this.now();
    const binding = this.inFlight >= this.current;
    this.inFlight--;
    if (outcome === 'ok' || outcome === 'spent') this.replied(now, ticket);
    if (this.o.adaptive) this.learn(now, ticket, outcome, retryAfterMs, signals, binding);
    this.admit();
  }

  /** The rate the gate paces requests at, per second, or null before any limit was met. */
  get rate(): number | null {
    return this.gauge.rate;
  }

  /**
   * True when a 429 asking for `retryAfterMs` is answered by the pacing by rate: its rollout
   * need not wait the whole hint (a whole-second hint is often a shorter wait rounded up),
   * since the gate spaces its retry. False when not pacing by rate, or the hint is long.
   */
  spaces(retryAfterMs: number | null): boolean {
    const rps = this.gauge.rate;
    if (rps === null || !this.o.adaptive) return false;
    return retryAfterMs === null || retryAfterMs <= Math.max(1000, Math.ceil(1 / rps) * 1000);
  }

  private replied(now: number, ticket: Ticket): void {
    this.replies.push(now);
    // Only the last window matters to the estimate; keep the list short in a long run.
    if (this.replies.length > 4 * REPLIES_KEPT) this.replies.splice(0, this.replies.length - REPLIES_KEPT);
    const took = now - ticket.startedAt;
    this.latencyMs = this.latencyMs === null ? took : 0.8 * this.latencyMs + 0.2 * took;
  }

  /** What an answer teaches the rate, the limit and the gate. */
  private learn(
    now: number,
    ticket: Ticket,
    outcome: AttemptOutcome,
    retryAfterMs: number | null,
    signals: AnswerSignals,
    binding: boolean,
  ): void {
    const current = ticket.epoch === this.epoch;
    const pacedBefore = this.gauge.rate !== null;
    const limits = signals.limits ?? null;
    if (outcome === 'limited' && !this.limitShown(ticket, limits, pacedBefore)) {
      // A refusal at random: counted, and its rollout waits the server's hint; nothing else.
      this.gauge.tolerated(ticket.rateEpoch ?? -1);
      return;
    }
    // True when the rate is known once this refusal is counted: the spacing then answers it.
    let byRate = pacedBefore;
    if (outcome === 'limited') byRate = this.gauge.refused(now, ticket.rateEpoch ?? -1, limits, retryAfterMs);
    else if (outcome === 'ok' || outcome === 'spent') {
      const held = this.retries.length + this.fresh.length > 0 && now < this.gauge.readyAt;
      this.gauge.answered(now, limits, signals.tokens ?? null, held, outcome === 'spent');
    }
    if (outcome === 'limited' && current) this.refusedNow(now, byRate, pacedBefore);
    else if (outcome === 'spent' && current && !pacedBefore) this.decrease(now, this.current - 1);
    else if (outcome === 'ok' && binding) this.rise(now);
    if (ticket.probe) this.probeAnswered(now, outcome, retryAfterMs);
    // A refusal of a request sent before the gate last closed says nothing new; one the
    // spacing answers does not close it.
    else if (outcome === 'limited' && current && !this.probing && !this.spaces(retryAfterMs))
      this.close(now, gateClosure(retryAfterMs ?? 0));
  }

  /**
   * Whether a refusal is a limit's (refusal-window.ts): it names a budget, the headers have
   * named one, a rate is paced at already, the gate is closed and probing, or the refusals of
   * the last requests sent are too many to be chance. Once pacing by a rate, every refusal
   * counts: the rate creeps up while the spacing holds requests back, and refusals let
   * through as chance until they cluster cost 1.12 requests per rollout against a rate
   * without headers (tests/engine/rate-pace.test.ts).
   */
  private limitShown(ticket: Ticket, limits: RateLimits | null, paced: boolean): boolean {
    const clustered = this.window.clustered(ticket.seq ?? this.sent, this.sent);
    return clustered || paced || this.probing || namesBudget(limits) || this.gauge.fromHeaders;
  }

  /** Whether the gate admits now: not closed by a 429, and the rate's interval has passed. */
  private open(now: number): boolean {
    return now >= this.pausedUntil && now >= this.gauge.readyAt;
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
      ...this.gauge.record(),
    };
  }

  private take(): Ticket {
    this.inFlight++;
    const now = this.now();
    const rateEpoch = this.gauge.send(now);
    const seq = ++this.sent;
    if (!this.probing) return { epoch: this.epoch, startedAt: now, rateEpoch, seq };
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
    return { epoch: this.epoch, startedAt: now, probe: true, rateEpoch, seq };
  }

  private admit(): void {
    for (;;) {
      // One reading of the clock decides both whether the gate is open and whether to set the
      // timer: read twice, a clock that ticked past the interval between them did neither, and
      // the waiters waited until their deadline.
      const now = this.now();
      if (this.inFlight >= this.current || this.probeOut) return;
      if (!this.open(now)) {
        // Held back by the rate's interval alone: the waiters are woken when it has passed.
        const waiting = this.retries.length + this.fresh.length > 0;
        if (waiting && now < this.gauge.readyAt) this.wakeAt(this.gauge.readyAt);
        return;
      }
      const w = this.retries.shift() ?? this.fresh.shift();
      if (!w) return;
      w.cleanup();
      w.resolve(this.take());
    }
  }

  /** Admits the waiters at `at` (a timer that fires early tries again). */
  private wakeAt(at: number): void {
    if (this.rateTimer !== null) {
      if (this.rateWake === at) return;
      clearTimeout(this.rateTimer);
    }
    this.rateWake = at;
    this.rateTimer = setTimeout(
      () => {
        this.rateTimer = null;
        this.admit();
      },
      Math.max(1, Math.ceil(at - this.now())),
    );
    // As the pause's: whoever waits holds timers of its own.
    this.rateTimer.unref();
  }

  /**
   * The limit the endpoint sustains, judged from the replies of the last window (at least a
   * second, or twice the latency): replies per second times seconds per reply is the number
   * of requests that fits in flight. Without enough replies yet, half the current limit. A
   * run younger than the window is still judged over the whole window: a token bucket's first
   * burst then counts as one second's worth, not as a rate (judged over the run's age, a
   * bucket of 40 emptied in 0.2 s read as 40 in flight where the rate of 40 a second at 0.2 s
   * needs 8).
   */
  private estimate(now: number): number {
    const latency = this.latencyMs;
    const window = Math.max(1000, 2 * (latency ?? 0));
    while (this.replies.length > 0 && this.replies[0]! < now - window) this.replies.shift();
    if (latency === null || this.replies.length < MIN_SAMPLES) return Math.floor(this.current / 2);
    return Math.ceil((this.replies.length / window) * latency);
  }

  /**
   * A reply came while the limit held requests back. Pacing by a rate, a limit below what the
   * rate needs in flight at the current latency rises one step (the spacing holds the rate);
   * else it rises as the additive increase does, once the hold after a decrease has passed.
   */
  private rise(now: number): void {
    const rps = this.gauge.rate;
    const needed = rps === null ? 0 : Math.min(this.o.max, Math.ceil((rps * (this.latencyMs ?? 0)) / 1000));
    if (needed > this.current) this.set(this.current + 1, now);
    else if (now - this.lastDecrease >= this.holdMs()) this.increase(now);
  }

  /** After a decrease, no increase for a while: the refusals of requests already sent are still to come. */
  private holdMs(): number {
    return Math.max(2000, 8 * (this.latencyMs ?? 0));
  }

  /**
   * A 429 to a request sent under the current limit. Once the headers have named the rate
   * (this refusal's included), the spacing answers it and the limit stays. Lowering it too, to
   * what the replies of the last window show the endpoint sustains, capped the run below the
   * rate whenever that window was short of replies: taken while the run was still starting,
   * or on a busy machine, it gave 5 or 6 where 40 requests/s at 200 ms needs 8 in flight, and
   * a limit rises back only one step per round trip (real processes took 11.3–14 s for
   * 400 rollouts against 40 requests/s, the target being 11). With a rate learned from refusals
   * alone, the limit still falls to that measure (but not one step more): there it is the
   * brake that keeps a rate measured a little high from probing the limit every second. It
   * rises again as far as the rate needs when replies slow down (`rise`).
   */
  private refusedNow(now: number, byRate: boolean, pacedBefore: boolean): void {
    if (byRate && this.gauge.fromHeaders) this.epoch++;
    else this.decrease(now, this.estimate(now), pacedBefore);
  }

  /** Lowers the limit to `to`, at least one step unless `byRate` (the spacing then holds the rate). */
  private decrease(now: number, to: number, byRate = false): void {
    const next = Math.max(1, Math.min(byRate ? this.current : this.current - 1, to));
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
