/**
 * `bas eval`: runs a model over the benchmark. Reads flags (over a TOML config, or over the
 * saved run with --resume), hands its plan to the engine (`runPlan`), shows its events
 * (progress and notices on stderr) and prints the summary tables (or JSON); the exit code
 * comes from the run's typed outcome.
 *
 * Exit: 0 when the run completed with errored rollouts at most --max-error-rate, or --resume
 * found nothing left; 1 when the endpoint stopped it (refused key, unknown model, unreachable,
 * every request refused) or --check failed; 2 for bad input; 3 when it finished with more
 * errors than that, or with nothing completed; 130/143 when interrupted by SIGINT/SIGTERM;
 * 141 when the reader of its output went away (a closed pipe, as a shell reports SIGPIPE).
 */
import { progressDisplay } from '../engine/progress.js';
import type { EvalResult } from '../engine/events.js';
import { withStopSignal } from '../io/stop-signal.js';
import { evalNotice, outcomeError, renderEvalResult } from './eval-run.js';
import { evalPlanFromFlags } from '../api/eval-plan.js';
import { runPlan, type RunPlan } from '../engine/run-eval.js';
import type { EvalFlags } from '../settings/settings.js';
import { checkOutputs } from '../settings/output-paths.js';
import * as std from '../io/std.js';
import type { OutStream } from '../io/std.js';
import { shellWord } from '../display/format.js';

/**
 * Runs one eval for a command: its notices and progress on `err`, stopped by the process's
 * signals. The caller prints the result and chooses the exit code.
 */
export async function runEvalCommand(plan: RunPlan, err: OutStream): Promise<EvalResult> {
  const progress = plan.settings.progress ? progressDisplay({ stream: err }) : null;
  try {
    return await withStopSignal((signal) =>
      runPlan(plan, {
        signal,
        env: std.env(),
        onEvent: (e) => {
          progress?.onEvent(e);
          const line = evalNotice(e);
          if (line !== null) err.write(line);
        },
        preflight: plan.settings.check
          ? async () => void (await (await import('./check.js')).runCheck(plan, std.env(), err))
          : undefined,
      }),
    );
  } finally {
    progress?.finish();
  }
}

/**
 * Prints a finished eval's result on `out` (the tables, or JSON) and its last line on stderr,
 * then throws the outcome's error, if any. A stopped run prints no tables: its one line says
 * what happened and how to go on.
 */
export function reportEval(result: EvalResult, plan: RunPlan, out: NodeJS.WritableStream, json: boolean): void {
  const failed = outcomeError(result, plan);
  if (result.outcome.kind === 'endpoint-stopped' || result.outcome.kind === 'interrupted') throw failed;
  out.write(renderEvalResult(result, plan, json));
  std
    .stderr()
    .write(
      result.outcome.kind === 'nothing-to-do'
        ? `bas: nothing to do: all ${result.total} rollouts of ${result.dir} are recorded and scored (bas report ${shellWord(result.dir)} shows them)\n`
        : `bas: results in ${result.dir}\n`,
    );
  if (failed) throw failed;
}

/** Runs `bas eval` with commander's options and `@FILE` words. */
export async function evalCommand(words: string[], flags: EvalFlags & { json?: boolean }): Promise<void> {
  const plan = await evalPlanFromFlags(words, flags);
  // The run folder is checked before the key is read and before --check sends its request.
  if (!plan.resume) checkOutputs([{ flag: '--output', path: plan.output ?? 'runs', kind: 'folder' }]);
  // A run sent as batches goes on as batches: --resume needs no --batch.
  if ((flags as { batch?: boolean }).batch || plan.resume?.run.batch != null)
    return reportEval(
      await (await import('./eval-batch.js')).evalBatchCommand(plan, flags),
      plan,
      std.stdout(),
      Boolean(flags.json),
    );
  const result = await runEvalCommand(plan, std.stderr());
  reportEval(result, plan, std.stdout(), Boolean(flags.json));
}
