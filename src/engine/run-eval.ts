/**
 * One eval as a library call: `runEval(plan, { signal, onEvent })` runs (or resumes) a run in a
 * run folder and returns its run.json, its summary and a typed outcome. The plan
 * (src/settings/plan.ts) says everything: the engine reads no setting of its own.
 * It writes nothing to stdout or stderr, never exits the process and installs no process-wide
 * handler: progress and notices are events, a stop is the caller's AbortSignal, and the exit
 * code is the caller's choice. Nothing is kept between calls, so one process may run several
 * evals, one after the other or side by side in different folders.
 */
import { ConfigError } from '../errors/index.js';
import { errorBudget } from '../summary/error-budget.js';
import { builtinClient, httpClient, type ModelClient } from '../endpoint/client.js';
import { apiKeyFor } from '../endpoint/api-key.js';
import { ReplyCache } from '../endpoint/reply-cache.js';
import { DEFAULT_RETRY_POLICY } from '../endpoint/retry.js';
import { pairKey } from '../runfile/record.js';
import { RunFolder, type EndStatus } from '../runfile/run-folder.js';
import type { RunInfo } from '../runfile/run-info.js';
import { shardSize } from '../settings/shard.js';
import type { EvalPlan } from '../settings/plan.js';
import type { Summary } from '../summary/summary.js';
import type { EvalEvent, EvalOutcome, EvalResult } from './events.js';
import { Runner } from './runner.js';
import {
  countInPlan,
  defaultOutputDir,
  nothingRecorded,
  pendingPairs,
  readRecorded,
  readRewards,
  runInfoFor,
  type Recorded,
} from './session.js';
import { runEndpoints, useEndpoint } from '../runfile/endpoints.js';
import { splitPairKey } from '../runfile/record.js';
import { precisionRecord, TaskSequence } from './sequential.js';
import * as std from '../io/std.js';

export type { EvalResult } from './events.js';

/** The plan of a run, whose resume (if any) carries its run.json as src/runfile reads it. */
export type RunPlan = EvalPlan<RunInfo>;

/** How to run: how to stop it and who hears its events (the plan says what and where). */
export interface RunEvalOptions {
  /** Aborting it stops the run: no new rollout starts, those in flight are dropped (a resume redoes them). */
  signal?: AbortSignal;
  /** Called with every event, synchronously; it must not throw. */
  onEvent?: (event: EvalEvent) => void;
  /** Where the API key variable is read (default: the CLI's, `std.env()`, which outside the CLI is `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Called once there is work to do, before the run starts (`bas eval --check` checks the
   * endpoint here): before a new run's folder is taken, and after a resume has taken its
   * folder and read it. A throw ends the call with that error and gives the folder back as
   * it was (a torn last line a resume found is cut all the same).
   */
  preflight?: () => Promise<void>;
}

function makeClient(target: RunPlan['target'], env: NodeJS.ProcessEnv): ModelClient {
  if (target.kind === 'builtin') return builtinClient(target.policy);
  // A cache folder that cannot be used is refused here, before the run's folder is taken.
  const cache = target.cache === null ? null : ReplyCache.open(target.cache, target.maxResponseBytes);
  return httpClient({ ...target, apiKey: apiKeyFor(target, env), cache });
}

/** The outcome of a run that was not stopped, from its summary. */
function budgetOutcome(summary: Summary, maxErrorRate: number): EvalOutcome {
  const { errored, rollouts } = summary.counts;
  const verdict = errorBudget(summary.counts, maxErrorRate);
  if (verdict === 'over-error-budget') return { kind: verdict, errored, rollouts, maxErrorRate };
  return { kind: verdict };
}

/**
 * Runs one eval, or with the plan's `resume` continues that run, and resolves once run.json
 * is final and the folder is released. Bad folders reject with a ConfigError, a failing disk
 * with a FatalRunError; how the run itself went is the result's `outcome`.
 */
