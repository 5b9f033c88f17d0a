/**
 * The runner: every (index, rollout) pair through one episode, at most `concurrency` at a
 * time, each finished rollout handed to `sink` as a record the moment it ends. It emits
 * events and knows nothing about how (or whether) they are shown.
 */
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { generateTask } from '../task/generate.js';
import { scoreReply } from '../task/score.js';
import type { AnswerKey, ChatMessage, TaskConfig } from '../task/types.js';
import { ledgerFigures, type LedgerFigures } from '../task/implied.js';
import { erroredRecord, scoredRecord, type RolloutRecord } from '../runfile/record.js';
import type { Failure } from '../endpoint/classify.js';
import type { ModelClient } from '../endpoint/client.js';
import { FirstContact } from './first-contact.js';
import { Pace } from '../endpoint/pace.js';
import type { PaceRecord } from '../runfile/sessions.js';
import { runEpisode, type EpisodeResult } from './rollout.js';
import type { RetryPolicy } from '../endpoint/retry.js';

type Finished = Exclude<EpisodeResult, { kind: 'aborted' }>;

/**
 * A task as the runner holds it: the prompt, the answer key and each row's figures, nothing else. A run holds
 * up to two waves of tasks, and in a latency-bound run every one of them outlives a young
 * garbage collection; keeping the whole ledger (its text, or what was injected) would only make each of
 * those collections copy more.
 */
interface RunTask {
  readonly index: number;
  readonly config: TaskConfig;
  readonly prompt: ChatMessage[];
  readonly key: AnswerKey;
  /** Each row's id, type, amount and GST: what grading a reply's consistency needs of the ledger. */
  readonly figures: LedgerFigures;
}

function runTask(config: TaskConfig, index: number): RunTask {
  const { prompt, key, ledger } = generateTask(config, index);
  return { index, config: { ...config }, prompt, key, figures: ledgerFigures(ledger) };
}

/**
 * Work that can wait (scoring and recording finished rollouts), done in slices of about a
 * millisecond per turn of the event loop, so replies that arrive meanwhile send their
 * follow-up requests first. In a latency-bound run this is what keeps the chain from a reply
 * to the next request short; the total work is the same. The runner counts what is waiting
 * here among the pairs it holds, so the backlog cannot grow without bound when replies come
 * faster than they are scored.
 */
class Backlog {
  private readonly jobs: Array<() => void> = [];
  private head = 0;
  private scheduled = false;

  get size(): number {
    return this.jobs.length - this.head;
  }

  /** Runs `fn` on a later turn, settling with its outcome. */
  later(fn: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.jobs.push(() => {
        try {
          fn();
          resolve();
        } catch (err) {
          reject(err);
        }
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.size === 0) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    do this.jobs[this.head++]!();
    while (this.size > 0 && performance.now() < until);
    if (this.size === 0 || (this.head > 1024 && this.head * 2 > this.jobs.length)) {
      this.jobs.splice(0, this.head);
      this.head = 0;
    }
    this.schedule();
  };
}

/** How long the backlog may keep the event loop per turn. */
const SLICE_MS = 1;

/** What the runner tells its listeners. */
export interface RunnerEvents {
  start: { index: number; rollout: number };
  retry: { index: number; rollout: number; attempt: number; delayMs: number; failure: Failure };
  /** A rollout ended with a score. */
  done: { record: RolloutRecord };
  /** A rollout ended with a typed error. */
  error: { record: RolloutRecord };
  /** The number of requests allowed in flight changed. */
  pace: { limit: number };
}

type Listener<K extends keyof RunnerEvents> = (event: RunnerEvents[K]) => void;

export interface RunnerOptions {
  taskConfig: TaskConfig;
  model: string;
  client: ModelClient;
  policy: RetryPolicy;
  concurrency: number;
  episodeTimeoutMs: number;
  requestTimeoutMs: number;
  /** Adapt the requests in flight to rate limits (default true); false keeps `concurrency`. */
  adaptive?: boolean;
  /** The endpoint as named in a fail-fast message (default "the endpoint"). */
  endpoint?: string;
  /** Called once per finished rollout, synchronously, before the next event. */
  sink: (record: RolloutRecord) => void;
}

export interface RunOutcome {
  /** True when stop() was called before every pair ran. */
  stopped: boolean;
  /** The failure that stopped the run (a refused key, an unknown model), if any. */
  fatal: Failure | null;
  /** How the requests in flight were paced. */
  pace: PaceRecord;
}

export class Runner {
  private readonly listeners: { [K in keyof RunnerEvents]?: Array<Listener<K>> } = {};
  private readonly abort = new AbortController();
  private fatal: Failure | null = null;
  private readonly pace: Pace;
  private readonly contact: FirstContact;

  constructor(private readonly o: RunnerOptions) {
    // Every episode in flight listens to the stop signal: that is c listeners, not a leak.
    setMaxListeners(0, this.abort.signal);
    this.pace = new Pace({ max: o.concurrency, adaptive: o.adaptive ?? true });
    this.pace.onChange = (limit) => this.emit('pace', { limit });
    this.contact = new FirstContact(o.endpoint ?? 'the endpoint');
  }

  /** The number of requests allowed in flight now. */
  get limit(): number {
    return this.pace.limit;
  }

  /** Stops the run for `failure` (the first such reason wins). */
  private stopFor(failure: Failure): void {
    this.fatal ??= failure;
    this.stop();
  }

