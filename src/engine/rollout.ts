/**
 * One episode: ask for a reply, retrying transient failures, all inside the episode
 * deadline. Returns a reply to score, a classified failure, or "aborted" when the run was
 * stopped (Ctrl-C, a fatal error elsewhere) before the episode finished. Either way it says
 * what the episode's attempts cost: the usage of every attempt that got a response body
 * reporting one, summed, unusable replies included (the provider bills them all the same).
 */
import type { ChatMessage } from '../task/types.js';
import { classifyError, type Failure } from '../endpoint/classify.js';
import { waitedOnBudget } from '../endpoint/reply-budget.js';
import type { ModelClient } from '../endpoint/client.js';
import { addUsage, type Completion, type Usage } from '../endpoint/completion.js';
import { MalformedResponseError } from '../errors/index.js';
import { asClause } from '../io/outside-text.js';
import type { AnswerSignals, AttemptOutcome, Pace, Ticket } from '../endpoint/pace.js';
import type { Billed, Hold, Spend } from './spend.js';
import { isUnreachable } from './first-contact.js';
import { plannedDelay, sleep, type RetryPolicy } from '../endpoint/retry.js';

export interface EpisodeOptions {
  client: ModelClient;
  policy: RetryPolicy;
  /** Bounds the whole episode, every attempt and every wait included. */
  episodeTimeoutMs: number;
  /** Bounds one attempt. */
  requestTimeoutMs: number;
  /** Aborts everything in flight when the run stops. */
  stop: AbortSignal;
  /** Told about each retry before its wait starts. */
  onRetry?: (attempt: number, delayMs: number, failure: Failure) => void;
  /** Told how each attempt ended (null: a reply), for the run's fail-fast checks. */
  onAttempt?: (failure: Failure | null) => void;
  /** The run's gate: every attempt holds one of its slots while it is in flight. */
  pace?: Pace;
  /** The run's spend: every attempt holds a reservation of its worst case while it is out (spend.ts). */
  spend?: Spend;
  /** The prompt's size in UTF-8 bytes, for the spend's estimate of its tokens. */
  promptBytes?: number;
  random?: () => number;
  /** Which sample of the task this episode is (0-based): part of what is asked (the response cache keys on it). */
  rollout?: number;
}

/**
 * `usage` is the sum over the episode's attempts (null when none reported any); a reply's
 * `completion.usage` is its own attempt's alone.
 */
export type EpisodeResult =
  | { kind: 'reply'; completion: Completion; attempts: number; latencyMs: number; usage: Usage | null }
  | {
      kind: 'failed';
      failure: Failure;
      attempts: number;
      latencyMs: number;
      usage: Usage | null;
      /** The last attempt's `finish_reason`, when it got a reply that could not be scored. */
      finishReason: string | null;
    }
  | {
      kind: 'aborted';
      /** What the attempts that came back before the stop reported (they were billed all the same). */
      usage: Usage | null;
      /** True when the stop cut a request in flight: sent, its reply never read (its cost unknown). */
      inFlight: boolean;
    };

/** The usage a failed attempt's response reported: an unusable reply is still a billed one. */
function usageOf(err: unknown): Usage | null {
  return err instanceof MalformedResponseError ? err.usage : null;
}

/** An attempt admitted: its request slot and its budget reservation (either null when not used). */
interface Admitted {
  ticket: Ticket | null;
  hold: Hold | null;
}

/** One episode's attempts, within its deadline (runEpisode). */
class Episode {
  private readonly deadline: number;
  // The latency is read on the clock the time to first token is read on (performance.now(),
  // rounded the same way), so a streamed reply's first token never comes after its end.
  private readonly began = performance.now();
  // Failures count against --max-retries; waiting turns (429s) only against the deadline.
  private failures = 0;
  private waits = 0;
  /** The last wait of a waiting turn: the next one is at least twice as long (retry.ts). */
  private lastWait = 0;
  private usage: Usage | null = null;
  private finishReason: string | null = null;

  constructor(
    private readonly messages: readonly ChatMessage[],
    private readonly o: EpisodeOptions,
  ) {
    this.deadline = Date.now() + o.episodeTimeoutMs;
  }

  private latency(): number {
    return Math.round(performance.now() - this.began);
  }

  private failed(failure: Failure, attempts: number): EpisodeResult {
    const { usage, finishReason } = this;
    return { kind: 'failed', failure, attempts, latencyMs: this.latency(), usage, finishReason };
  }

