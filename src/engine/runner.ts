/**
 * The runner: every (index, rollout) pair through one episode, at most `concurrency` at a
 * time, each finished rollout handed to `sink` as a record the moment it ends. It emits
 * events and knows nothing about how (or whether) they are shown.
 */
import { setMaxListeners } from 'node:events';
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
import { Spend, type Budget, type Tokens } from './spend.js';
import type { SessionSpend } from '../runfile/sessions.js';
import type { RunStop } from './stop.js';

type Finished = Exclude<EpisodeResult, { kind: 'aborted' }>;

/**
 * How long the slow start waits on its one rollout before it opens the run anyway. The
 * refusals of a run that can only fail (a bad key, a model the endpoint does not serve, a
 * parameter it rejects) come back in well under a second, so these still cost at most three
 * requests; a first reply that is merely slow (a reasoning model, a cold server, a stalled
 * stream) no longer holds every other rollout for the whole of it: with a 480 s episode and
 * slow replies, each run started one full reply late. The price: a reply that is unusable
 * every time (empty, cut by the token limit) and slower than this costs up to -c requests
 * before first contact stops the run, not 3.
 */
const FIRST_REPLY_PATIENCE_MS = 10_000;

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
  /** The prompt's size in UTF-8 bytes: what the spend estimates its tokens from. */
  readonly bytes: number;
}

function runTask(config: TaskConfig, index: number): RunTask {
  const { prompt, key, ledger } = generateTask(config, index);
  let bytes = 0;
  for (const m of prompt) bytes += Buffer.byteLength(m.content);
  return { index, config: { ...config }, prompt, key, figures: ledgerFigures(ledger), bytes };
}

/** One turn of the event loop: pending I/O runs before what follows. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The pairs to run, each with its task, generated as it is reached; a task is kept while
 * its rollouts are handed out. `prepare` takes pairs ahead of `take` (the runner does so only
 * during the slow start, and for at most one wave).
 */
class PairQueue {
  private readonly pairs: Iterator<readonly [number, number]>;
  private readonly ahead: Array<{ task: RunTask; rollout: number }> = [];
  private task: RunTask | null = null;

  constructor(
    pairs: Iterable<readonly [number, number]>,
    private readonly config: TaskConfig,
  ) {
    this.pairs = pairs[Symbol.iterator]();
  }

  /** Pairs prepared ahead. */
  get ready(): number {
    return this.ahead.length;
  }

  /** Prepares the next pair ahead; false when there is none. */
  prepare(): boolean {
    const next = this.pull();
    if (next) this.ahead.push(next);
    return next !== null;
  }

  /** The next pair with its task, or null when every pair was taken. */
  take(): { task: RunTask; rollout: number } | null {
    return this.ahead.shift() ?? this.pull();
  }

  private pull(): { task: RunTask; rollout: number } | null {
    const step = this.pairs.next();
    if (step.done) return null;
    const [index, rollout] = step.value;
    if (this.task?.index !== index) this.task = runTask(this.config, index);
    return { task: this.task, rollout };
  }
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
  retry: { index: number; rollout: number; attempt: number; delay_ms: number; failure: Failure };
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
  /** The `--max-tokens` sent with each request (bounds each request's worst case), or null. */
  maxTokens?: number | null;
  /** `--max-cost` / `--max-total-tokens`: no request starts that could take the run past them. */
  budget?: Budget | null;
  /** What earlier sessions of the run spent, counted against the budget. */
  spentBefore?: Tokens;
  /**
   * Send the first rollout alone and open to `concurrency` once first contact is made (default:
   * true, except for an in-process client, which costs nothing and cannot fail to be reached).
   */
  slowStart?: boolean;
}

export interface RunOutcome {
  /** True when stop() was called before every pair ran. */
  stopped: boolean;
  /** Why the run stopped (the first reason given), or null when it was not stopped. */
  stop: RunStop | null;
  /** The failure that stopped the run (a refused key, an unknown model), if any: `stop.failure` of a `fatal` stop. */
  fatal: Failure | null;
  /** How the requests in flight were paced. */
  pace: PaceRecord;
  /** What this session spent beside its records: unrecorded rollouts' usage, requests abandoned in flight. */
  spend: SessionSpend;
}

