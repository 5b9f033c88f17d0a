/**
 * `runEvalInWorker`: `runEval` in a worker thread of its own, with the same settings, options
 * and result, for front ends that run long evals (`bas eval`, `bas sweep`). The thread's young
 * generation is capped (`resourceLimits`, an API rather than a node flag a user would have to
 * type), so a run's memory stays flat however long it runs: on the main thread V8 doubles its
 * young generation whenever enough has survived its scavenges, which a long enough run always
 * reaches (docs/performance.md has the figures).
 *
 * Everything crosses as data: events in batches, the result, and errors rebuilt as the same
 * classes (errors/transfer.ts), so exit codes and messages are those of `runEval`. The caller's
 * signal stops the thread's run, the caller's preflight runs here on the caller's side, and a
 * thread that dies (out of memory, a crash) ends the call with one clear error, never a hang.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { FatalRunError } from '../errors/index.js';
import { builtinPolicy } from '../endpoint/client.js';
import { errorFromData } from '../errors/transfer.js';
import { registerSecret } from '../io/secrets.js';
import { RunFolder } from '../runfile/run-folder.js';
import { apiKeyFor, type EvalSettings } from '../settings/settings.js';
import type { EvalEvent, EvalResult } from './events.js';
import type { RunEvalOptions } from './run-eval.js';
import type { FromWorker, ToWorker, WorkerStart } from './eval-worker.js';

/**
 * The thread's young generation, in MB (V8 splits it into its semi-spaces). A built-in model's
 * run keeps little alive between collections: 6 MB holds it flat at the least memory, at no
 * measurable cost. A run against an endpoint (in a thread only when BAS_EVAL_THREAD says so)
 * keeps every request in flight alive, which each collection copies: 6 MB made a
 * 100,000-rollout run at -c 64 cost 13 to 36% more CPU, 16 MB about 10%.
 * docs/performance.md has the figures.
 */
function youngGenerationMb(settings: EvalSettings): number {
  return builtinPolicy(settings.model) !== null ? 6 : 16;
}

/** Every event type, held complete by the compiler: a new event cannot be left out of a thread's run. */
const EVERY_EVENT = Object.keys({
  'nothing-to-do': true,
  resuming: true,
  restarted: true,
  started: true,
  'rollout-started': true,
  retry: true,
  rollout: true,
  pace: true,
  warning: true,
} satisfies Record<EvalEvent['type'], true>) as ReadonlyArray<EvalEvent['type']>;

/** runEval's options, plus what only a thread needs. */
export interface WorkerEvalOptions extends RunEvalOptions {
  /** The environment the run reads (its API key variable): the thread gets this one, not the process's. */
  env: NodeJS.ProcessEnv;
  /**
   * The event types `onEvent` is called with (default: all). Each event crosses between
   * threads, so a caller that draws no progress leaves out 'rollout' and 'rollout-started'.
   */
  events?: ReadonlyArray<EvalEvent['type']>;
  /**
   * Called with finished rollouts as rewards, in order (`rolloutReward`: NaN for an errored
   * one), for a caller that only counts them (a progress display): 8 bytes a rollout cross
   * between threads instead of its record. Leave 'rollout' out of `events` then.
   */
  onRewards?: (rewards: ArrayLike<number>) => void;
  /** For tests only: the thread's script (the compiled one, or a stand-in); default ./eval-worker.js beside this file. */
  script?: URL;
  /** For tests only: the thread's memory limits; default a capped young generation (`youngGenerationMb`). */
  resourceLimits?: ResourceLimits;
}

/** The variables that are set: a Worker's env takes strings only. */
function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * What a thread's death without an answer says: out of memory is the run's limit, anything
 * else a bug. `dir` is the folder the run had begun writing (its `started` or `resuming`
 * event), null when it died before: then nothing was recorded, and the run is begun again.
 */
