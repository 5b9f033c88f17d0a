/**
 * Pacing by rate: how many requests a second the endpoint allows, learned once it first says
 * "too many" (a 429, or a reply whose rate-limit headers say a budget is spent), and the
 * spacing that keeps the requests under it. Pacing by requests in flight (pace.ts) cannot
 * hold a rate when rate × latency is below one request: every slot freed by a quick reply
 * sends the next request at once. From the first limit met, every request waits its turn,
 * one interval of 1 / rate after the last one.
 *
 * The rate comes from two sources, the lower of them taken:
 * - the rate-limit headers (`x-ratelimit-limit-*`, `-remaining-*`, `-reset-*`, for requests
 *   and for tokens): a budget of `limit` that is back to full in `reset` with `remaining`
 *   left refills at (limit - remaining) / reset; a token budget is turned into requests by
 *   the tokens the run's replies used on average;
 * - the refusals themselves: a 429 says the budget was empty when it came, so between two
 *   of them the server let through what it refilled. Without headers, what it let through is
 *   counted as the requests sent since the older refusal less those of them refused: the
 *   replies answered in between would also count requests sent before it (the first wave's,
 *   a bucket's worth), and took the rate 9% high (43.7 requests/s against 40), which the run
 *   then spent in refusals. With headers, the replies answered in between are counted: they
 *   only guard the headers' rate, and counting requests sent misjudges a first wave that
 *   reaches the server over a while.
 *   A refusal of a request sent before the last refusal says nothing new and is not counted
 *   (as pace.ts does with its limit).
 * The first refusal that counts only starts the measure: the rate is known from the second
 * one on, or at once when headers name it. A refusal without a budget header that asks for
 * less than a second starts nothing: it comes from a limit on bursts or on requests in
 * flight, which pace.ts's limit answers.
 *
 * Answered requests raise the rate by INCREASE per second's worth of them while the spacing is
 * what holds requests back, so the pace follows a limit that rises during the run; a refusal
 * lowers it, so it follows one that falls. Against a limit that does not move, rising 5% a
 * second overshot it every few seconds (a refusal every 3.7 s against 5 requests/s), so the
 * rate a counted refusal came at is kept as a ceiling: the refusal lowers the rate to at most
 * GUARD of it, and rises stop there. The next refusal sets it anew, lower, until the rate is
 * under the limit and stays. Only the first such refusal, and then those that come after the
 * rate rose (a probe upward), set it: a refusal of a rate that has not risen since says that
 * the headers or the measure were off, or that requests sent earlier spent the budget (a
 * first wave reaching the server over a while), not that a rise went too far. CEILING_HOLD_MS
 * after the refusal that set it the ceiling lifts by CEILING_LIFT of itself, and after each
 * further CEILING_HOLD_MS by twice as much as the time before (1%, then 2%, 4%…), so a limit
 * that rose is still followed: the rate may be twice the ceiling 70 s after it was set. A
 * steady limit pays one refusal a probe, about every 20 s (docs/providers-and-pacing.md).
 */
import type { PaceRecord } from '../runfile/sessions.js';
import { impliedRate, namesBudget, type RateLimits } from './retry-after.js';

/** What run.json keeps of the rate limiting, beside the rest of the pace. */
type RateRecord = Required<Pick<PaceRecord, 'rate_limited' | 'rate_rps' | 'lowest_rate_rps'>>;

/** The shortest time between two refusals that measures the rate. */
const MIN_INTERVAL_MS = 250;
/** How far back the measure reaches: the longer, the finer, but the slower to follow a change. */
const HISTORY_MS = 10_000;
const MARKS_KEPT = 256;
/** A refusal with nothing to measure lowers the rate to this share of it. */
const DECREASE = 0.9;
/** A short measure, or the ceiling, lowers the rate to at most this share of the rate refused. */
const GUARD = 0.98;
/** The rise per second's worth of answered requests while the spacing holds requests back. */
const INCREASE = 1.05;
/** How long the ceiling holds after the refusal that set it, before each of its lifts. */
const CEILING_HOLD_MS = 10_000;
/** The ceiling's first lift, as a share of it; each further lift is twice the one before. */
const CEILING_LIFT = 0.01;
/** The slowest pace: a request a minute. */
const FLOOR_RPS = 1 / 60;

