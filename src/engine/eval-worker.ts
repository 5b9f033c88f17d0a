/**
 * The thread `runEvalInWorker` (eval-thread.ts) starts: it runs `runEval` with the settings and
 * folder it was given, and talks to the starting thread only through the messages below.
 * Events go out in batches, the outcome or error last; a stop comes in as a message and aborts
 * the run's own signal; the caller's preflight runs on the caller's side, asked for by message.
 * Its environment (process.env) is the one the caller resolved, given when the thread started.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorToData, type ErrorData } from '../errors/transfer.js';
import type { EvalSettings } from '../settings/settings.js';
import type { EvalEvent, EvalResult } from './events.js';
import { rolloutReward } from './progress.js';
import { runEval } from './run-eval.js';

/** What the thread is started with. */
export interface WorkerStart {
  settings: EvalSettings;
  dir?: string;
  resume?: boolean;
  /** The caller's signal was aborted before the thread started. */
  aborted: boolean;
  /** The caller has a preflight: ask for it (`preflight`) and wait for `preflight-done`. */
  preflight: boolean;
  /** The event types the caller listens to; the others are not sent. */
  events: ReadonlyArray<EvalEvent['type']>;
  /** The caller takes finished rollouts as rewards (`onRewards`). */
  rewards: boolean;
}

/** What one message of events holds, in the order it happened: events, and rollouts as rewards. */
export type Batched = EvalEvent | { type: 'rewards'; rewards: Float64Array };

/** What the starting thread sends. */
export type ToWorker = { type: 'abort' } | { type: 'preflight-done'; ok: boolean };

/** What the thread sends; exactly one of the last four ends the run. */
export type FromWorker =
  | { type: 'events'; events: Batched[] }
  | { type: 'preflight' }
  | { type: 'result'; result: EvalResult }
  | { type: 'error'; error: ErrorData }
  /** runEval rejected with the signal's reason: the caller's own reason is the error. */
  | { type: 'aborted' }
  /** The caller's preflight threw: the caller holds that error. */
  | { type: 'preflight-failed' };

/** Items sent in one message at most: a few hundred KB even of records with long replies. */
const BATCH = 256;
/** How long an event may wait for others to share its message. */
const LATENCY_MS = 40;

const port = parentPort!;
const start = workerData as WorkerStart;
const wanted = new Set(start.events);
const stop = new AbortController();
// The caller's reason stays on the caller's side (it may not clone); it replaces this one there.
const STOPPED = 'stopped by the caller';
if (start.aborted) stop.abort(STOPPED);
// What the run's stop and a failed preflight reject with, told apart from the run's own errors.
const PREFLIGHT_FAILED = new Error('the caller’s preflight failed');
let preflightDone: ((ok: boolean) => void) | null = null;

port.on('message', (m: ToWorker) => {
  if (m.type === 'abort') stop.abort(STOPPED);
  else preflightDone?.(m.ok);
});

let batch: Batched[] = [];
/** Rewards of the rollouts since the last event: a typed array clones as bytes, a record as a graph. */
let rewards: number[] = [];
const endRewards = (): void => {
  if (rewards.length === 0) return;
  batch.push({ type: 'rewards', rewards: Float64Array.from(rewards) });
  rewards = [];
};
let pending = 0;
let timer: NodeJS.Timeout | null = null;
const flush = (): void => {
  if (timer) clearTimeout(timer);
  timer = null;
  endRewards();
  pending = 0;
  if (batch.length === 0) return;
  port.postMessage({ type: 'events', events: batch } satisfies FromWorker);
  batch = [];
};
/**
 * Queues one item: a batch goes when full or LATENCY_MS after its first item. A message per
 * rollout would cost more than the rollout (a built-in model's takes 0.1 ms); the progress
 * line is redrawn at most every 100 ms anyway.
 */
const queue = (add: () => void): void => {
  add();
  if (++pending >= BATCH) flush();
  else timer ??= setTimeout(flush, LATENCY_MS);
};
const send = (m: FromWorker): void => {
  flush();
  port.postMessage(m);
};

try {
  const result = await runEval(start.settings, {
    dir: start.dir,
    resume: start.resume,
    signal: stop.signal,
    onEvent:
      wanted.size || start.rewards
        ? (e) => {
            if (e.type === 'rollout' && start.rewards) queue(() => rewards.push(rolloutReward(e.record)));
            if (!wanted.has(e.type)) return;
            queue(() => {
              endRewards();
              batch.push(e);
            });
            // The folder's name goes at once: a thread that dies in the next moments is then
            // reported with it, and the caller frees the folder (eval-thread.ts).
            if (e.type === 'started' || e.type === 'resuming') flush();
          }
        : undefined,
    preflight: start.preflight
      ? async () => {
          const ok = await new Promise<boolean>((resolve) => {
            preflightDone = resolve;
            send({ type: 'preflight' });
          });
          if (!ok) throw PREFLIGHT_FAILED;
        }
      : undefined,
  });
  send({ type: 'result', result });
} catch (err) {
  if (err === PREFLIGHT_FAILED) send({ type: 'preflight-failed' });
  else if (err === STOPPED) send({ type: 'aborted' });
  else send({ type: 'error', error: errorToData(err) });
}
port.close();