export class Runner {
  private readonly listeners: { [K in keyof RunnerEvents]?: Array<Listener<K>> } = {};
  private readonly abort = new AbortController();
  private reason: RunStop | null = null;
  private readonly pace: Pace;
  private readonly contact: FirstContact;
  private readonly spend: Spend;
  /** Wakes the loop of run() (a pair settled, or first contact was made). */
  private wake: (() => void) | null = null;
  private readonly slowStart: boolean;
  /** False once a rollout of the slow start was out for FIRST_REPLY_PATIENCE_MS: it was not refused at once. */
  private patient = true;

  constructor(private readonly o: RunnerOptions) {
    // Every episode in flight listens to the stop signal: that is c listeners, not a leak.
    setMaxListeners(0, this.abort.signal);
    this.pace = new Pace({ max: o.concurrency, adaptive: o.adaptive ?? true });
    this.pace.onChange = (limit) => this.emit('pace', { limit });
    this.contact = new FirstContact(o.endpoint ?? 'the endpoint');
    this.slowStart = o.slowStart ?? !o.client.inProcess;
    this.spend = new Spend({
      maxTokens: o.maxTokens ?? null,
      budget: o.budget ?? null,
      before: o.spentBefore ?? { prompt: 0, completion: 0 },
      free: o.client.inProcess === true,
      onExhausted: (message) => this.stop({ kind: 'budget', message }),
    });
  }

  /** The number of requests allowed in flight now. */
  get limit(): number {
    return this.pace.limit;
  }

  /** Stops the run for `failure` (the first reason wins). */
  private stopFor(failure: Failure): void {
    this.stop({ kind: 'fatal', message: failure.message, failure });
  }

  on<K extends keyof RunnerEvents>(event: K, fn: Listener<K>): this {
    ((this.listeners[event] ??= []) as Array<Listener<K>>).push(fn);
    return this;
  }

  private emit<K extends keyof RunnerEvents>(event: K, payload: RunnerEvents[K]): void {
    for (const fn of (this.listeners[event] ?? []) as Array<Listener<K>>) fn(payload);
  }

