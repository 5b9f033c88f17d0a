/**
 * One eval as a library call: `runPlan(plan, { signal, onEvent })` runs (or resumes) a run in a
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
import type { EvalPlan } from '../settings/plan.js';
import { withSpend } from '../summary/spend.js';
import type { Summary } from '../summary/summary.js';
import { spendBeside } from '../runfile/sessions.js';
import { statusOf } from './stop.js';
import type { EvalEvent, EvalOutcome, EvalResult } from './events.js';
import { Runner, type RunOutcome } from './runner.js';
import {
  countInPlan,
  defaultOutputDir,
  nothingRecorded,
  pendingPairs,
  runInfoFor,
  summaryThrough,
  type Recorded,
} from './session.js';
import { runEndpoints, useEndpoint } from '../runfile/endpoints.js';
import type { SequentialRecord } from '../summary/confidence-sequence.js';
import { RunRule } from './sequential.js';
import { readForResume, scopeOf, stillCurrent, type ResumeRead, type Scope } from './resume-read.js';
import * as std from '../io/std.js';

export type { EvalResult } from './events.js';

/** The plan of a run, whose resume (if any) carries its run.json as src/runfile reads it. */
export type RunPlan = EvalPlan<RunInfo>;

/** How to run: how to stop it and who hears its events (the plan says what and where). */
export interface RunPlanOptions {
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
  /**
   * A resume's read of its folder made before this call (a sweep's plan reads each point it
   * asks about): taken in place of the resume's own read while results.jsonl is as it was then.
   */
  read?: ResumeRead;
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
  if (verdict === 'over-error-budget') return { kind: verdict, errored, rollouts, max_error_rate: maxErrorRate };
  return { kind: verdict };
}

/** A resume's folder, taken first and read once under its lock: what it holds decides what runs. */
interface Resumed {
  folder: RunFolder;
  recorded: Recorded;
}

/**
 * Takes and reads a resume's folder (or takes `before`, a read made before, while the folder is
 * as it was then). A run with every rollout in is left as it is and its result returned
 * (decided before asking for a key); otherwise the folder stays taken.
 */
async function openResume(
  plan: RunPlan,
  saved: RunInfo,
  emit: (e: EvalEvent) => void,
  before: ResumeRead | undefined,
): Promise<Resumed | EvalResult> {
  const dir = plan.resume!.dir;
  const folder = RunFolder.resume(dir, saved);
  let kept = false;
  try {
    const read = before !== undefined && stillCurrent(before, dir) ? before : await readForResume(plan);
    for (const message of read.warnings) emit({ type: 'warning', message });
    const { total } = scopeOf(plan);
    if (!('recorded' in read.held)) {
      // Every rollout is in, but the run may have ended before its last run.json (a kill -9
      // after the final record): it is finished now, so reports stop calling it interrupted.
      // With what its sessions spent beside their records, as every other summary of it.
      const summary = withSpend(read.held.summary, spendBeside(saved));
      const marked = saved.status === 'complete' ? null : saved.status;
      const info = marked === null ? saved : folder.markComplete(summary);
      emit({ type: 'nothing-to-do', dir, total, marked });
      return {
        dir,
        info,
        summary,
        outcome: { kind: 'nothing-to-do' },
        total,
        ran_here: 0,
        recorded_here: 0,
        elapsed_s: 0,
      };
    }
    emit({ type: 'resuming', dir, pending: read.left, total });
    kept = true;
    return { folder, recorded: read.held.recorded };
  } finally {
    if (!kept) folder.release();
  }
}

/**
 * What must hold before the folder is touched: the endpoint confirmed, the client made, the
 * stopping rule read (a baseline that cannot be compared is refused here), the caller's
 * preflight passed and the run not stopped already. A throw releases a resume's folder.
 */
async function prepare(
  plan: RunPlan,
  options: RunPlanOptions,
  scope: Scope,
  resumed: Resumed | null,
): Promise<{ client: ModelClient; rule: RunRule | null }> {
  try {
    // A run folder does not choose where the key goes: refused before the first request.
    if (plan.target.kind === 'endpoint' && plan.target.unconfirmed !== null)
      throw new ConfigError(plan.target.unconfirmed);
    const client = makeClient(plan.target, options.env ?? std.env());
    // A resume feeds the rule the scored rollouts already recorded (errored ones run again first).
    const rule = await RunRule.open(plan.limits, scope, resumed?.recorded.rewards ?? null);
    await options.preflight?.();
    // The SDK has been loading since the client was made: the run starts once it can send.
    await client.ready?.();
    // Stopped before anything started: the folder is not touched, and the call rejects with
    // the signal's reason, as fetch() does.
    options.signal?.throwIfAborted();
    return { client, rule };
  } catch (err) {
    resumed?.folder.release();
    throw err;
  }
}

/**
 * Every endpoint the run used, with the scored rollouts each answered (docs/run-folder.md);
 * a resume against another endpoint than the saved one is said.
 */
