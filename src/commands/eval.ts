/**
 * `bas eval`: runs a model over the benchmark. Reads flags (over a TOML config, or over the
 * saved run with --resume), checks them all, opens the run folder, runs every pending
 * (index, rollout) pair, and prints the summary tables (or JSON).
 *
 * Exit: 0 when the run completed with errored rollouts at most --max-error-rate; 1 when the
 * endpoint stopped it (refused key, unknown model, unreachable, every request refused); 2 for
 * bad input; 3 when it finished with more errors than that, or with nothing completed;
 * 130/143 when interrupted by SIGINT/SIGTERM.
 */
import { ConfigError, FatalRunError } from '../errors.js';
import { renderSummary } from '../report/tables.js';
import { renderEvalHeader, renderEvalCost } from '../report/eval-header.js';
import { isPolicyName } from '../task/policies.js';
import { builtinClient, builtinPolicy, httpClient, type ModelClient } from '../run/client.js';
import { loadConfigFile, type FileConfig } from '../run/config.js';
import { gcWhenAbove } from '../run/memory.js';
import { attachProgress } from '../run/progress.js';
import { DEFAULT_RETRY_POLICY } from '../run/retry.js';
import { Runner } from '../run/runner.js';
import {
  countPending,
  defaultOutputDir,
  openSession,
  pendingPairs,
  readSavedRun,
  runInfoFor,
  savedSettings,
} from '../run/session.js';
import { resolveSettings, type EvalFlags, type EvalSettings } from '../run/settings.js';
import { writeRunInfo, type RunInfo } from '../runfile/store.js';
import { shardSize } from '../runfile/shard.js';

/** Ended by a signal; the CLI exits with 128 + the signal's number, as a shell would. */
class InterruptedError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Finished, but with more errored rollouts than --max-error-rate allows (or none completed). */
class ErrorRateError extends Error {
  readonly exitCode = 3;
}

/** `@FILE` (or `@ FILE`) positional words, as the original's `eval @ config.toml`. */
function configFromWords(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  const joined = words[0] === '@' ? `@${words[1] ?? ''}` : words[0]!;
  if (!joined.startsWith('@') || joined.length < 2 || words.length > (words[0] === '@' ? 2 : 1)) {
    throw new ConfigError(`unexpected argument ${JSON.stringify(words.join(' '))}: bas eval takes flags, or @FILE for a config file`);
  }
  return joined.slice(1);
}

function makeClient(s: EvalSettings, env: NodeJS.ProcessEnv): ModelClient {
  const policy = builtinPolicy(s.model);
  if (policy !== null && isPolicyName(policy)) return builtinClient(policy);
  const apiKey = env[s.apiKeyVar];
  if (!apiKey) {
    throw new ConfigError(
      `${s.apiKeyVar} is not set: export the API key in it, or name another variable with --api-key-var (a local server that needs no key takes any value)`,
    );
  }
  // A key with a line break or other control character (a file saved on Windows, a stray
  // newline) cannot go in a header: every request would fail as a network error.
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    throw new ConfigError(`${s.apiKeyVar} holds characters that cannot go in an HTTP header (spaces, line breaks or non-ASCII): check how the key was exported`);
  }
  return httpClient({ model: s.model, baseURL: s.baseURL, apiKey, sampling: s.sampling, requestTimeoutMs: s.requestTimeoutS * 1000 });
}

/** Runs `bas eval` with commander's options and `@FILE` words. */
export async function evalCommand(words: string[], flags: EvalFlags & { json?: boolean }): Promise<void> {
  const env = process.env;
  const atFile = configFromWords(words);
  if (atFile && flags.config) throw new ConfigError('give the config file once: either --config FILE or @FILE');
  const configPath = flags.config ?? atFile;
  const file: FileConfig | null = configPath ? loadConfigFile(configPath) : null;
  if (flags.resume && flags.output) throw new ConfigError('--resume DIR continues the run in DIR; it does not take --output');
  const saved = flags.resume ? readSavedRun(flags.resume) : null;
  const settings = resolveSettings(flags, file, configPath ?? '', env, saved ? savedSettings(saved) : null);
  const client = makeClient(settings, env);
  const dir = flags.resume ?? settings.output ?? defaultOutputDir(settings.model, settings.shard);

  const session = await openSession(dir, Boolean(flags.resume));
  const { store, builder } = session;
  const started = new Date();
  const info: RunInfo = saved
    ? { ...saved, ...runInfoFor(settings, started), started_at: saved.started_at, status: 'running', ended_at: null, summary: null }
    : runInfoFor(settings, started);
  if (saved) info.resumed_at = [...((saved.resumed_at as string[] | undefined) ?? []), started.toISOString()];
  writeRunInfo(dir, info);

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
  const finishProgress = settings.progress ? attachProgress(runner, { total, already: total - pending, stream: process.stderr, concurrency: settings.concurrency }) : () => {};

  let signal: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    signal ??= sig;
    runner.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let outcome;
  let summary;
  try {
    try {
      outcome = await runner.run(pendingPairs(settings.n, settings.rollouts, session.finished, settings.shard));
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      finishProgress();
      store.close();
    }
    summary = builder.result();
    info.status = outcome.fatal ? 'failed' : signal ? 'interrupted' : 'complete';
    info.ended_at = new Date().toISOString();
    info.summary = summary;
    info.max_error_rate = settings.maxErrorRate;
    info.pace = outcome.pace;
    writeRunInfo(dir, info);
  } finally {
    // The folder stays ours until its final run.json is written: a resume started earlier
    // would be overwritten by it.
    store.release();
  }

  if (outcome.fatal) {
    throw new FatalRunError(`${outcome.fatal.message}; run stopped (finished rollouts are kept in ${dir}; fix the cause and continue with --resume ${dir})`);
  }
  if (signal) {
    const code = signal === 'SIGINT' ? 130 : 143;
    throw new InterruptedError(`interrupted by ${signal}; finished rollouts are kept in ${dir}: continue with bas eval --resume ${dir}`, code);
  }
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
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
    throw new ErrorRateError(`no rollout completed (${errored} errored${why}); bas eval --resume ${dir} re-runs them once the cause is fixed`);
  }
  if (rollouts > 0 && errored / rollouts > settings.maxErrorRate) {
    throw new ErrorRateError(
      `${errored} of ${rollouts} rollouts errored, more than --max-error-rate ${settings.maxErrorRate} allows${why}; bas eval --resume ${dir} re-runs them`,
    );
  }
}
