/**
 * What a run spends, request by request: the usage every response reported (recorded or not),
 * the requests abandoned in flight by a stop with what they may have cost, and the budget
 * (`--max-cost`, `--max-total-tokens`) every request must fit in before it is sent.
 *
 * Every attempt holds a reservation while it is out: its worst case, the prompt's tokens
 * (estimated from its size, docs/cost.md) plus the most it may write (`--max-tokens`, or
 * without it the largest completion seen so far times COMPLETION_MARGIN). A request is sent
 * only when what was spent, the reservations of the requests in flight and its own fit in the
 * budget; when it does not fit it waits for those in flight to come back (their actual usage
 * replaces their reservation), and when nothing is in flight and it still does not fit, the
 * budget is spent: the run stops (`onExhausted`). Before any completion was seen and without
 * `--max-tokens`, nothing bounds a reply: the request is sent alone and holds the whole rest of
 * the budget until it comes back (slow start sends the run's first request alone anyway).
 */
import type { Usage } from '../endpoint/completion.js';
import type { SessionSpend } from '../runfile/sessions.js';
import { billedCompletion, tokenCount, type Unreported } from '../summary/billed.js';

/** How far past the largest completion seen a reservation reaches, without --max-tokens. */
const COMPLETION_MARGIN = 1.5;
/** Tokens a chat template adds around the messages, at most (role markers, separators). */
const TEMPLATE_TOKENS = 64;
/** How far past the largest tokens-per-byte ratio seen a prompt estimate reaches. */
const PROMPT_MARGIN = 1.1;

/** Token counts in the two currencies a provider prices. */
export interface Tokens {
  prompt: number;
  completion: number;
}

/** A budget; null fields are not set. Prices are US dollars per million tokens. */
export interface Budget {
  maxCostUsd: number | null;
  maxTotalTokens: number | null;
  prices: { in: number; out: number } | null;
}

/** How a request ended, for what it is charged: its usage, nothing, or its worst case. */
export type Billed =
  /** A 200 came back: its usage (its worst case when it reported none). */
  | 'reply'
  /** Refused (4xx, 5xx, 429) or never sent (the connection failed): not billed. */
  | 'none'
  /** Sent, and its reply never came back whole (a timeout, a cut body): it may have been billed whole. */
  | 'unknown';

/** One request's reservation while it is out. */
export interface Hold {
  readonly worst: { prompt: number; completion: number | null };
  /** Bytes of the prompt, to learn tokens per byte from its usage. */
  readonly bytes: number;
  /** Nothing bounded its reply: it went alone, holding what was left of the budget. */
  readonly exclusive: boolean;
}

interface Waiter {
  resolve: (h: Hold | null) => void;
  bytes: number;
  signal: AbortSignal;
  onAbort: () => void;
}

export interface SpendOptions {
  /** The `--max-tokens` sent with every request, or null. */
  maxTokens: number | null;
  budget: Budget | null;
  /** What the run spent before this session (earlier sessions' usage, and their in-flight worst case). */
  before: Tokens;
  /** The client runs in this process (a built-in policy): it bills nothing, so nothing is unreported. */
  free?: boolean;
  /** Told once, when the next request can never fit: the run stops for it. */
  onExhausted?: (message: string) => void;
}

function emptyUnrecorded(): SessionSpend['unrecorded'] {
  return { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 };
}

/** The run's spend in this session, and the gate of its budget. */
export class Spend {
  /** Tokens known spent (earlier sessions, replies, worst cases charged for lost requests). */
  private readonly spent: Tokens;
  /** Reservations of the requests out now. */
  private readonly held: Tokens = { prompt: 0, completion: 0 };
  private out = 0;
  /** A request with no bound on its reply is out: nothing else goes until it is back. */
  private exclusive = false;
  private largestCompletion: number | null = null;
  private tokensPerByte: number | null = null;
  private readonly waiters: Waiter[] = [];
  private exhausted: string | null = null;
  private readonly unrecordedUsage = emptyUnrecorded();
  private readonly abandoned = { requests: 0, prompt: 0, completion: 0 as number | null };
  /** Requests charged beyond what their usage said (none reported, or lost): run.json keeps it for a resume. */
  private readonly unreported: Unreported = { requests: 0, prompt: 0, completion: 0 };

  constructor(private readonly o: SpendOptions) {
    this.spent = { ...o.before };
  }

  /** Requests out now. */
  get inFlight(): number {
    return this.out;
  }

  /** The message the budget stopped the run with, or null. */
  get exhaustedBy(): string | null {
    return this.exhausted;
  }