function endpointsOf(
  plan: RunPlan,
  fresh: RunInfo,
  saved: RunInfo | null,
  already: number,
  dir: string,
  warn: (m: string) => void,
) {
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
  if (plan.limits.budget && plan.record.sampling.max_tokens === null)
    warn(
      'the budget is kept by estimate without --max-tokens: each request is reserved 1.5 times the longest completion seen so far, and a reply longer than that can take the run past it; set --max-tokens for a hard bound (docs/cost.md, Budgets)',
    );
  return used;
}

/** The budget the runner keeps, with what earlier sessions spent counted against it. */
function budgetOf(plan: RunPlan, saved: RunInfo | null, recorded: Recorded) {
  const { budget } = plan.limits;
  const { prices } = plan;
  // What earlier sessions spent beside their records (unrecorded rollouts, requests abandoned in flight).
  const before = spendBeside(saved);
  const tokens = recorded.tokens();
  return {
    budget: budget && {
      ...budget,
      prices: prices.in !== null && prices.out !== null ? { in: prices.in, out: prices.out } : null,
    },
    // Earlier sessions' spend counts against a budget, their abandoned requests at their worst case.
    // With the worst case charged for replies that said nothing of their usage (issue 36 §2).
    spentBefore: {
      prompt: tokens.prompt + before.unrecorded.prompt + before.in_flight.prompt + (before.unreported?.prompt ?? 0),
      completion:
        tokens.completion +
        before.unrecorded.completion +
        (before.in_flight.completion ?? 0) +
        (before.unreported?.completion ?? 0),
    },
  };
}

/** Hands the runner's events to the caller's listener; without one, no event object is made per rollout. */
function forwardEvents(runner: Runner, emit: (e: EvalEvent) => void): void {
  runner
    .on('start', (e) => emit({ type: 'rollout-started', ...e }))
    .on('retry', (e) => emit({ type: 'retry', ...e }))
    .on('done', (e) => emit({ type: 'rollout', record: e.record }))
    .on('error', (e) => emit({ type: 'rollout', record: e.record }))
    .on('pace', (e) => emit({ type: 'pace', limit: e.limit }));
}