  /**
   * Stops the run for `reason` (the first reason given wins): no new request starts, the
   * requests in flight are aborted and counted as abandoned (spend.ts), and their rollouts
   * are not recorded (a resume runs them). Rollouts that came back before the stop are
   * recorded as usual. Safe to call from a `sink` or an event listener, any number of times.
   */
  stop(reason: RunStop = { kind: 'interrupted', message: 'interrupted' }): void {
    this.reason ??= reason;
    this.abort.abort();
    this.nudge();
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Why the run stopped, or null. */
  get stopReason(): RunStop | null {
    return this.reason;
  }

  /** Requests out now (sent, their reply not yet read). */
  get inFlight(): number {
    return this.spend.inFlight;
  }

  private nudge(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /**
   * Runs the pairs in order. Tasks are generated as they are reached (one kept while its
   * rollouts are handed out; during the slow start, a wave ahead), and at most twice `concurrency` pairs are held: those in flight
   * and a whole wave prepared behind them. Memory does not grow with the number of pairs, and
   * a reply finds its slot's next request ready to go: preparing it happens while requests
   * wait on the model, not between a reply and the next request.
   */
  async run(pairs: Iterable<readonly [number, number]>): Promise<RunOutcome> {
    // Pairs started and not yet settled. A count, not a set of their promises: a set that
    // lives the whole run and grows and shrinks by one on every pair reallocates its table,
    // and each table outlives the young collections.
    let open = 0;
    // Pairs whose episode is still running (their scoring may still wait in the backlog).
    let running = 0;
    let failure: unknown = null;
    const backlog = new Backlog();
    const held = 2 * this.o.concurrency;
    const queue = new PairQueue(pairs, this.o.taskConfig);
    for (;;) {
      // Slow start: until first contact is made (a reply came back, or the first-contact rule
      // can no longer stop the run), one rollout at a time, so an endpoint that can only fail
      // is paid for at most three requests (first-contact.ts) whatever -c is; no longer than
      // FIRST_REPLY_PATIENCE_MS on one rollout.
      await this.untilFree(
        queue,
        () => running + backlog.size,
        held,
        () => running,
      );
      if (this.stopped) break;
      // A pair prepared while the slots were busy starts at once, in the same turn as the reply
      // that freed its slot: a burst of replies sends its follow-ups before any is scored.
      const prepared = queue.ready > 0;
      const next = queue.take();
      if (!next) break;
      const { task: t, rollout } = next;
      // The slot is held for the episode only; scoring and recording go to the backlog, so a
      // burst of replies sends its follow-up requests first.
      open++;
      running++;
      const watched = this.holdingStart ? this.watchFirst() : null;
      void this.episode(t, rollout)
        .then((result) => {
          running--;
          this.nudge();
          return result ? backlog.later(() => this.finish(t, rollout, result)) : undefined;
        })
        .catch((err: unknown) => {
          // A bug, not a model problem: stop and report it rather than record it as data.
          failure ??= err;
          this.stop();
        })
        .finally(() => {
          if (watched) clearTimeout(watched);
          open--;
          this.nudge();
        });
      // Let pending I/O run before preparing the next pair: in the first wave each request
      // leaves before the next is prepared (rather than the whole cold burst being prepared
      // before any byte goes out), and later a reply is never kept waiting behind a run of
      // preparation.
      if (!prepared) await nextTurn();
    }
    while (open > 0) await new Promise<void>((resolve) => (this.wake = resolve));
    if (failure) throw failure;
    return this.outcome();
  }

  /** How the run ended, once every pair has settled. */
  private outcome(): RunOutcome {
    const stop = this.reason;
    return {
      stopped: this.stopped,
      stop,
      fatal: stop?.kind === 'fatal' ? (stop.failure ?? null) : null,
      pace: this.pace.record(),
      spend: this.spend.record(),
    };
  }

  /**
   * Resolves once the next pair may start (or the run stopped). While the slow start holds
   * the run to its one request, the first wave's tasks are prepared meanwhile, one per turn
   * of the event loop: once the run opens, each slot's request leaves without waiting for
   * its task to be generated, and the generator's code is warm by then.
   */
  private async untilFree(queue: PairQueue, holding: () => number, held: number, running: () => number): Promise<void> {
    while (this.mustWait(holding(), held, running())) {
      // A wave is prepared while the slots are busy, so a freed slot's next request is ready.
      if (queue.ready < this.o.concurrency && queue.prepare()) {
        await nextTurn();
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /**
   * Whether the next pair must wait: `running` episodes fill `--concurrency` (an episode's
   * timeout runs from its start, so none starts to wait for a request slot), `holding` pairs
   * are held of at most `held`, or the slow start keeps one rollout at a time while `running` is
   * not zero. Never once the run stopped. The requests in flight are capped by the pace alone
   * (endpoint/pace.ts), which may hold them below `--concurrency` under rate limits.
   */
  private mustWait(holding: number, held: number, running: number): boolean {
    if (this.stopped) return false;
    if (running >= this.o.concurrency || holding >= held) return true;
    return running > 0 && this.holdingStart;
  }

  /** True while the slow start holds the run to one rollout at a time. */
  private get holdingStart(): boolean {
    return this.slowStart && this.patient && !this.contact.settled;
  }

  /** Opens the run when the slow start's rollout is still out after FIRST_REPLY_PATIENCE_MS. */
  private watchFirst(): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.patient = false;
      this.nudge();
    }, FIRST_REPLY_PATIENCE_MS);
    // The episode holds timers of its own; this one alone must not keep the process alive.
    timer.unref();
    return timer;
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
      onRetry: (attempt, delayMs, f) => this.emit('retry', { index, rollout, attempt, delay_ms: delayMs, failure: f }),
      onAttempt: (f) => {
        const unreachable = this.contact.attempt(f);
        if (unreachable) this.stopFor(unreachable);
      },
      pace: this.pace,
      spend: this.spend,
      promptBytes: task.bytes,
      rollout,
    });
    if (result.kind === 'aborted') {
      // Not recorded (a resume runs it again), but what came back of it was billed.
      this.spend.unrecorded(result.usage);
      return null;
    }
    if (result.kind === 'failed' && result.failure.fatal) {
      // The first refusal stops the run; the rollout is left unrecorded so a resume redoes it.
      this.spend.unrecorded(result.usage);
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
