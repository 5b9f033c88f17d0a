/**
 * The runner: every (index, rollout) pair through one episode, at most `concurrency` at a
 * time, each finished rollout handed to `sink` as a record the moment it ends. It emits
 * events and knows nothing about how (or whether) they are shown.
 */
import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { generateTask } from '../task/generate.js';
import { scoreReply } from '../task/score.js';
import type { Task, TaskConfig } from '../task/types.js';
import type { RolloutRecord } from '../report/record.js';
import type { Failure } from './classify.js';
import type { ModelClient } from './client.js';
import { runEpisode, type EpisodeResult } from './rollout.js';
import type { RetryPolicy } from './retry.js';

type Finished = Exclude<EpisodeResult, { kind: 'aborted' }>;

/** Runs `fn` on a later turn of the event loop (after pending I/O), settling with its outcome. */
function nextTurn(fn: () => void): Promise<void> {
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        fn();
        resolve();
      } catch (err) {
        reject(err);
      }
    }),
  );
}

/** What the runner tells its listeners. */
export interface RunnerEvents {
  start: { index: number; rollout: number };
  retry: { index: number; rollout: number; attempt: number; delayMs: number; failure: Failure };
  /** A rollout ended with a score. */
  done: { record: RolloutRecord };
  /** A rollout ended with a typed error. */
  error: { record: RolloutRecord };
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
  /** Called once per finished rollout, synchronously, before the next event. */
  sink: (record: RolloutRecord) => void;
}

export interface RunOutcome {
  /** True when stop() was called before every pair ran. */
  stopped: boolean;
  /** The failure that stopped the run (a refused key, an unknown model), if any. */
  fatal: Failure | null;
}

/**
 * Pairs prepared beyond those in flight, so a freed slot finds its next task ready. Few:
 * each is a generated ledger and prompt, and preparing many would delay the first wave.
 */
const SPARE = 16;

export class Runner {
  private readonly listeners: { [K in keyof RunnerEvents]?: Array<Listener<K>> } = {};
  private readonly abort = new AbortController();
  private fatal: Failure | null = null;

  constructor(private readonly o: RunnerOptions) {
    // Every episode in flight listens to the stop signal: that is c listeners, not a leak.
    setMaxListeners(0, this.abort.signal);
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
   * rollouts are handed out) and at most concurrency + SPARE pairs are held, so memory does
   * not grow with the number of pairs, while a freed slot always finds its next task ready.
   */
  async run(pairs: Iterable<readonly [number, number]>): Promise<RunOutcome> {
    const limit = pLimit(this.o.concurrency);
    const queued = new Set<Promise<void>>();
    let wake: (() => void) | null = null;
    let failure: unknown = null;
    let task: Task | null = null;
    for (const [index, rollout] of pairs) {
      while (limit.activeCount + limit.pendingCount >= this.o.concurrency + SPARE && !this.stopped) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      if (this.stopped) break;
      if (task?.index !== index) task = generateTask(this.o.taskConfig, index);
      const t = task;
      // The slot is held for the episode only; scoring and recording wait for the next turn
      // of the event loop, so a burst of replies sends its follow-up requests first.
      const p: Promise<void> = limit(() => this.episode(t, rollout))
        .then((result) => (result ? nextTurn(() => this.finish(t, rollout, result)) : undefined))
        .catch((err: unknown) => {
          // A bug, not a model problem: stop and report it rather than record it as data.
          failure ??= err;
          this.stop();
        })
        .finally(() => {
          queued.delete(p);
          const w = wake;
          wake = null;
          w?.();
        });
      queued.add(p);
      // While the queue first fills, let each request leave before preparing the next:
      // otherwise a whole cold burst is prepared before any byte goes out, and every
      // episode of the first wave waits for all of it.
      if (queued.size <= this.o.concurrency) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await Promise.all(queued);
    if (failure) throw failure;
    return { stopped: this.stopped, fatal: this.fatal };
  }

  /** Runs the episode; null when it was aborted or stopped the run. */
  private async episode(task: Task, rollout: number): Promise<Finished | null> {
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
    });
    if (result.kind === 'aborted') return null;
    if (result.kind === 'failed' && result.failure.fatal) {
      // The first refusal stops the run; the rollout is left unrecorded so a resume redoes it.
      this.fatal ??= result.failure;
      this.stop();
      return null;
    }
    return result;
  }

  /** Scores (or records the failure of) a finished episode and hands the record on. */
  private finish(task: Task, rollout: number, result: Finished): void {
    const { index } = task;
    const base = { index, rollout, config: task.config, model: this.o.model };
    let record: RolloutRecord;
    if (result.kind === 'reply') {
      const { completion: c } = result;
      const s = scoreReply(c.text, task.key);
      record = {
        ...base,
        reply: c.text,
        reward: s.reward,
        rewards: s.rewards,
        metrics: s.metrics,
        detail: s.detail,
        error: null,
        latency_ms: result.latencyMs,
        usage: c.usage,
        finish_reason: c.finish_reason,
        attempts: result.attempts,
      };
    } else {
      const f = result.failure;
      record = {
        ...base,
        reply: null,
        reward: null,
        rewards: null,
        metrics: null,
        detail: null,
        error: { type: f.type, message: f.message },
        latency_ms: result.latencyMs,
        usage: null,
        finish_reason: null,
        attempts: result.attempts,
      };
    }
    this.o.sink(record);
    this.emit(record.error ? 'error' : 'done', { record });
  }
}
