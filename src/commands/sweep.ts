/**
 * `bas sweep`: difficulty curves in one command. Runs one eval per model and point of a grid
 * over --num-transactions (× --fault-rate when given) into sub-folders of one sweep folder,
 * each through the engine's `runEval`, then prints (and draws) reward, `bas_correct` and
 * `fault_audit` against the rows with 95% intervals, one curve per model.
 *
 * The sweep folder holds sweep.json (the models, the points and the eval flags, never a key:
 * flags name the key's variable, not the key; src/runfile/sweep-file.ts reads and writes it)
 * and one run folder per model and point, so `bas leaderboard`, `bas report` and `bas compare`
 * read it as they read any run. `--resume SWEEP_DIR` continues every point: unfinished and
 * errored rollouts are run again (eval's own resume), points not yet started are started.
 * A sweep of bas 0.3 (one model, no `models` in sweep.json) reads and resumes the same way.
 *
 * Quiet by default: one line per point on stderr (live on a terminal) and the final table on
 * stdout; `--verbose` adds each point's own summary tables, as `bas eval` prints them.
 */
import { asClause } from '../io/outside-text.js';
import { join } from 'node:path';
import { BudgetError, ConfigError, ErrorRateError, FatalRunError, InterruptedError } from '../errors/index.js';
import { fileSink, withSink } from '../io/output.js';
import { terminalText } from '../io/terminal-text.js';
import { runInputs } from '../runfile/read.js';
import { planModels, sweepFile, writeSweepPlan } from '../runfile/sweep-file.js';
import { withStopSignal } from '../io/stop-signal.js';
import { evalNotice, outcomeError, renderEvalResult } from './eval-run.js';
import { planSweep, reworded, type SweepFlags } from '../api/sweep-plan.js';
import { pointName, readSweepFolder, renderSweep, renderSweepCsv } from '../report/sweep.js';
import { durationText } from '../report/provenance.js';
import { progressDisplay, type ProgressDisplay } from '../engine/progress.js';
import type { EvalEvent, EvalResult } from '../engine/events.js';
import { runSweepPlan, type SweepOutcome, type PlannedPoint, type SweepRun } from '../engine/sweep.js';
import { checkOutputs } from '../settings/output-paths.js';
import { resumeCommand } from '../settings/resume-command.js';
import { shellWord } from '../display/format.js';
import type { RunPlan } from '../engine/run-eval.js';
import * as std from '../io/std.js';

/**
 * One line per point on stderr: on a terminal with progress on, the progress display of
 * `bas eval` redrawn in place after the point's label, then the point's final line; elsewhere
 * only the final line.
 */
class PointLine {
  private readonly t0 = Date.now();
  private readonly display: ProgressDisplay | null;

  constructor(
    private readonly label: string,
    progress: boolean,
  ) {
    this.display = progress ? progressDisplay({ stream: std.stderr(), label, milestones: false }) : null;
  }

  onEvent(e: EvalEvent): void {
    this.display?.onEvent(e);
  }

  /** The final line (the live one is cleared first). */
  finish(text: string): void {
    this.display?.finish();
    std.stderr().write(`${terminalText(`${this.label}: ${text}`)}, ${durationText((Date.now() - this.t0) / 1000)}\n`);
  }
}

/** How a point whose every reply was cut off by the token limit ends its line. */
const CUT_OFF = 'every reply cut off by the token limit: recorded as 0';

/** The final words of a point's line: n, reward with its interval, errors, and how it ended. */
function pointOutcome(r: EvalResult, cutOff = false): string {
  const s = r.summary;
  // A point cut off at its budget scores 0 on each rollout it ran (report/sweep.ts).
  const e = cutOff ? s.reward_errors_as_zero : s.reward;
  const reward =
    e.mean === null
      ? 'no reward'
      : `reward ${e.mean.toFixed(3)}${e.ci95 ? ` [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]` : ''}`;
  const how: Record<string, string> = {
    ok: '',
    'nothing-to-do': ' (already done)',
    'over-error-budget': ' (over the error budget)',
    'nothing-completed': ' (nothing completed)',
    'endpoint-stopped': ' (stopped by the endpoint)',
    interrupted: ' (interrupted)',
  };
  const end = cutOff ? ` (${CUT_OFF})` : (how[r.outcome.kind] ?? '');
  return `n ${s.counts.completed}/${r.total}, ${reward}, ${s.counts.errored} errored${end}`;
}

