/**
 * One eval through a provider's batch engine (`bas eval --batch`), as a library call like
 * runPlan: writes the request lines of every rollout without a scored record, cut within the
 * provider's limits; checks the worst case against the budget before anything is sent;
 * uploads each file and creates its batch, recording both ids in run.json before the first
 * poll; polls (batch-poll.ts); grades the output and error files into results.jsonl. A
 * resume re-attaches to the batches recorded and sends nothing again while any is unread;
 * with none left, it sends only the rollouts that have no scored record.
 */
import { createBatch, uploadBatchFile } from '../endpoint/batch-api.js';
import { apiKeyFor } from '../endpoint/api-key.js';
import { requestFields } from '../endpoint/client.js';
import { makeSdk } from '../endpoint/sdk.js';
import { BudgetError, ConfigError } from '../errors/index.js';
import { batchStateOf, type BatchEntry } from '../runfile/batch-state.js';
import type { PairKey } from '../runfile/record.js';
import { RunFolder } from '../runfile/run-folder.js';
import { errorBudget } from '../summary/error-budget.js';
import type { EndpointTarget } from '../settings/plan.js';
import { savedResumeCommand } from '../settings/resume-command.js';
import { MAX_RESPONSE_MB } from '../settings/setting-parse.js';
import { generateTask } from '../task/generate.js';
import type { Task } from '../task/types.js';
import { requestFiles, worstCase, type BatchLimits, type RequestFile } from './batch-grade.js';
import { gradeEnded, unrepliedRecords, type BatchSession } from './batch-read.js';
import { pollUntilEnded, realSleep, type PollPace, type Sleep } from './batch-poll.js';
import type { BatchEvent, EvalOutcome, EvalResult } from './events.js';
import type { RunPlan } from './run-eval.js';
import * as std from '../io/std.js';
import { defaultOutputDir, nothingRecorded, pendingPairs, readRecorded, runInfoFor } from './session.js';

/** How to run a batch eval: the provider's limits, the poll pace, and the usual stop and events. */
export interface BatchRunOptions {
  limits: BatchLimits;
  pace: PollPace;
  signal?: AbortSignal;
  onEvent?: (e: BatchEvent) => void;
  env?: NodeJS.ProcessEnv;
  /** The clock of the polls (default: real timers); tests pass their own. */
  sleep?: Sleep;
}

/** A batch eval's result: an eval's, and what is left unread (a lost file), if anything. */
export interface BatchRunResult extends EvalResult {
  /** Why some batch could not be read yet (a resume tries again), or null. */
  unread: string | null;
}

/** The endpoint of a batch plan, or a refusal of what a batch cannot do. */
function batchTarget(plan: RunPlan): EndpointTarget {
  if (plan.target.kind !== 'endpoint')
    throw new ConfigError(
      "--batch sends the requests to a provider's batch engine: give a real model behind an endpoint, not a built-in one",
    );
  if (plan.tasks.shard !== null)
    throw new ConfigError('--batch runs the whole run as batches: it does not take --shard');
  if (plan.limits.precision !== null || plan.limits.against !== null)
    throw new ConfigError('--batch cannot stop part-way: it does not take --precision or --until');
  return plan.target;
}