function deathError(err: Error | null, code: number, dir: string | null): Error {
  const next = dir
    ? `; rollouts recorded so far are kept in ${dir}: continue with bas eval --resume ${dir}`
    : '; it died before its first rollout, so nothing was recorded: run it again';
  if ((err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new FatalRunError(`the run ran out of memory${next}`);
  if (err) {
    const bug = new Error(`the eval thread failed: ${err.message}${next}`, { cause: err });
    bug.stack = err.stack;
    return bug;
  }
  return new Error(`the eval thread stopped (exit code ${code}) before the run ended${next}`);
}

/**
 * The result as runEval would have given it on this thread, where a stop is seen up to the
 * moment the outcome is decided. The thread saw a stand-in for the caller's reason: the
 * caller gets its own back. And a stop that came after the thread's last rollout but before
 * its answer arrived (the reader of the output went away as the last progress line was
 * written, say) still makes the outcome `interrupted`: the run had finished, so it is
 * `complete`, as run.json says. Applied as the answer arrives, after every event before it was
 * shown: a stop after that leaves the outcome alone, as it does once runEval has returned.
 */
function withCallerStop(result: EvalResult, signal: AbortSignal | undefined): EvalResult {
  const { outcome } = result;
  if (outcome.kind === 'interrupted') return { ...result, outcome: { ...outcome, reason: signal?.reason } };
  if (!signal?.aborted || outcome.kind === 'nothing-to-do' || outcome.kind === 'endpoint-stopped') return result;
  return { ...result, outcome: { kind: 'interrupted', reason: signal.reason, complete: true } };
}

/**
 * Runs one eval as `runEval` does, in a worker thread: same settings, same options (with the
 * environment given explicitly), same result and errors. `onEvent` is called on this thread,
 * in order, a little after each event happened.
 */
export function runEvalInWorker(settings: EvalSettings, options: WorkerEvalOptions): Promise<EvalResult> {
  const { signal, onEvent, preflight } = options;
  // The thread's own makeSdk registers the key there; this thread prints what the thread
  // says (its errors, warnings, notices), so the key is cut out here as well. A missing key
  // is left for the thread to report, as runEval does.
  try {
    registerSecret(apiKeyFor(settings, options.env));
  } catch {
    // No usable key: nothing to keep out of the output.
  }
  const wanted = new Set(onEvent ? (options.events ?? EVERY_EVENT) : []);
  const start: WorkerStart = {
    settings,
    dir: options.dir,
    resume: options.resume,
    aborted: signal?.aborted ?? false,
    preflight: preflight !== undefined,
    rewards: options.onRewards !== undefined,
    // The folder's name comes with these, for the message of a thread that dies.
    events: [...new Set([...wanted, 'resuming', 'started'] as const)],
  };
  const worker = new Worker(options.script ?? new URL('./eval-worker.js', import.meta.url), {
    workerData: start,
    env: definedEnv(options.env),
    resourceLimits: options.resourceLimits ?? { maxYoungGenerationSizeMb: youngGenerationMb(settings) },
    // Nothing reads it; the run's events are how it speaks.
    stdin: false,
  });
  // Read now: a thread that has exited has no id any more.
  const thread = worker.threadId;
  const tell = (m: ToWorker): void => worker.postMessage(m);
  const onAbort = (): void => tell({ type: 'abort' });
  signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<EvalResult>((resolve, reject) => {
    /** The folder the run began writing, once its `started` or `resuming` event said so. */
    let dir: string | null = null;
    let death: Error | null = null;
    let preflightError: unknown = null;
    /** The run's end, once the thread has said it: applied when the thread has exited. */
    let end: (() => void) | null = null;

    worker.on('message', (m: FromWorker) => {
      switch (m.type) {
        case 'events':
          for (const e of m.events) {
            if (e.type === 'rewards') options.onRewards?.(e.rewards);
            else {
              if (e.type === 'started' || e.type === 'resuming') dir = e.dir;
              if (wanted.has(e.type)) onEvent!(e);
            }
          }
          return;
        case 'preflight':
          Promise.resolve()
            .then(() => preflight!())
            .then(
              () => tell({ type: 'preflight-done', ok: true }),
              (err: unknown) => {
                preflightError = err;
                tell({ type: 'preflight-done', ok: false });
              },
            );
          return;
        case 'result': {
          // Fixed now, as runEval's is when it returns: every event has been shown, so a stop
          // from here on (before the thread has exited) comes after the run ended.
          const result = withCallerStop(m.result, signal);
          end = () => resolve(result);
          break;
        }
        case 'error':
          end = () => reject(errorFromData(m.error));
          break;
        case 'aborted':
          end = () => reject(signal?.reason);
          break;
        case 'preflight-failed':
          end = () => reject(preflightError);
          break;
      }
      // Its answer is in: nothing the thread still holds (idle sockets, timers) is worth waiting for.
      void worker.terminate();
    });
    worker.on('messageerror', (err) => {
      death ??= err;
      void worker.terminate();
    });
    worker.on('error', (err) => (death ??= err));
    worker.on('exit', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (end) return end();
      // A thread that died holds its folder (this process's pid is in the lock) and left
      // run.json saying `running`: the folder is given back here, so a resume can take it.
      const held = dir ?? options.dir;
      const freed = held ? RunFolder.endLeftByThread(held, thread) : Promise.resolve(false);
      freed.then(
        () => reject(deathError(death, code, dir)),
        (err: unknown) => {
          const error = deathError(death, code, dir);
          error.message += ` (and ${held} could not be released: ${(err as Error).message})`;
          reject(error);
        },
      );
    });
  });
}
