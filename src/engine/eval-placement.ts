/**
 * Where a run of `bas eval` or a sweep's point runs: in a worker thread of its own
 * (eval-thread.ts) when it is long enough to gain from one, else on the calling thread. Each
 * side is loaded only when chosen, so a short run loads nothing of the thread's.
 */
import { ConfigError } from '../errors/index.js';
import { builtinPolicy } from '../endpoint/client.js';
import { shardSize } from '../runfile/shard.js';
import type { EvalSettings } from '../settings/settings.js';
import type { WorkerEvalOptions } from './eval-thread.js';
import type { EvalResult } from './events.js';
import { rolloutReward } from './progress.js';

/**
 * Runs shorter than this many rollouts stay on the calling thread: a thread costs about 0.12 s
 * of CPU to start (a second isolate loading the engine) and 8 MB, and a run this short ends
 * long before its young generation could grow (docs/performance.md).
 */
const THREAD_MIN_ROLLOUTS = 2000;

/**
 * What `BAS_EVAL_THREAD` asks for: `always`, `never` or `auto` (the default, also when empty).
 * Anything else is a ConfigError; the commands call this at their start, so a sweep refuses a
 * bad value before it makes its folder, not at its first point.
 */
export function threadChoice(env: NodeJS.ProcessEnv): 'always' | 'never' | 'auto' {
  const choice = env.BAS_EVAL_THREAD || 'auto';
  if (choice === 'always' || choice === 'never' || choice === 'auto') return choice;
  throw new ConfigError(`BAS_EVAL_THREAD must be always, never or auto, not ${JSON.stringify(choice.slice(0, 40))}`);
}

/**
 * Whether a run of these settings gets a thread of its own, as `threadChoice` says (`auto`: a
 * built-in model's run of THREAD_MIN_ROLLOUTS planned rollouts or more). A run against an
 * endpoint stays here by default: its memory is the requests in flight more than the young
 * generation, and a capped young generation copies those at every collection, which cost
 * about 10% more CPU at -c 64 (docs/performance.md has the figures). Exported for tests only;
 * `runEvalWhereBest` is what callers use.
 *
 * The plan, not what is left, decides: a resume with nothing left still starts a thread
 * (about 0.12 s of CPU) because knowing what is left means reading results.jsonl, which is
 * the long read the thread is there for.
 */
export function wantsThread(settings: EvalSettings, env: NodeJS.ProcessEnv): boolean {
  const choice = threadChoice(env);
  if (choice !== 'auto') return choice === 'always';
  if (builtinPolicy(settings.model) === null) return false;
  return shardSize(settings.num, settings.shard) * settings.rollouts >= THREAD_MIN_ROLLOUTS;
}

/**
 * Runs one eval in a worker thread when `wantsThread` says so, else on this thread (`runEval`);
 * the same result, and the same events for `onEvent`, either way.
 */
export async function runEvalWhereBest(settings: EvalSettings, options: WorkerEvalOptions): Promise<EvalResult> {
  if (wantsThread(settings, options.env)) return (await import('./eval-thread.js')).runEvalInWorker(settings, options);
  const { runEval } = await import('./run-eval.js');
  const { onEvent, events, onRewards } = options;
  const wanted = events ? new Set(events) : null;
  return runEval(settings, {
    ...options,
    onEvent:
      onEvent || onRewards
        ? (e) => {
            if (e.type === 'rollout') onRewards?.([rolloutReward(e.record)]);
            if (onEvent && (!wanted || wanted.has(e.type))) onEvent(e);
          }
        : undefined,
  });
}