/** Refuses, with exit 4, files whose worst case does not fit in --max-total-tokens or --max-cost. */
function checkBudget(plan: RunPlan, files: RequestFile[]): void {
  const budget = plan.limits.budget;
  if (budget === null) return;
  const w = worstCase(files, plan.target.kind === 'endpoint' ? plan.target.sampling.max_tokens : null);
  if (w.completion === null)
    throw new ConfigError(
      'a budget (--max-cost, --max-total-tokens) with --batch needs --max-tokens: a batch cannot be stopped part-way, so its worst case must be bounded before it is sent',
    );
  const tokens = w.prompt + w.completion;
  const requests = files.reduce((s, f) => s + f.requests, 0);
  const worst = `the worst case of ${requests} requests is ${tokens.toLocaleString('en-US')} tokens (${w.prompt.toLocaleString('en-US')} prompt, counted as bytes, and --max-tokens for every reply)`;
  if (budget.maxTotalTokens !== null && tokens > budget.maxTotalTokens)
    throw new BudgetError(
      `nothing was sent: ${worst}, more than --max-total-tokens ${budget.maxTotalTokens}; raise it, lower --max-tokens or -n`,
    );
  if (budget.maxCostUsd !== null) {
    const { in: pin, out: pout } = plan.prices;
    if (pin === null || pout === null)
      throw new ConfigError(
        '--max-cost with --batch needs the batch prices: give --price-in and --price-out (USD per million tokens at the batch rate)',
      );
    const usd = (w.prompt * pin + w.completion * pout) / 1e6;
    if (usd > budget.maxCostUsd)
      throw new BudgetError(
        `nothing was sent: ${worst}, up to $${usd.toFixed(4)} at the prices given, more than --max-cost ${budget.maxCostUsd}; raise it, lower --max-tokens or -n`,
      );
  }
}

/** Uploads each file and creates its batch, noting each id in run.json as soon as it exists. */
async function submit(s: BatchSession, files: RequestFile[], save: () => void): Promise<void> {
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  for (const [i, f] of files.entries()) {
    // The file's name says when and which part; never the key, the endpoint or the model.
    const file_id = await uploadBatchFile(s.client, `bas-${stamp}-${i + 1}of${files.length}.jsonl`, f.text);
    const e: BatchEntry = {
      file_id,
      batch_id: null,
      requests: f.requests,
      status: 'uploaded',
      counts: { total: f.requests, completed: 0, failed: 0 },
      output_file_id: null,
      error_file_id: null,
      errors: [],
      graded: false,
    };
    s.state.batches.push(e);
    save();
    await createLive(s, e, save);
  }
}

/** Creates the batch of an uploaded file (also on a resume that found one uploaded, never created). */
async function createLive(s: BatchSession, e: BatchEntry, save: () => void): Promise<void> {
  e.batch_id = await createBatch(s.client, e.file_id, { made_by: 'bas eval --batch' });
  e.status = 'validating';
  save();
  s.emit({ type: 'batch-submitted', batch: e.batch_id, file: e.file_id, requests: e.requests });
}

/** Opens the folder (new, or the saved run's) and reads what it holds. */
async function open(plan: RunPlan, emit: (e: BatchEvent) => void) {
  const saved = plan.resume?.run ?? null;
  const dir = plan.resume?.dir ?? plan.output ?? defaultOutputDir(plan.model);
  const state = saved ? batchStateOf(saved, plan.resume!.file) : { batches: [] };
  if (saved && state === null)
    throw new ConfigError(
      `${dir} was not run with --batch: resume it without --batch (${savedResumeCommand(dir, saved, std.env())})`,
    );
  const folder = saved ? RunFolder.resume(dir, saved) : await RunFolder.start(dir);
  const recorded = saved
    ? await readRecorded(dir, (m) => emit({ type: 'warning', message: m }))
    : nothingRecorded(plan.tasks.rollouts);
  return { dir, folder, state: state!, recorded };
}

/**
 * Runs (or resumes) a batch eval. Throws before anything is sent for bad settings and a
 * budget the worst case does not fit; a stop (the signal) while polling leaves the batches
 * running at the provider and resolves with an `interrupted` outcome.
 */