/** Where a point stands, for the words of a failure: `model, 12 rows` (the model only when there are several). */
function whereOf(run: SweepRun, point: PlannedPoint): string {
  return `${planModels(run.file).length > 1 ? `${point.model}, ` : ''}${pointName(point.spec)}`;
}

/**
 * Runs the sweep with its points' lines on stderr, stopped by the process's signals, and
 * returns how it ended. `--check` checks each model's endpoint once, before its first run
 * that has work.
 */
async function runSweepCommand(run: SweepRun, flags: SweepFlags): Promise<SweepOutcome> {
  const progress = flags.progress !== false;
  const checked = new Set<string>();
  let line: PointLine | null = null;
  const total = run.points.length;
  return withStopSignal((signal) =>
    runSweepPlan(run, {
      signal,
      env: std.env(),
      preflight: async (point) => {
        if (!point.plan.settings.check || checked.has(point.model)) return;
        checked.add(point.model);
        await (await import('./check.js')).runCheck(point.plan, std.env(), std.stderr());
      },
      onEvent: (e) => {
        switch (e.type) {
          case 'point-started': {
            const label = `bas: [${e.index + 1}/${total}] ${total > 1 && planModels(run.file).length > 1 ? `${e.point.model}, ` : ''}${pointName(e.point.spec)}${e.point.resumed ? ' (resumed)' : ''}`;
            line = new PointLine(label, progress);
            return;
          }
          case 'point-event': {
            line?.onEvent(e.event);
            // Notices of a resumed or restarted point are the sweep's own line's business;
            // warnings are always shown.
            const notice = evalNotice(e.event);
            if (notice !== null && (flags.verbose || e.event.type === 'warning')) std.stderr().write(notice);
            return;
          }
          case 'point-failed':
            line?.finish('not run');
            return;
          case 'point-kept':
            line?.finish(`${CUT_OFF} by an earlier session, not run again`);
            return;
          case 'point-ended':
            line?.finish(pointOutcome(e.result, e.cut_off));
            if (flags.verbose) std.stderr().write(renderEvalResult(e.result, e.point.plan, false));
            return;
        }
      },
    }),
  );
}

/** The error a sweep's end gives `bas sweep` (its exit code and its one line), or null when every point went well. */
function sweepError(run: SweepRun, outcome: SweepOutcome): unknown {
  const { dir } = run;
  const afresh = (m: string): string =>
    `${asClause(m)}. Nothing of the sweep was scored: run the same bas sweep command with the cause fixed, in the same --output ${shellWord(dir)}`;
  // The whole command a resume needs, with the endpoint flags a point's plan must be confirmed by.
  const providers = run.file.flags.providers;
  const resume = (plan: RunPlan): string =>
    resumeCommand(dir, plan, std.env(), { providers: typeof providers === 'string' ? providers : null });
  const later = (point: PlannedPoint) => (m: string) =>
    `sweep stopped at ${point.spec.model === undefined ? '' : `${point.spec.model}, `}${pointName(point.spec)}: ${asClause(m)}; continue the whole sweep with ${resume(point.plan)}`;
  switch (outcome.kind) {
    case 'failed': {
      const point = run.points[outcome.index]!;
      return reworded(outcome.error, outcome.withdrawn ? afresh : later(point));
    }
    case 'stopped': {
      // A stop of the whole sweep: its own line, naming the run, with the sweep's resume
      // (eval's line would point at the run's folder).
      const point = run.points[outcome.index]!;
      const where = whereOf(run, point);
      const o = outcome.result.outcome;
      if (o.kind === 'interrupted') {
        const reason = o.reason instanceof InterruptedError ? o.reason : null;
        return new InterruptedError(
          `${reason?.message ?? 'interrupted'} at ${where}; finished rollouts are kept: continue the whole sweep with ${resume(point.plan)}`,
          reason?.exitCode ?? 130,
        );
      }
      const message = o.kind === 'endpoint-stopped' ? o.failure.message : '';
      if (outcome.withdrawn) return reworded(new FatalRunError(message), afresh);
      return new FatalRunError(
        `${asClause(message)}; sweep stopped at ${where}: fix the cause and continue the whole sweep with ${resume(point.plan)}`,
      );
    }
    case 'done': {
      if (outcome.failed.length === 0) return null;
      const spent = outcome.failed.filter((f) => f.result.outcome.kind === 'budget');
      if (spent.length > 0) return budgetStops(run, spent, resume);
      const first = outcome.failed[0]!;
      const point = run.points[first.index]!;
      const error = outcomeError(first.result, point.plan)!;
      return new ErrorRateError(
        `${outcome.failed.length} of ${run.points.length} runs ended over their error budget or with nothing completed (first: ${point.model} at ${pointName(point.spec)}: ${error.message.replace(/[.\s]+$/, '')}); ${resume(run.points[run.points.length - 1]!.plan)} re-runs their errored rollouts`,
      );
    }
  }
}