/** Runs the pairs left, stopped by the caller's signal; a rule reached already (a resume) runs nothing. */
async function runPairs(
  runner: Runner,
  pairs: () => Iterable<readonly [number, number]>,
  reached: boolean,
  signal?: AbortSignal,
) {
  const stop = (): void => runner.stop({ kind: 'interrupted', message: 'interrupted' });
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    return await runner.run(reached ? [] : pairs());
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * The status run.json ends with: a run whose every pair has a line is complete, however it
 * stopped; one whose rule was reached (`reachedAs`), that rule's status.
 */
function endStatus(run: RunOutcome, complete: boolean, reachedAs: 'precision' | 'decided' | null): EndStatus {
  if (run.fatal) return 'failed';
  if (complete) return 'complete';
  if (reachedAs !== null) return reachedAs;
  return run.stop ? statusOf(run.stop) : 'interrupted';
}

/** How the run went, for the caller's exit code. */
function outcomeOf(
  run: RunOutcome,
  ctx: { complete: boolean; reached: boolean; summary: Summary; maxErrorRate: number; signal?: AbortSignal },
  sequential: SequentialRecord | undefined,
): EvalOutcome {
  const { complete, reached, summary, signal } = ctx;
  const stopped = run.stop;
  if (run.fatal) return { kind: 'endpoint-stopped', failure: run.fatal, restartable: summary.counts.completed === 0 };
  if (reached && !complete && sequential) {
    const outcome = budgetOutcome(summary, ctx.maxErrorRate);
    return outcome.kind === 'ok' ? { kind: sequential.rule, sequential } : outcome;
  }
  if (stopped?.kind === 'interrupted' || (stopped === null && signal?.aborted))
    return { kind: 'interrupted', reason: signal?.reason, complete };
  // A stopping rule's stop was answered above; the one other rule that stops a run is its budget.
  if (stopped?.kind === 'budget' && !complete) return { kind: 'budget', message: stopped.message };
  return budgetOutcome(summary, ctx.maxErrorRate);
}

/**
 * Runs one eval, or with the plan's `resume` continues that run, and resolves once run.json
 * is final and the folder is released. Bad folders reject with a ConfigError, a failing disk
 * with a FatalRunError; how the run itself went is the result's `outcome`.
 */
export async function runPlan(plan: RunPlan, options: RunPlanOptions = {}): Promise<EvalResult> {
  const emit = options.onEvent ?? (() => {});
  const scope = scopeOf(plan);
  const saved: RunInfo | null = plan.resume?.run ?? null;
  let resumed: Resumed | null = null;
  if (plan.resume && saved) {
    const opened = await openResume(plan, saved, emit, options.read);
    if (!('folder' in opened)) return opened;
    resumed = opened;
  }
  const dir = plan.resume?.dir ?? plan.output ?? defaultOutputDir(plan.model, scope.shard);
  const { client, rule } = await prepare(plan, options, scope, resumed);
  const folder = resumed?.folder ?? (await RunFolder.start(dir));
  try {
    if (folder.restarted) emit({ type: 'restarted', dir });
    return await runSession({ plan, options, emit, scope, saved, dir, folder, client, rule }, resumed);
  } finally {
    // The folder stays ours until its final run.json is written: a resume started earlier
    // would be overwritten by it.
    folder.release();
  }
}

/** One session's work on a taken folder: the runner over the pairs left, then run.json's end. */
interface Session {
  plan: RunPlan;
  options: RunPlanOptions;
  emit: (e: EvalEvent) => void;
  scope: Scope;
  saved: RunInfo | null;
  dir: string;
  folder: RunFolder;
  client: ModelClient;
  rule: RunRule | null;
}

async function runSession(x: Session, resumed: Resumed | null): Promise<EvalResult> {
  const { plan, emit, scope, saved, dir, folder, rule } = x;
  const { n, rollouts, shard, total } = scope;
  const recorded = resumed?.recorded ?? nothingRecorded(rollouts);
  const { finished, errored } = recorded;
  const already = countInPlan(finished, n, rollouts, shard);
  const pending = total - already;
  // Pairs with a line already (scored, or errored and pending again), and those this
  // session adds: when they make up the whole plan, the run is complete, stopped or not.
  let lines = already + countInPlan(errored, n, rollouts, shard);
  // What this session recorded: the header's rate is over these, not the pairs it set out to run.
  let recordedHere = 0;
  const started = Date.now();
  const fresh = runInfoFor(plan.record, new Date(started));
  const used = endpointsOf(plan, fresh, saved, already, dir, (message) => emit({ type: 'warning', message }));
  const info = folder.begin(fresh);
  const { limits } = plan;
  emit({ type: 'started', dir, info, total, pending, already, concurrency: limits.concurrency });
  const runner: Runner = new Runner({
    taskConfig: plan.tasks.config,
    model: plan.model,
    client: x.client,
    policy: { ...DEFAULT_RETRY_POLICY, maxRetries: limits.maxRetries },
    concurrency: limits.concurrency,
    episodeTimeoutMs: limits.episodeTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    adaptive: limits.adapt,
    endpoint: plan.record.base_url ?? 'the endpoint',
    maxTokens: plan.record.sampling.max_tokens,
    ...budgetOf(plan, saved, recorded),
    sink: (record) => {
      folder.append(record);
      recorded.add(record);
      recordedHere++;
      if (record.error === null) used.entry.rollouts++;
      if (!errored.has(pairKey(record.index, record.rollout ?? 0))) lines++;
      // The rule's answer is known: nothing more starts, and what is in flight is dropped.
      if (rule?.add(record.index, record.rollout ?? 0, record.reward)) runner.stop(rule.stop());
    },
  });
  if (x.options.onEvent) forwardEvents(runner, emit);
  const reachedBefore = rule?.reached ?? false;
  const run = await runPairs(runner, () => pendingPairs(n, rollouts, finished, shard), reachedBefore, x.options.signal);
  return await finish(x, run, { lines, recorded, started, pending, recordedHere });
}

/**
 * The summary run.json keeps: of every record, or for a run its rule stopped before its last
 * task, of the tasks the rule used (0..last_index), the replies that landed after the stop
 * counted apart (SPEC, "A run stopped by its rule"). Which tasks those are is known only at the
 * stop, so such a run's results.jsonl is read once more, here.
 */
async function summaryOf(x: Session, recorded: Recorded, sequential: SequentialRecord | undefined, stopped: boolean) {
  const last = sequential?.last_index ?? null;
  if (!stopped || !sequential?.reached || last === null) return recorded.summary();
  return summaryThrough(x.dir, x.scope.bounds, last);
}

/** Writes the final run.json and makes the result. */
async function finish(
  x: Session,
  run: RunOutcome,
  s: { lines: number; recorded: Recorded; started: number; pending: number; recordedHere: number },
): Promise<EvalResult> {
  const { plan, scope, saved, dir, folder, rule } = x;
  const complete = s.lines >= scope.total;
  const reached = rule?.reached ?? false;
  const sequential = rule?.record();
  // The summary counts what every session spent beside its records too (this one's included).
  const records = await summaryOf(x, s.recorded, sequential, reached && !complete);
  const summary = withSpend(records, spendBeside(saved, [{ spend: run.spend }]));
  const status = endStatus(run, complete, reached && sequential ? sequential.rule : null);
  const final = folder.end(status, summary, run.pace, run.spend, sequential ? { sequential } : {});
  const elapsed_s = (Date.parse(final.ended_at!) - s.started) / 1000;
  const ctx = { complete, reached, summary, maxErrorRate: plan.limits.maxErrorRate, signal: x.options.signal };
  const outcome = outcomeOf(run, ctx, sequential);
  return {
    dir,
    info: final,
    summary,
    outcome,
    total: scope.total,
    ran_here: s.pending,
    recorded_here: s.recordedHere,
    elapsed_s,
    ...(sequential ? { sequential } : {}),
  };
}