export async function runBatchEval(plan: RunPlan, o: BatchRunOptions): Promise<BatchRunResult> {
  const target = batchTarget(plan);
  const emit = o.onEvent ?? (() => {});
  const apiKey = apiKeyFor(target, o.env ?? std.env());
  const started = Date.now();
  const tasks = new Map<number, Task>();
  const task = (i: number): Task => tasks.get(i) ?? (tasks.set(i, generateTask(plan.tasks.config, i)), tasks.get(i)!);
  const fields = requestFields(target.model, target.sampling, target.baseURL);
  const filesOf = (finished: Set<PairKey>): RequestFile[] =>
    requestFiles(
      pendingPairs(plan.tasks.n, plan.tasks.rollouts, finished) as Iterable<[number, number]>,
      task,
      fields,
      o.limits,
    );
  // A new run's worst case is refused before its folder is even made.
  const prepared = plan.resume ? null : filesOf(new Set());
  if (prepared) checkBudget(plan, prepared);
  const { dir, folder, state, recorded } = await open(plan, emit);
  try {
    const client = await makeSdk({
      baseURL: target.baseURL,
      apiKey,
      requestTimeoutMs: target.requestTimeoutMs,
      maxResponseBytes: MAX_RESPONSE_MB * 1024 * 1024,
    });
    const s: BatchSession = { plan, target, dir, folder, state, recorded, client, emit, task, written: new Set() };
    const live = state.batches.filter((e) => !e.graded);
    // While any batch sent earlier is unread, nothing is sent again.
    const files = live.length > 0 ? [] : (prepared ?? filesOf(recorded.finished));
    if (live.length === 0 && files.length === 0) return finish(s, { kind: 'nothing-to-do' }, started, null, 0);
    checkBudget(plan, files);
    return await session(s, o, files, started);
  } finally {
    folder.release();
  }
}

/** The steps of one session over an open folder: attach or submit, poll, read. */
async function session(
  s: BatchSession,
  o: BatchRunOptions,
  files: RequestFile[],
  started: number,
): Promise<BatchRunResult> {
  const { plan, folder, state } = s;
  const live = state.batches.filter((e) => !e.graded);
  folder.begin({ ...runInfoFor(plan.record, new Date()), batch: state });
  const save = (): void => void folder.note({ batch: state });
  if (live.length > 0)
    s.emit({ type: 'batch-attached', dir: s.dir, batches: live.map((e) => e.batch_id ?? e.file_id) });
  const ranHere = files.reduce((t, f) => t + f.requests, 0) + live.reduce((t, e) => t + e.requests, 0);
  const signal = o.signal ?? new AbortController().signal;
  try {
    for (const e of live) if (e.batch_id === null) await createLive(s, e, save);
    await submit(s, files, save);
    const sent = state.batches.filter((e) => !e.graded);
    await pollUntilEnded(
      { client: s.client, sleep: o.sleep ?? realSleep, signal, pace: o.pace, emit: s.emit, save },
      sent,
    );
  } catch (err) {
    if (!signal.aborted) throw err;
    return finish(s, { kind: 'interrupted', reason: signal.reason, complete: false }, started, null, ranHere);
  }
  const unread = await gradeEnded(s, save);
  if (unread === null) unrepliedRecords(s);
  return finish(s, null, started, unread, ranHere);
}

/** Ends the session: the summary, run.json's status and the outcome. */
function finish(
  s: BatchSession,
  stop: EvalOutcome | null,
  started: number,
  unread: string | null,
  ranHere: number,
): BatchRunResult {
  const summary = s.recorded.summary();
  const total = s.plan.tasks.n * s.plan.tasks.rollouts;
  const elapsed_s = (Date.now() - started) / 1000;
  // A batch session records what it set out to: every request's line, replied or not.
  const base = { dir: s.dir, summary, total, ran_here: ranHere, recorded_here: ranHere, elapsed_s, unread };
  if (stop?.kind === 'nothing-to-do') {
    return { ...base, info: s.plan.resume!.run, outcome: stop };
  }
  const status = stop ? 'interrupted' : unread !== null ? 'failed' : 'complete';
  const pace = { adaptive: false, max: 0, final: 0, lowest: 0, changes: [], dropped: 0 };
  const info = s.folder.end(status, summary, pace, null, { batch: s.state });
  const { errored, rollouts } = summary.counts;
  const max_error_rate = s.plan.limits.maxErrorRate;
  const verdict = errorBudget(summary.counts, max_error_rate);
  let outcome: EvalOutcome = stop ?? { kind: 'ok' };
  if (!stop && verdict === 'over-error-budget') outcome = { kind: verdict, errored, rollouts, max_error_rate };
  else if (!stop && verdict === 'nothing-completed') outcome = { kind: verdict };
  return { ...base, info, outcome };
}
