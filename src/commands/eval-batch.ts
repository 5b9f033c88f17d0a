/**
 * `bas eval --batch` (and `bas eval --resume DIR` of a run sent that way): hands the plan to
 * the batch engine (engine/batch-run.ts), shows the provider's status and counts on stderr as
 * they change, then prints and ends like any eval. A stop leaves the batches running at the
 * provider and prints the command that re-attaches to them.
 */
import { ConfigError, FatalRunError, InterruptedError } from '../errors/index.js';
import type { BatchEvent } from '../engine/events.js';
import { runBatchEval, type BatchRunResult } from '../engine/batch-run.js';
import type { RunPlan } from '../engine/run-eval.js';
import { withStopSignal } from '../io/stop-signal.js';
import { terminalText } from '../io/terminal-text.js';
import { redact } from '../io/secrets.js';
import { BATCH_FLAGS } from '../settings/endpoint-flags.js';
import { readFlags } from '../settings/flag.js';
import { loadProviders } from '../settings/providers.js';
import { resumeCommand } from '../settings/resume-command.js';
import type { OutStream } from '../io/std.js';
import * as std from '../io/std.js';

const safe = (text: string): string => terminalText(redact(text));

/** The line each batch event gets on stderr; a status only when it changed. */
function batchNotices(err: OutStream, resume: () => string): (e: BatchEvent) => void {
  const last = new Map<string, string>();
  return (e) => {
    if (e.type === 'batch-submitted')
      return void err.write(`bas: batch ${safe(e.batch)}: ${e.requests} requests sent (file ${safe(e.file)})\n`);
    if (e.type === 'batch-attached')
      return void err.write(
        `bas: re-attaching to the batches of ${e.dir}: ${e.batches.map(safe).join(', ')}; nothing is sent again\n`,
      );
    if (e.type === 'warning') return void err.write(`bas: warning: ${safe(e.message)}\n`);
    if (e.type === 'batch-ended') {
      const why = e.errors.length > 0 ? ` (${e.errors.map(safe).join('; ')})` : '';
      return void err.write(
        `bas: batch ${safe(e.batch)} ended ${safe(e.status)}${why}: ${e.failedLines} of its lines came back errored, and its requests with no line at all are recorded as errored; ${resume()} sends every rollout with no reply again\n`,
      );
    }
    const line = `${safe(e.status)}, ${e.counts.completed} of ${e.counts.total} done, ${e.counts.failed} failed`;
    if (last.get(e.batch) === line) return;
    last.set(e.batch, line);
    err.write(`bas: batch ${safe(e.batch)}: ${line}\n`);
  };
}

/**
 * Refuses --batch through a provider of the registry that runs no OpenAI-shaped batch jobs,
 * naming those that do; a bare --base-url is taken at its word (the upload says if not).
 */
function checkBatchProvider(plan: RunPlan, given: Record<string, unknown>): void {
  if (plan.target.kind !== 'endpoint' || plan.target.provider === null) return;
  const registry = loadProviders((given.providers as string | undefined) ?? null, std.env());
  const provider = registry.get(plan.target.provider);
  if (provider === undefined || provider.batch) return;
  const have = [...registry.values()].filter((p) => p.batch).map((p) => p.name);
  throw new ConfigError(
    `--batch: provider ${provider.name} runs no OpenAI-shaped batch jobs that bas knows of; the providers that do: ${have.join(', ')}. ` +
      "For an open-weight model, vLLM's run-batch takes the file of bas gen --format batch (docs/providers-and-pacing.md#batch-engines)",
  );
}

/**
 * Runs a batch eval for `bas eval`: its result, for eval to print and end with as any run's;
 * a stop, or a batch whose files could not be read, is thrown with the command that goes on.
 */
export async function evalBatchCommand(plan: RunPlan, given: Record<string, unknown>): Promise<BatchRunResult> {
  checkBatchProvider(plan, given);
  const f = readFlags(BATCH_FLAGS, given);
  const err = std.stderr();
  let dir = plan.resume?.dir ?? plan.output ?? '';
  const resume = (): string => resumeCommand(dir, plan, std.env());
  const result: BatchRunResult = await withStopSignal((signal) =>
    runBatchEval(plan, {
      limits: { maxRequests: f.batchMaxRequests, maxBytes: Math.floor(f.batchMaxMb * 1024 * 1024) },
      pace: { firstMs: f.batchPoll * 1000, maxMs: f.batchPoll * 20_000 },
      signal,
      env: std.env(),
      onEvent: batchNotices(err, resume),
    }),
  );
  dir = result.dir;
  if (result.outcome.kind === 'interrupted') {
    const reason = result.outcome.reason instanceof InterruptedError ? result.outcome.reason : null;
    throw new InterruptedError(
      `${reason?.message ?? 'interrupted'}; the batches keep running at the provider (nothing was cancelled) and their ids are in ${dir}: re-attach with ${resume()}`,
      reason?.exitCode ?? 130,
    );
  }
  if (result.unread !== null)
    throw new FatalRunError(`${safe(result.unread)}; what was read is in ${dir}: try again with ${resume()}`);
  return result;
}