export async function runEval(plan: RunPlan, options: RunEvalOptions = {}): Promise<EvalResult> {
  const emit = options.onEvent ?? (() => {});
  const env = options.env ?? std.env();
  const { n, rollouts, shard } = plan.tasks;
  const total = shardSize(n, shard) * rollouts;
  // Records outside the run (a task past n, another shard's) are set aside wherever read.
  const bounds = { n, rollouts, shard, indices: null };
  const saved: RunInfo | null = plan.resume?.run ?? null;
  const warn = (message: string): void => emit({ type: 'warning', message });
  let dir: string;
  /** A resume's folder, taken first and read once under its lock: what it holds decides what runs. */
  let resumed: { folder: RunFolder; recorded: Recorded } | null = null;
  if (plan.resume && saved) {
    dir = plan.resume.dir;
    const folder = RunFolder.resume(dir, saved);
    try {
      const recorded = await readRecorded(dir, warn, bounds);
      const left = total - countInPlan(recorded.finished, n, rollouts, shard);
      if (left === 0) {
        // Decided before asking for a key: a finished run is left as it is. Every rollout is
        // in, but the run may have ended before its last run.json (a kill -9 after the final
        // record): it is finished now, so reports stop calling it interrupted.
        const summary = recorded.summary();
        const marked = saved.status === 'complete' ? null : saved.status;
        const info = marked === null ? saved : folder.markComplete(summary);
        emit({ type: 'nothing-to-do', dir, total, marked });
        return { dir, info, summary, outcome: { kind: 'nothing-to-do' }, total, ranHere: 0, elapsedS: 0 };
      }
      emit({ type: 'resuming', dir, pending: left, total });
      resumed = { folder, recorded };
    } finally {
      if (resumed === null) folder.release();
    }
  } else {
    dir = plan.output ?? defaultOutputDir(plan.model, shard);
  }
  let client: ModelClient;
  try {
    // A run folder does not choose where the key goes: refused before the first request.
    if (plan.target.kind === 'endpoint' && plan.target.unconfirmed !== null)
      throw new ConfigError(plan.target.unconfirmed);
    client = makeClient(plan.target, env);
    await options.preflight?.();
    // Stopped before anything started: the folder is not touched, and the call rejects with
    // the signal's reason, as fetch() does.
    options.signal?.throwIfAborted();
  } catch (err) {
    resumed?.folder.release();
    throw err;
  }

  const folder = resumed?.folder ?? (await RunFolder.start(dir));
  try {
    if (folder.restarted) emit({ type: 'restarted', dir });
    const recorded = resumed?.recorded ?? nothingRecorded(rollouts);
    const { finished, errored } = recorded;
    const already = countInPlan(finished, n, rollouts, shard);
    const pending = total - already;
    // Pairs with a line already (scored, or errored and pending again), and those this
    // session adds: when they make up the whole plan, the run is complete, stopped or not.
    let lines = already + countInPlan(errored, n, rollouts, shard);
    const started = Date.now();
    // Every endpoint the run used, with the scored rollouts each answered (docs/run-folder.md).
    const fresh = runInfoFor(plan.record, new Date(started));
    const here = { base_url: fresh.base_url, provider: fresh.provider ?? null };
    const used = useEndpoint(saved ? (runEndpoints(saved, already) ?? []) : [], here);
    if (fresh.base_url !== null) fresh.endpoints = used.list;
    if (
      saved &&
      saved.base_url !== null &&
      (saved.base_url !== here.base_url || (saved.provider ?? null) !== here.provider)
    )
      warn(
        `${dir} was run against ${saved.base_url}${saved.provider ? ` (provider ${saved.provider})` : ''} and continues against ${here.base_url}${here.provider ? ` (provider ${here.provider})` : ''}; run.json records each endpoint with the rollouts it answered`,
      );
    const info = folder.begin(fresh);
    const { limits } = plan;
    // --precision: the tasks of the run in index order feed a confidence sequence; a resume
    // feeds it the scored rollouts already recorded (errored ones run again first).
    const width = limits.precision;
    let sequence: TaskSequence | null = null;
    if (width !== null) {
      const order: number[] = [];
      for (let i = shard ? shard.index - 1 : 0; i < n; i += shard ? shard.count : 1) order.push(i);
      sequence = new TaskSequence(order, rollouts, { kind: 'precision', width });
      if (resumed) {
        for (const [key, reward] of await readRewards(dir, bounds)) {
          const [index, rollout] = splitPairKey(key);
          sequence.add(index, rollout, reward);
        }
      }
    }
    let reachedHere = false;
    emit({ type: 'started', dir, info, total, pending, already, concurrency: limits.concurrency });

    const runner = new Runner({
      taskConfig: plan.tasks.config,
      model: plan.model,
      client,
      policy: { ...DEFAULT_RETRY_POLICY, maxRetries: limits.maxRetries },
      concurrency: limits.concurrency,
      episodeTimeoutMs: limits.episodeTimeoutMs,
      requestTimeoutMs: limits.requestTimeoutMs,
      adaptive: limits.adapt,
      endpoint: info.base_url ?? 'the endpoint',
      sink: (record) => {
        folder.append(record);
        recorded.add(record);
        if (record.error === null) used.entry.rollouts++;
        if (!errored.has(pairKey(record.index, record.rollout ?? 0))) lines++;
        if (sequence && !sequence.reached && sequence.add(record.index, record.rollout ?? 0, record.reward)) {
          // The interval is narrow enough: nothing more starts, and what is in flight is dropped.
          reachedHere = true;
          runner.stop();
        }
      },
    });
    // Without a listener, no event object is made per rollout.
    if (options.onEvent)
      runner
        .on('start', (e) => emit({ type: 'rollout-started', ...e }))
        .on('retry', (e) => emit({ type: 'retry', ...e }))
        .on('done', (e) => emit({ type: 'rollout', record: e.record }))
        .on('error', (e) => emit({ type: 'rollout', record: e.record }))
        .on('pace', (e) => emit({ type: 'pace', limit: e.limit }));

    const signal = options.signal;
    const stop = (): void => runner.stop();
    if (signal?.aborted) runner.stop();
    signal?.addEventListener('abort', stop, { once: true });
    let run;
    try {
      // Reached already (a resume with the same --precision): nothing more to run.
      run = await runner.run(sequence?.reached ? [] : pendingPairs(n, rollouts, finished, shard));
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    const summary = recorded.summary();
    const complete = lines >= total;
    const reached = sequence?.reached ?? false;
    const status: EndStatus = run.fatal ? 'failed' : complete ? 'complete' : reached ? 'precision' : 'interrupted';
    const sequential = sequence && width !== null ? precisionRecord(sequence.state(), width) : undefined;
    const final = folder.end(status, summary, run.pace, undefined, sequential ? { sequential } : {});
    const elapsedS = (Date.parse(final.ended_at!) - started) / 1000;
    let outcome: EvalOutcome;
    if (run.fatal)
      outcome = { kind: 'endpoint-stopped', failure: run.fatal, restartable: summary.counts.completed === 0 };
    else if (signal?.aborted && !reachedHere) outcome = { kind: 'interrupted', reason: signal.reason, complete };
    else {
      outcome = budgetOutcome(summary, limits.maxErrorRate);
      if (outcome.kind === 'ok' && reached && !complete && sequential) outcome = { kind: 'precision', sequential };
    }
    return {
      dir,
      info: final,
      summary,
      outcome,
      total,
      ranHere: pending,
      elapsedS,
      ...(sequential ? { sequential } : {}),
    };
  } finally {
    // The folder stays ours until its final run.json is written: a resume started earlier
    // would be overwritten by it.
    folder.release();
  }
}