const rounded = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

export class RateGauge {
  private rps: number | null = null;
  private lowest: number | null = null;
  private refusals = 0;
  /** Bumped by every refusal that counts: a refusal of a request sent before it says nothing new. */
  private epoch = 0;
  /** Requests sent so far. */
  private sent = 0;
  /** Requests answered so far. */
  private answers = 0;
  /**
   * The refusals that counted in the last HISTORY_MS, oldest first: when, the replies answered
   * and the requests sent by then, the epoch of the requests sent after it, and how many of
   * those were refused since.
   */
  private readonly marks: Array<{ at: number; answered: number; sent: number; epoch: number; lost: number }> = [];
  /** What the headers said last, in requests a second. */
  private headerRps: number | null = null;
  private credit = 0;
  private tokens = 0;
  private counted = 0;
  /** No request goes before this time (when pacing by rate). */
  private nextAt = 0;
  /** The rate the last refusal that set it came at, and when (see the top of this file). */
  private ceiling: { rps: number; at: number } | null = null;
  /** True when the rate rose since the last refusal that counted. */
  private rose = false;

  /** The rate requests are spaced at, per second; null before any limit was met. */
  get rate(): number | null {
    return this.rps;
  }

  /** True once the rate-limit headers have named a budget: the rate then comes from the server's word. */
  get fromHeaders(): boolean {
    return this.headerRps !== null;
  }

  /** When the next request may go: 0 when not pacing by rate. */
  get readyAt(): number {
    return this.rps === null ? 0 : this.nextAt;
  }

  /** A request goes now; returns the epoch its answer is judged by. */
  send(now: number): number {
    this.sent++;
    if (this.rps === null) return this.epoch;
    // A request let through late (a timer fires late on a busy machine) does not push the next
    // one back by its lateness: up to one interval of it is made up, so the spacing keeps the
    // rate on average instead of losing every timer's delay (at most two requests go together).
    const interval = 1000 / this.rps;
    this.nextAt = Math.max(this.nextAt, now - interval) + interval;
    return this.epoch;
  }

  /**
   * A request was answered at `now`: its headers and tokens are learned; when `held` (the
   * spacing kept requests waiting), the rate rises by INCREASE per second's worth of answers,
   * up to GUARD of the ceiling as lifted by then (`cap`). A reply
   * saying a budget is spent (`spent`) starts pacing at the rate its headers give, if none yet.
   */
  answered(now: number, limits: RateLimits | null, tokens: number | null, held: boolean, spent: boolean): void {
    this.answers++;
    if (tokens !== null && tokens > 0) {
      this.tokens += tokens;
      this.counted++;
    }
    this.hear(limits);
    if (spent && this.rps === null && this.headerRps !== null) this.set(this.headerRps);
    if (this.rps === null || !held) return;
    this.credit += 1 / this.rps;
    if (this.credit < 1) return;
    this.credit = 0;
    const cap = this.cap(now);
    if (this.rps >= cap) return;
    this.set(Math.min(cap, this.rps * INCREASE));
    this.rose = true;
  }

  /**
   * How high the rate may rise at `now`: GUARD of the ceiling, lifted by CEILING_LIFT × (2^k - 1)
   * of it k holds of CEILING_HOLD_MS after the refusal that set it; no bound without one. (A
   * refusal that does not set it leaves the lifts running: the rate it lowered is under the ceiling.)
   */
  private cap(now: number): number {
    if (this.ceiling === null) return Infinity;
    const lifts = Math.floor((now - this.ceiling.at) / CEILING_HOLD_MS);
    return GUARD * this.ceiling.rps * (1 + CEILING_LIFT * (2 ** lifts - 1));
  }