/**
 * The end of a sweep some of whose runs stopped at their budget: `--max-cost` and
 * `--max-total-tokens` apply to each run of the grid on its own (docs/sweep.md), and a sweep's
 * resume keeps its flags, so each such run is continued on its own with a larger budget.
 */
function budgetStops(
  run: SweepRun,
  spent: Array<{ index: number; result: EvalResult }>,
  resume: (plan: RunPlan) => string,
): Error {
  const first = run.points[spent[0]!.index]!;
  const o = spent[0]!.result.outcome;
  const why = o.kind === 'budget' ? o.message : 'its budget is spent';
  const point = resumeCommand(spent[0]!.result.dir, first.plan, std.env());
  return new BudgetError(
    `${spent.length} of ${run.points.length} runs stopped at their budget (first: ${whereOf(run, first)}: ${why}); each run of a sweep has its own budget: continue each with ${point} --max-cost USD (or --max-total-tokens N), then ${resume(first.plan)} reports the whole grid`,
  );
}

/**
 * What the sweep says of its points whose every reply was cut off by the token limit: they are
 * points of the curve (a score of 0 at that budget), final, and a resume keeps them; measuring
 * them takes a larger limit, which is a new sweep (a sweep's settings are fixed).
 */
function cutOffNote(run: SweepRun, indices: number[]): string {
  const where = indices.map((i) => whereOf(run, run.points[i]!)).join('; ');
  return `bas: ${where}: every reply was cut off by the token limit, so the first-contact rule stopped the run after 3 rollouts; recorded as 0 and not run again by a resume. To measure it, run a new sweep into another --output with a larger --max-tokens\n`;
}

export async function sweep(words: string[], flags: SweepFlags): Promise<void> {
  if ([flags.json, flags.csv].filter(Boolean).length > 1) throw new ConfigError('give --json or --csv, not both');
  const run = await planSweep(words, flags);
  const { dir, file, fresh } = run;
  // Every output is checked before the first point runs: the HTML page may not be written
  // into the sweep folder, which the sweep fills itself.
  checkOutputs([
    { flag: '--output', path: flags.resume ? null : dir, kind: 'folder' },
    {
      flag: '--html',
      path: flags.html,
      kind: 'file',
      inputs: [sweepFile(dir), ...file.points.flatMap((p) => runInputs(join(dir, p.folder)))],
      owned: [dir],
    },
    {
      flag: '--svg',
      path: flags.svg,
      kind: 'file',
      inputs: [sweepFile(dir), ...file.points.flatMap((p) => runInputs(join(dir, p.folder)))],
      owned: [dir],
    },
  ]);
  // A fresh sweep writes its plan first; if its first point is refused before anything was
  // scored, runSweep takes the plan back, so the same command, corrected, can use the folder.
  if (fresh) await writeSweepPlan(dir, file);

  const outcome = await runSweepCommand(run, flags);
  const error = sweepError(run, outcome);
  if (outcome.kind !== 'done') throw error;

  const result = await readSweepFolder(dir);
  if (flags.html) {
    const { sweepPage } = await import('../report/html/sweep-page.js');
    await withSink(fileSink(flags.html, '--html'), async (sink) => sink.write(sweepPage(result)));
  }
  if (flags.svg) {
    const { sweepSvg } = await import('../report/html/figure.js');
    await withSink(fileSink(flags.svg, '--svg'), async (sink) => sink.write(sweepSvg(result)));
  }
  std
    .stdout()
    .write(
      flags.json ? JSON.stringify(result, null, 2) + '\n' : flags.csv ? renderSweepCsv(result) : renderSweep(result),
    );
  if (flags.html) std.stderr().write(`bas: HTML sweep written to ${flags.html}\n`);
  if (flags.svg) std.stderr().write(`bas: SVG figure written to ${flags.svg}\n`);
  if (outcome.cut_off.length > 0) std.stderr().write(cutOffNote(run, outcome.cut_off));
  if (error !== null) throw error;
}