  /** The worst case of one request of `bytes` prompt bytes (completion null: unbounded). */
  worstCase(bytes: number): { prompt: number; completion: number | null } {
    const prompt =
      this.tokensPerByte === null
        ? // A token is at least one byte: the size bounds the count until a reply says better.
          bytes + TEMPLATE_TOKENS
        : Math.ceil(bytes * this.tokensPerByte * PROMPT_MARGIN) + TEMPLATE_TOKENS;
    const seen = this.largestCompletion === null ? null : Math.ceil(this.largestCompletion * COMPLETION_MARGIN);
    // An endpoint that billed past --max-tokens (it ignores it, or bills reasoning beyond it)
    // may do so again: later requests reserve what was seen, not what was asked for.
    const maxTokens = this.o.maxTokens;
    const completion =
      maxTokens === null
        ? seen
        : this.largestCompletion !== null && this.largestCompletion > maxTokens
          ? seen
          : maxTokens;
    return { prompt, completion };
  }

  /**
   * A reservation for one request of `bytes` prompt bytes: at once when it fits, after the
   * requests in flight come back when it fits only then, or null when the budget is spent
   * (the run stops) or `signal` aborts first.
   */
  acquire(bytes: number, signal: AbortSignal): Promise<Hold | null> {
    const now = this.tryAcquire(bytes, signal);
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        bytes,
        signal,
        onAbort: () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve(null);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** As `acquire`, without waiting: undefined when the request must wait. */
  tryAcquire(bytes: number, signal: AbortSignal): Hold | null | undefined {
    if (signal.aborted || this.exhausted !== null) return null;
    return this.tryHold(bytes);
  }

  /** The request came back (or never left): its reservation gives way to what it is charged. */
  settle(hold: Hold, usage: Usage | null, billed: Billed): void {
    this.release(hold);
    if (usage) this.learn(hold, usage);
    const charge = this.charge(hold, usage, billed);
    this.spent.prompt += charge.prompt;
    this.spent.completion += charge.completion;
    this.noteUnreported(charge, usage);
    this.wake();
  }

  /** The part of a charge that no usage will ever report (the records and `unrecorded` hold the rest). */
  private noteUnreported(charge: Tokens, usage: Usage | null): void {
    if (this.o.free) return;
    const prompt = Math.max(0, charge.prompt - (tokenCount(usage?.prompt_tokens) ?? 0));
    const completion = Math.max(0, charge.completion - ((usage && billedCompletion(usage)) ?? 0));
    if (prompt === 0 && completion === 0) return;
    this.unreported.requests++;
    this.unreported.prompt += prompt;
    this.unreported.completion += completion;
  }

  /** The request was out when the run stopped: counted as abandoned, with its worst case. */
  abandon(hold: Hold): void {
    this.release(hold);
    // The worst case as known now (a reply seen since it left bounds it better).
    const w = this.worstCase(hold.bytes);
    this.abandoned.requests++;
    this.abandoned.prompt += w.prompt;
    this.abandoned.completion =
      this.abandoned.completion === null || w.completion === null ? null : this.abandoned.completion + w.completion;
    this.spent.prompt += w.prompt;
    this.spent.completion += w.completion ?? 0;
    this.wake();
  }

  /** Adds the usage of a rollout that is not recorded (its tokens were billed all the same). */
  unrecorded(usage: Usage | null): void {
    if (!usage) return;
    const u = this.unrecordedUsage;
    u.prompt += usage.prompt_tokens ?? 0;
    // Billed beyond completion_tokens too, where total_tokens says so (src/summary/billed.ts).
    u.completion += billedCompletion(usage) ?? 0;
    u.total += usage.total_tokens ?? 0;
    u.reasoning += usage.reasoning_tokens ?? 0;
    u.cached += usage.cached_tokens ?? 0;
    u.lines++;
  }

  /** What run.json keeps of this session's spend beside its records. */
  record(): SessionSpend {
    return {
      unrecorded: { ...this.unrecordedUsage },
      in_flight: { ...this.abandoned },
      unreported: { ...this.unreported },
    };
  }

  private charge(hold: Hold, usage: Usage | null, billed: Billed): Tokens {
    if (billed === 'none') return { prompt: 0, completion: 0 };
    const worst = this.worstCase(hold.bytes);
    const completion = usage ? billedCompletion(usage) : null;
    if (billed === 'reply' && usage && completion !== null)
      return { prompt: tokenCount(usage.prompt_tokens) ?? worst.prompt, completion };
    // Nothing says what it cost: its worst case (without a bound, what it was allowed to take).
    return { prompt: worst.prompt, completion: worst.completion ?? hold.worst.completion ?? 0 };
  }

  private learn(hold: Hold, usage: Usage): void {
    // What it billed, reasoning beyond completion_tokens included, bounds the next ones.
    const completion = billedCompletion(usage);
    if (completion !== null) this.largestCompletion = Math.max(this.largestCompletion ?? 0, completion);
    const prompt = tokenCount(usage.prompt_tokens);
    if (prompt !== null && hold.bytes > 0) this.tokensPerByte = Math.max(this.tokensPerByte ?? 0, prompt / hold.bytes);
  }

  private release(hold: Hold): void {
    this.out--;
    this.held.prompt -= hold.worst.prompt;
    if (hold.exclusive) this.exclusive = false;
    else if (hold.worst.completion !== null) this.held.completion -= hold.worst.completion;
  }

  /**
   * A hold when it fits now; null when it never will (exhausted); undefined when it must wait.
   * `first`: the request is the head of the queue (else it waits behind whoever queued first).
   */
  private tryHold(bytes: number, first = false): Hold | null | undefined {
    if ((this.waiters.length > 0 && !first) || this.exclusive) return undefined;
    const worst = this.worstCase(bytes);
    const budget = this.o.budget;
    // Unbounded and not alone: wait until the others are back (and have bounded it).
    if (budget !== null && worst.completion === null && this.out > 0) return undefined;
    const fits = budget === null || this.fits(budget, worst);
    if (!fits) {
      if (this.out > 0) return undefined;
      this.exhaust(budget!, worst);
      return null;
    }
    // Unbounded under a budget: it goes alone and holds what is left, for what it is charged if it never comes back.
    const exclusive = budget !== null && worst.completion === null;
    const completion = exclusive ? this.left(budget, worst.prompt) : worst.completion;
    this.out++;
    this.held.prompt += worst.prompt;
    if (exclusive) this.exclusive = true;
    else if (completion !== null) this.held.completion += completion;
    return { worst: { prompt: worst.prompt, completion }, bytes, exclusive };
  }

  /** Completion tokens left under the budget after `prompt` more prompt tokens. */
  private left(budget: Budget, prompt: number): number {
    let left = Number.POSITIVE_INFINITY;
    const p = this.spent.prompt + this.held.prompt + prompt;
    const c = this.spent.completion + this.held.completion;
    if (budget.maxTotalTokens !== null) left = Math.min(left, budget.maxTotalTokens - p - c);
    if (budget.maxCostUsd !== null && budget.prices !== null && budget.prices.out > 0)
      left = Math.min(
        left,
        ((budget.maxCostUsd - costUsd(budget.prices, { prompt: p, completion: c })) * 1e6) / budget.prices.out,
      );
    return Math.max(0, Math.floor(left));
  }

  private fits(budget: Budget, worst: { prompt: number; completion: number | null }): boolean {
    const p = this.spent.prompt + this.held.prompt + worst.prompt;
    const c = this.spent.completion + this.held.completion + (worst.completion ?? 0);
    // Unbounded: it must at least leave room for one completion token.
    const extra = worst.completion === null ? 1 : 0;
    if (budget.maxTotalTokens !== null && p + c + extra > budget.maxTotalTokens) return false;
    if (budget.maxCostUsd !== null && budget.prices !== null) {
      const cost = costUsd(budget.prices, { prompt: p, completion: c + extra });
      if (cost > budget.maxCostUsd) return false;
    }
    return true;
  }

  private exhaust(budget: Budget, worst: { prompt: number; completion: number | null }): void {
    if (this.exhausted !== null) return;
    const spent = this.spent.prompt + this.spent.completion;
    const next = worst.prompt + (worst.completion ?? 0);
    const limits = [
      budget.maxCostUsd !== null ? `--max-cost ${budget.maxCostUsd}` : null,
      budget.maxTotalTokens !== null ? `--max-total-tokens ${budget.maxTotalTokens}` : null,
    ].filter((x) => x !== null);
    const usd = budget.prices ? ` ($${costUsd(budget.prices, this.spent).toFixed(4)})` : '';
    this.exhausted = `the budget is spent: ${spent.toLocaleString('en-US')} tokens${usd} so far, and the next request may take up to ${next.toLocaleString('en-US')} more, past ${limits.join(' and ')}`;
    this.o.onExhausted?.(this.exhausted);
    // Whoever waits will never fit either.
    for (const w of this.waiters.splice(0)) {
      w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(null);
    }
  }

  /** Lets waiters in, in order, while they fit. */
  private wake(): void {
    while (this.waiters.length > 0 && this.exhausted === null) {
      const w = this.waiters[0]!;
      this.waiters.shift();
      const h = this.tryHold(w.bytes, true);
      if (h === undefined) {
        this.waiters.unshift(w);
        return;
      }
      // null: the budget is spent (exhaust() has answered the others).
      w.signal.removeEventListener('abort', w.onAbort);
      w.resolve(h);
    }
  }
}

/** The cost of `t` at `prices` (US dollars per million tokens). */
function costUsd(prices: { in: number; out: number }, t: Tokens): number {
  return (t.prompt * prices.in + t.completion * prices.out) / 1e6;
}