  on<K extends keyof RunnerEvents>(event: K, fn: Listener<K>): this {
    ((this.listeners[event] ??= []) as Array<Listener<K>>).push(fn);
    return this;
  }

  private emit<K extends keyof RunnerEvents>(event: K, payload: RunnerEvents[K]): void {
    for (const fn of (this.listeners[event] ?? []) as Array<Listener<K>>) fn(payload);
  }

  /** Starts no new rollout and aborts those in flight; they are not recorded. */
  stop(): void {
    this.abort.abort();
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /**
   * Runs the pairs in order. Tasks are generated as they are reached (one kept while its
   * rollouts are handed out), and at most twice `concurrency` pairs are held: those in flight
   * and a whole wave prepared behind them. Memory does not grow with the number of pairs, and
   * a reply finds its slot's next request ready to go: preparing it happens while requests
   * wait on the model, not between a reply and the next request.
   */
  async run(pairs: Iterable<readonly [number, number]>): Promise<RunOutcome> {
    const limit = pLimit(this.o.concurrency);
    // Pairs started and not yet settled. A count, not a set of their promises: a set that
    // lives the whole run and grows and shrinks by one on every pair reallocates its table,
    // and each table outlives the young collections.
    let open = 0;
    let wake: (() => void) | null = null;
    let failure: unknown = null;
    let task: RunTask | null = null;
    const backlog = new Backlog();
    const held = 2 * this.o.concurrency;
    for (const [index, rollout] of pairs) {
      while (limit.activeCount + limit.pendingCount + backlog.size >= held && !this.stopped) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      if (this.stopped) break;
      if (task?.index !== index) task = runTask(this.o.taskConfig, index);
      const t = task;
      // The slot is held for the episode only; scoring and recording go to the backlog, so a
      // burst of replies sends its follow-up requests first.
      open++;
      void limit(() => this.episode(t, rollout))
        .then((result) => (result ? backlog.later(() => this.finish(t, rollout, result)) : undefined))
        .catch((err: unknown) => {
          // A bug, not a model problem: stop and report it rather than record it as data.
          failure ??= err;
          this.stop();
        })
        .finally(() => {
          open--;
          const w = wake;
          wake = null;
          w?.();
        });
      // Let pending I/O run before preparing the next pair: in the first wave each request
      // leaves before the next is prepared (rather than the whole cold burst being prepared
      // before any byte goes out), and later a reply is never kept waiting behind a run of
      // preparation.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (open > 0) await new Promise<void>((resolve) => (wake = resolve));
    if (failure) throw failure;
    return { stopped: this.stopped, fatal: this.fatal, pace: this.pace.record() };
  }

  /** Runs the episode; null when it was aborted or stopped the run. */
  private async episode(task: RunTask, rollout: number): Promise<Finished | null> {
    if (this.stopped) return null;
    const { index } = task;
    this.emit('start', { index, rollout });
    const result = await runEpisode(task.prompt, {
      client: this.o.client,
      policy: this.o.policy,
      episodeTimeoutMs: this.o.episodeTimeoutMs,
      requestTimeoutMs: this.o.requestTimeoutMs,
      stop: this.abort.signal,
      onRetry: (attempt, delayMs, f) => this.emit('retry', { index, rollout, attempt, delayMs, failure: f }),
      onAttempt: (f) => {
        const unreachable = this.contact.attempt(f);
        if (unreachable) this.stopFor(unreachable);
      },
      pace: this.pace,
      rollout,
    });
    if (result.kind === 'aborted') return null;
    if (result.kind === 'failed' && result.failure.fatal) {
      // The first refusal stops the run; the rollout is left unrecorded so a resume redoes it.
      this.stopFor(result.failure);
      return null;
    }
    // The same refusal on every first rollout stops the run too; those rollouts are data.
    const refused = this.contact.rollout(result.kind === 'failed' ? result.failure : null);
    if (refused) this.stopFor(refused);
    return result;
  }

  /** Scores (or records the failure of) a finished episode and hands the record on. */
  private finish(task: RunTask, rollout: number, result: Finished): void {
    const { index } = task;
    const base = { index, rollout, config: task.config, model: this.o.model };
    // A reply from the response cache keeps the times and usage of when it was first received.
    const cached = result.kind === 'reply' ? result.completion.cached : undefined;
    const record: RolloutRecord =
      result.kind === 'reply'
        ? scoredRecord(base, result.completion.text, scoreReply(result.completion.text, task.key, task.figures), {
            latency_ms: cached ? cached.latency_ms : result.latencyMs,
            // Only streamed replies know it; other records stay as they were.
            ttft_ms: (cached ? cached.ttft_ms : result.completion.ttft_ms) ?? undefined,
            usage: result.usage,
            finish_reason: result.completion.finish_reason,
            attempts: result.attempts,
            cached: cached ? true : undefined,
          })
        : // Paid for all the same: an unusable reply (or a retried one) reported its tokens.
          erroredRecord(base, result.failure, {
            latency_ms: result.latencyMs,
            usage: result.usage,
            finish_reason: result.finishReason,
            attempts: result.attempts,
          });
    this.o.sink(record);
    // The reply is on its way to the file: its memory goes back to the budget for replies.
    if (result.kind === 'reply') result.completion.release?.();
    this.emit(record.error ? 'error' : 'done', { record });
  }
}
