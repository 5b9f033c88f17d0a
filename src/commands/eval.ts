/**
 * `bas eval`: runs a model over the benchmark. Reads flags (over a TOML config, or over the
 * saved run with --resume), checks them all, opens the run folder, runs every pending
 * (index, rollout) pair, and prints the summary tables (or JSON).
 *
 * Exit: 0 when the run completed with errored rollouts at most --max-error-rate, or --resume
 * found nothing left; 1 when the endpoint stopped it (refused key, unknown model, unreachable,
 * every request refused) or --check failed; 2 for bad input; 3 when it finished with more
 * errors than that, or with nothing completed; 130/143 when interrupted by SIGINT/SIGTERM;
 * 141 when the reader of its output went away (a closed pipe, as a shell reports SIGPIPE).
 */
import { ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors.js';
import { renderSummary } from '../report/tables.js';
import { renderEvalHeader, renderEvalCost } from '../report/eval-header.js';
import { costOf } from '../report/run-report.js';
import type { Summary } from '../summary/summary.js';
import { isPolicyName } from '../task/policies.js';
import { builtinClient, builtinPolicy, httpClient, type ModelClient } from '../endpoint/client.js';
import { configPathFrom, loadConfigFile, type FileConfig } from '../settings/config.js';
import { gcWhenAbove } from '../engine/memory.js';
import { attachProgress } from '../engine/progress.js';
import { DEFAULT_RETRY_POLICY } from '../endpoint/retry.js';
import { Runner } from '../engine/runner.js';
import {
  countPending,
  defaultOutputDir,
  openSession,
  pendingPairs,
  readSavedRun,
  readSummary,
  rolloutsLeft,
  runInfoFor,
  savedSettings,
} from '../engine/session.js';
import { apiKeyFor, resolveSettings, type EvalFlags, type EvalSettings } from '../settings/settings.js';
import { join } from 'node:path';
import { RUN_FILE, writeRunInfo, type RunInfo } from '../runfile/run-info.js';
import { FolderLock } from '../runfile/lock.js';
import { onOutputClosed } from '../io/output.js';
import { shardSize } from '../runfile/shard.js';

function makeClient(s: EvalSettings, env: NodeJS.ProcessEnv): ModelClient {
  const policy = builtinPolicy(s.model);
  if (policy !== null && isPolicyName(policy)) return builtinClient(policy);
  const apiKey = apiKeyFor(s, env);
  return httpClient({
    model: s.model,
    baseURL: s.baseURL,
    apiKey,
    sampling: s.sampling,
    requestTimeoutMs: s.requestTimeoutS * 1000,
    maxResponseBytes: s.maxResponseBytes,
    stream: s.stream ? { idleTimeoutMs: s.streamIdleTimeoutS * 1000 } : null,
  });
}

/** "; it used 15,552 tokens ($0.1016), 15,552 of them on errored rollouts", or nothing when none were reported. */
function spentSoFar(summary: Summary, s: EvalSettings): string {
  const t = summary.tokens;
  if (t.total === 0) return '';
  const c = costOf(summary, {}, s.prices);
  const usd = c.total_usd === null ? '' : ` ($${c.total_usd.toFixed(4)})`;
  const lost = t.unscored.total > 0 ? `, ${t.unscored.total.toLocaleString('en-US')} of them on errored rollouts` : '';
  return `; it used ${t.total.toLocaleString('en-US')} tokens${usd}${lost}`;
}

/** Runs `bas eval` with commander's options and `@FILE` words. */
export async function evalCommand(words: string[], flags: EvalFlags & { json?: boolean }): Promise<void> {
  const env = process.env;
  const configPath = configPathFrom(words, flags.config, 'bas eval');
  const file: FileConfig | null = configPath ? loadConfigFile(configPath) : null;
  if (flags.resume && flags.output)
    throw new ConfigError('--resume DIR continues the run in DIR; it does not take --output');
  const saved = flags.resume ? await readSavedRun(flags.resume) : null;
  const settings = resolveSettings(
    flags,
    file,
    configPath ?? '',
    env,
    saved ? savedSettings(saved) : null,
    flags.resume ? join(flags.resume, RUN_FILE) : undefined,
  );
  if (flags.resume) {
    // Decided before asking for a key or taking the folder: a finished run is left as it is.
    const left = await rolloutsLeft(flags.resume, settings.n, settings.rollouts, settings.shard);
    if (left.pending === 0) {
      // The summary is printed as a finished eval prints it, so scripts reading it still can.
      const summary = await readSummary(flags.resume);
      if (saved!.status !== 'complete') {
        // Every rollout is in, but the run ended before its last run.json (a kill -9 after the
        // final record): finish it, under the lock, so reports stop calling it interrupted.
        const lock = FolderLock.acquire(flags.resume);
        try {
          writeRunInfo(flags.resume, { ...saved!, status: 'complete', ended_at: new Date().toISOString(), summary });
        } finally {
          lock.release();
        }
        process.stderr.write(
          `bas: ${flags.resume} had every rollout recorded but was marked ${JSON.stringify(saved!.status)}; it is now marked complete\n`,
        );
      }
      process.stdout.write(
        flags.json
          ? `${JSON.stringify({ ...summary, cost: costOf(summary, {}, settings.prices) }, null, 2)}\n`
          : `${renderSummary(summary, { title: `${settings.model} · ${flags.resume}` })}\n`,
      );
      process.stderr.write(
        `bas: nothing to do: all ${left.total} rollouts of ${flags.resume} are recorded and scored (bas report ${flags.resume} shows them)\n`,
      );
      return;
    }
    process.stderr.write(`bas: resuming ${flags.resume}: ${left.pending} of ${left.total} rollouts to run\n`);
  }
  const client = makeClient(settings, env);
  if (settings.check) await (await import('./check.js')).runCheck(settings, env, process.stderr);
  const dir = flags.resume ?? settings.output ?? defaultOutputDir(settings.model, settings.shard);

  const session = await openSession(dir, Boolean(flags.resume));
  const { store, builder } = session;
  const started = new Date();
  const info: RunInfo = saved
    ? {
        ...saved,
        ...runInfoFor(settings, started),
        started_at: saved.started_at,
        status: 'running',
        ended_at: null,
        summary: null,
      }
    : runInfoFor(settings, started);
  if (saved) info.resumed_at = [...((saved.resumed_at as string[] | undefined) ?? []), started.toISOString()];
  if (session.restarted)
    process.stderr.write(
      `bas: ${dir} held a run that recorded no scored rollout; starting it again with these settings\n`,
    );

  const total = shardSize(settings.n, settings.shard) * settings.rollouts;
  const pending = countPending(settings.n, settings.rollouts, session.finished, settings.shard);
  const collect = gcWhenAbove(16, 1000);
  const runner = new Runner({
    taskConfig: settings.task,
    model: settings.model,
    client,
    policy: { ...DEFAULT_RETRY_POLICY, maxRetries: settings.maxRetries },
    concurrency: settings.concurrency,
    episodeTimeoutMs: settings.timeoutS * 1000,
    requestTimeoutMs: settings.requestTimeoutS * 1000,
    adaptive: settings.adapt,
    endpoint: info.base_url ?? 'the endpoint',
    sink: (record) => {
      store.append(record);
      builder.add(record);
      collect();
    },
  });
  const finishProgress = settings.progress
    ? attachProgress(runner, {
        total,
        already: total - pending,
        stream: process.stderr,
        concurrency: settings.concurrency,
      })
    : () => {};

  let signal: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    signal ??= sig;
    runner.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A reader that went away (`| head -1`) ends the run as a signal would: run.json final, lock removed.
  const offPipe = onOutputClosed(() => onSignal('SIGPIPE'));
  let outcome;
  let summary;
  try {
    writeRunInfo(dir, info);
    try {
      outcome = await runner.run(pendingPairs(settings.n, settings.rollouts, session.finished, settings.shard));
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      offPipe();
      finishProgress();
      store.close();
    }
    summary = builder.result();
    info.status = outcome.fatal ? 'failed' : signal ? 'interrupted' : 'complete';
    info.ended_at = new Date().toISOString();
    info.summary = summary;
    info.pace = outcome.pace;
    writeRunInfo(dir, info);
  } finally {
    // The folder stays ours until its final run.json is written: a resume started earlier
    // would be overwritten by it.
    store.release();
  }

  if (outcome.fatal) {
    const how =
      summary.counts.completed === 0
        ? `no rollout was scored, so ${dir} can be started again: fix the cause and run bas eval --output ${dir} with the corrected settings`
        : `finished rollouts are kept in ${dir}; fix the cause and continue with --resume ${dir}`;
    throw new FatalRunError(`${outcome.fatal.message}; run stopped (${how})${spentSoFar(summary, settings)}`);
  }
  if (signal) {
    const code = signal === 'SIGINT' ? 130 : signal === 'SIGPIPE' ? 141 : 143;
    const why =
      signal === 'SIGPIPE' ? 'stopped: the reader of its output went away (closed pipe)' : `interrupted by ${signal}`;
    throw new InterruptedError(
      `${why}; finished rollouts are kept in ${dir}: continue with bas eval --resume ${dir}`,
      code,
    );
  }
  if (flags.json) {
    // The summary, with what it cost at the run's prices (errored rollouts' part apart).
    process.stdout.write(`${JSON.stringify({ ...summary, cost: costOf(summary, {}, settings.prices) }, null, 2)}\n`);
  } else {
    const elapsedS = (Date.parse(info.ended_at!) - started.getTime()) / 1000;
    const header = renderEvalHeader({ dir, info, elapsedS, ranHere: pending, pace: outcome.pace });
    process.stdout.write(`${header}\n${renderSummary(summary)}${renderEvalCost(summary, settings.prices)}`);
  }
  process.stderr.write(`bas: results in ${dir}\n`);
  const { completed, errored, rollouts } = summary.counts;
  const top = summary.errors[0];
  const why = top?.messages[0] ? `; commonest: ${top.type}, "${top.messages[0].example}"` : '';
  if (completed === 0 && errored > 0) {
    throw new ErrorRateError(
      `no rollout completed (${errored} errored${why}); bas eval --resume ${dir} re-runs them once the cause is fixed`,
    );
  }
  if (rollouts > 0 && errored / rollouts > settings.maxErrorRate) {
    throw new ErrorRateError(
      `${errored} of ${rollouts} rollouts errored, more than --max-error-rate ${settings.maxErrorRate} allows${why}; bas eval --resume ${dir} re-runs them`,
    );
  }
}