  async run(): Promise<EpisodeResult> {
    const o = this.o;
    // A reply the response cache holds sends nothing: it takes no request slot, and no budget
    // (a spent budget does not stop what costs nothing).
    const hit = o.stop.aborted
      ? null
      : (o.client.cached?.(this.messages, { rollout: o.rollout ?? 0, attempt: 1 }) ?? null);
    if (hit) {
      o.onAttempt?.(null);
      return {
        kind: 'reply',
        completion: hit,
        attempts: 1,
        latencyMs: this.latency(),
        usage: addUsage(null, hit.usage),
      };
    }
    for (let attempt = 1; ; attempt++) {
      const admitted = await this.admit(attempt);
      if ('kind' in admitted) return admitted;
      const sent = await this.send(attempt, admitted);
      if ('kind' in sent) return sent;
      const ended = await this.retryOrEnd(sent.failure, attempt);
      if (ended) return ended;
    }
  }

  /** A request slot and the budget's reservation for the next attempt, or how the episode ends without one. */
  private async admit(attempt: number): Promise<Admitted | EpisodeResult> {
    const o = this.o;
    // A free slot is taken at once; only a run held back by its limit waits for one.
    const ticket = o.pace ? (o.pace.tryAcquire() ?? (await slot(o.pace, o.stop, attempt > 1, this.deadline))) : null;
    // The budget's reservation, taken after the slot: a request waits for it holding its slot,
    // so the requests in flight (whose return may make room) are never kept from theirs.
    let hold: Hold | null = null;
    if (o.spend && !o.stop.aborted) {
      const now = o.spend.tryAcquire(o.promptBytes ?? 0, o.stop);
      hold = now !== undefined ? now : await o.spend.acquire(o.promptBytes ?? 0, o.stop);
    }
    const stopped = o.stop.aborted || (o.spend && hold === null);
    if (!stopped && this.deadline - Date.now() > 0) return { ticket, hold };
    if (ticket) o.pace!.release(ticket, 'other');
    if (hold) o.spend!.settle(hold, null, 'none');
    if (stopped) return { kind: 'aborted', usage: this.usage, inFlight: false };
    const waited = o.pace && !ticket ? ' while waiting for a free request slot (the endpoint is rate limiting)' : '';
    const message = `episode deadline of ${o.episodeTimeoutMs / 1000} s passed${waited}`;
    return this.failed({ type: 'timeout', message, status: null, retryAfterMs: null, fatal: false }, attempt - 1);
  }

  /** One request: its reply, the stop that cut it, or its failure (classified, its cost settled). */
  private async send(attempt: number, { ticket, hold }: Admitted): Promise<EpisodeResult | { failure: Failure }> {
    const o = this.o;
    const remaining = this.deadline - Date.now();
    const bound = o.client.inProcess
      ? inProcessAttempt(o.stop)
      : boundAttempt(o.stop, Math.min(o.requestTimeoutMs, remaining));
    let failure: Failure | null = null;
    let outcome: AttemptOutcome = 'other';
    let signals: AnswerSignals = {};
    try {
      const completion = await o.client.complete(this.messages, bound.signal, { rollout: o.rollout ?? 0, attempt });
      outcome = completion.rate_limits?.spent ? 'spent' : 'ok';
      signals = { limits: completion.rate_limits ?? null, tokens: completion.usage?.total_tokens ?? null };
      this.usage = addUsage(this.usage, completion.usage);
      if (hold) o.spend!.settle(hold, completion.usage, 'reply');
      o.onAttempt?.(null);
      return { kind: 'reply', completion, attempts: attempt, latencyMs: this.latency(), usage: this.usage };
    } catch (err) {
      this.usage = addUsage(this.usage, usageOf(err));
      this.finishReason = err instanceof MalformedResponseError ? err.finishReason : null;
      if (o.stop.aborted) {
        if (hold) o.spend!.abandon(hold);
        return { kind: 'aborted', usage: this.usage, inFlight: true };
      }
      const timedOut = bound.timedOut();
      failure = classifyError(err, timedOut);
      if (hold) o.spend!.settle(hold, usageOf(err), billedAs(err, failure));
      if (failure.type === 'rate_limit') {
        outcome = 'limited';
        signals = { limits: failure.rateLimits ?? null };
      }
      if (timedOut) failure.message = this.timeoutMessage(remaining, bound.signal);
      return { failure };
    } finally {
      bound.done();
      // A wait past the deadline fails this rollout at once; it does not close the gate for
      // the others either (they learn it from their own requests, or first contact stops the run).
      const hint = outcome === 'limited' ? failure!.retryAfterMs : null;
      if (ticket)
        o.pace!.release(ticket, outcome, hint !== null && hint < this.deadline - Date.now() ? hint : null, signals);
    }
  }