  /**
   * A 429 came for a request sent in `epoch`, asking for a wait of `hintMs` (null: none named).
   * Returns true when the rate is known after it.
   */
  refused(now: number, epoch: number, limits: RateLimits | null, hintMs: number | null = null): boolean {
    this.tolerated(epoch);
    this.hear(limits);
    // A refusal that names no budget and asks for less than a second is a limit on bursts or on
    // requests in flight, which the limit on requests in flight answers (pace.ts): pacing by
    // rate starts only on a sign of a rate, a budget header or a wait of a second or more.
    if (!this.showsRate(limits, hintMs)) return false;
    if (epoch !== this.epoch) return this.rps !== null;
    // The rate it came at, if it had risen since the last refusal that counted (a probe upward)
    // or no ceiling is set yet.
    const probed = this.rose || this.ceiling === null ? this.rps : null;
    this.rose = false;
    const measured = this.measured(now);
    const est = minOf(this.headerRps, measured?.rps ?? null);
    // A refusal never raises the rate; a short measure lowers it only a little at a time.
    if (est === null) {
      if (this.rps !== null) this.set(this.rps * DECREASE);
    } else if (this.rps === null) this.set(est);
    else this.set(Math.min(est, measured?.long === false ? this.rps * GUARD : this.rps));
    // That rate is too high: rises stop under it from now on, and the rate goes there at most.
    if (probed !== null) {
      this.ceiling = { rps: probed, at: now };
      this.set(Math.min(this.rps!, GUARD * probed));
    }
    this.marks.push({ at: now, answered: this.answers, sent: this.sent, epoch: this.epoch + 1, lost: 0 });
    while (this.marks.length > MARKS_KEPT || this.marks[0]!.at < now - HISTORY_MS) this.marks.shift();
    this.epoch++;
    this.credit = 0;
    if (this.rps !== null) this.nextAt = Math.max(this.nextAt, now + 1000 / this.rps);
    return this.rps !== null;
  }

  /**
   * A refusal for a request sent in `epoch` counted, and taken from what went through; all a
   * refusal at random (refusal-window.ts) does, and the first thing `refused` does.
   */
  tolerated(epoch: number): void {
    this.refusals++;
    for (const m of this.marks) if (m.epoch <= epoch) m.lost++;
  }

  /**
   * Whether a refusal naming `limits` and asking for `hintMs` is a sign of a rate: the rate is
   * known already, or it names a budget, or it asks for a second or more.
   */
  private showsRate(limits: RateLimits | null, hintMs: number | null): boolean {
    return this.rps !== null || this.headerRps !== null || namesBudget(limits) || (hintMs ?? 0) >= 1000;
  }

  record(): RateRecord {
    return { rate_limited: this.refusals, rate_rps: rounded(this.rps), lowest_rate_rps: rounded(this.lowest) };
  }

  /**
   * The rate that what went through since the oldest refusal of the last HISTORY_MS measures
   * (the budget was empty at both ends, so it is what it refilled): without headers the
   * requests sent since then and not refused, with them the replies answered since then (see
   * the top of this file). Null when that is under MIN_INTERVAL_MS ago or nothing went
   * through. Under a second the count is taken one higher: a measure too low would hold the
   * run below the limit, one too high is corrected by the next refusal.
   */
  private measured(now: number): { rps: number; long: boolean } | null {
    const from = this.marks.find((m) => m.at >= now - HISTORY_MS);
    if (from === undefined) return null;
    const ms = now - from.at;
    const through = this.headerRps === null ? this.sent - from.sent - from.lost : this.answers - from.answered;
    if (ms < MIN_INTERVAL_MS || through < 1) return null;
    const long = ms >= 1000;
    return { rps: (long ? through : through + 1) / (ms / 1000), long };
  }

  private hear(limits: RateLimits | null): void {
    const perRequest = this.counted > 0 ? this.tokens / this.counted : null;
    const r = limits ? impliedRate(limits, perRequest) : null;
    if (r !== null) this.headerRps = r;
  }

  private set(rps: number): void {
    this.rps = Math.max(FLOOR_RPS, rps);
    this.lowest = this.lowest === null ? this.rps : Math.min(this.lowest, this.rps);
  }
}

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