  /** Why an attempt that timed out did: its own timeout or the episode's deadline, and whether memory held its reply. */
  private timeoutMessage(remaining: number, signal: AbortSignal): string {
    const o = this.o;
    const cut =
      remaining < o.requestTimeoutMs
        ? `episode deadline of ${o.episodeTimeoutMs / 1000} s`
        : `request timeout of ${o.requestTimeoutMs / 1000} s`;
    // A reply held back by the memory budget is not a slow endpoint: say which it was.
    const held = waitedOnBudget(signal)
      ? '; the reply was waiting for memory, since the replies in flight filled their budget (BAS_REPLY_BUDGET_MB)'
      : '';
    return `no reply within the ${cut}${held}`;
  }

  /** After a failed attempt: wait and return null to try again, or how the episode ends. */
  private async retryOrEnd(failure: Failure, attempt: number): Promise<EpisodeResult | null> {
    const o = this.o;
    o.onAttempt?.(failure);
    if (failure.fatal) return this.failed(failure, attempt);
    const waiting = o.policy.waitOn.includes(failure.type);
    // A short hint the pace answers by spacing requests is not waited out whole (pace.ts).
    const spaced = waiting && o.pace?.spaces(failure.retryAfterMs ?? null) === true;
    const planned = spaced ? { ...failure, retryAfterMs: null } : failure;
    const delay = plannedDelay(o.policy, waiting ? this.waits++ : this.failures++, planned, o.random, this.lastWait);
    const left = this.deadline - Date.now();
    if (delay === null || delay >= left) {
      // A server that asks for a wait past the deadline is not waited for: the rollout fails now.
      if (delay !== null && failure.retryAfterMs != null && failure.retryAfterMs >= left) {
        failure.message = `${asClause(failure.message)}; the server asked to wait ${seconds(failure.retryAfterMs)}, more than the ${seconds(Math.max(0, left))} left of the episode`;
        failure.pastDeadline = true;
      }
      if (attempt > 1) failure.message += ` (after ${attempt} attempts)`;
      return this.failed(failure, attempt);
    }
    if (waiting) this.lastWait = delay;
    o.onRetry?.(attempt, delay, failure);
    await sleep(delay, o.stop);
    return o.stop.aborted ? { kind: 'aborted', usage: this.usage, inFlight: false } : null;
  }
}

/** Runs one episode for `messages`. Never throws for a model or network problem. */
export async function runEpisode(messages: readonly ChatMessage[], o: EpisodeOptions): Promise<EpisodeResult> {
  return new Episode(messages, o).run();
}

/** What a failed attempt is charged: a 200 its usage, a refusal nothing, a reply lost on its way its worst case. */
function billedAs(err: unknown, f: Failure): Billed {
  if (err instanceof MalformedResponseError) return 'reply';
  if (f.type === 'timeout' || f.type === 'response_too_large') return 'unknown';
  if (f.type === 'network') return isUnreachable(f) ? 'none' : 'unknown';
  return 'none';
}

/** One attempt's signal: aborted by the run's stop or by the attempt's timeout. */
interface AttemptBound {
  readonly signal: AbortSignal;
  /** Whether the timeout (not the stop) aborted it. */
  timedOut(): boolean;
  /** The attempt is over: its timer and its hold on the stop signal go. */
  done(): void;
}

/** An attempt of a client that talks to something outside the process: a timer and a signal of its own. */
function boundAttempt(stop: AbortSignal, timeoutMs: number): AttemptBound {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onStop = (): void => controller.abort();
  stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    },
  };
}

/**
 * An attempt of an in-process client (a built-in policy), which replies at once: it sees the
 * run's stop signal, and no timer or signal is made for it. Node's AbortSignals outlive every
 * young collection whatever holds them (docs/performance.md), so one per attempt was the
 * largest part of what a long built-in run promoted to the old generation.
 */
function inProcessAttempt(stop: AbortSignal): AttemptBound {
  return { signal: stop, timedOut: () => false, done: () => {} };
}

/** A slot from the gate, or null when the run stopped or the deadline passed first. */
async function slot(pace: Pace, stop: AbortSignal, retry: boolean, deadline: number): Promise<Ticket | null> {
  const wait = new AbortController();
  const onStop = (): void => wait.abort();
  stop.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(() => wait.abort(), Math.max(0, deadline - Date.now()));
  try {
    return await pace.acquire(wait.signal, retry);
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

/** A wait as people read it: `999999 s`, `1.5 s`. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 3 })} s`;
}
