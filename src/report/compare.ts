/**
 * `bas compare` in data: runs side by side, and for each run that shares tasks with the
 * baseline (the first run), the paired difference in reward with a seeded bootstrap interval.
 *
 * Pairing: per task, the rollouts of each run are averaged first (so a run with more rollouts
 * does not weigh more), over completed rollouts only; a task where either run has no completed
 * rollout is left out of the pairing and counted. Errors are shown beside it, and the same
 * difference with errors counted as 0 is given too.
 */
import { terminalText } from '../io/terminal-text.js';
import { sameTaskConfig } from '../task/config.js';
import type { TaskConfig } from '../task/types.js';
import { versionClash } from '../runfile/versions.js';
import { readRun, type RunData } from './read.js';
import { ConfigError } from '../errors/index.js';
import { stderrWarn, type Warn } from '../runfile/read.js';
import { describeTask } from './run-report.js';
import { pairedBootstrap, type Estimate, type PairedBootstrap } from '../summary/stats.js';
import { anytimeOf, anytimeReason, type AnytimeDiff } from './anytime-verdict.js';
import type { Summary } from '../summary/summary.js';
import { fitTable, wrapCell } from './fit-table.js';
import { refuseRepeatedRuns, runNames } from './run-names.js';
import { COMPARE_MEASURES } from '../settings/choices.js';
import { fmt, fmtCi, fmtInt, signed } from './tables.js';
import { dateText, durationText, samplingDifference, samplingShort, type Provenance } from './provenance.js';

type CompareMeasure = (typeof COMPARE_MEASURES)[number];

interface ComparedRun {
  label: string;
  /** The model, with the folder where another run has the same model (see `runNames`). */
  name: string;
  dir: string;
  model: string;
  task: TaskConfig | null;
  status: string | null;
  notes: string[];
  tasks: number;
  rollouts: number;
  completed: number;
  errors: number;
  errors_by_type: Record<string, number>;
  measures: Record<CompareMeasure, Estimate>;
  /** Model, endpoint, sampling as sent, versions, dates, wall time (see provenance.ts). */
  provenance: Provenance;
}

type Verdict = string; // "<label> better" or "no difference shown at 95%"

export interface Pairing {
  baseline: string;
  run: string;
  /** False when the task configurations differ: rewards are then not comparable task by task. */
  comparable: boolean;
  note: string | null;
  shared_tasks: number;
  /** Shared tasks left out because one run has no completed rollout on them. */
  left_out: number;
  /** Mean over paired tasks of (run − baseline) reward, with its bootstrap interval. */
  diff: PairedBootstrap | null;
  /** The same with errored rollouts counted as reward 0. */
  diff_errors_as_zero: PairedBootstrap | null;
  /**
   * The anytime-valid 95% interval (confidence sequence) of the mean difference over the
   * shared tasks, errored rollouts as 0: valid whenever the runs were stopped, however often
   * they were looked at (docs/statistics.md). Null without shared tasks; absent before 0.4.1.
   */
  anytime?: AnytimeDiff | null;
  /**
   * "<label> better", "no difference shown at 95%", or null; followed by "; sampling differs
   * (…)" when the two runs were not sent the same sampling settings. From the bootstrap of
   * `diff`, or from `anytime` when `verdict_from` says so.
   */
  verdict: Verdict | null;
  /**
   * Which interval gave the verdict: `bootstrap` (`diff`, fixed n), or `anytime` (the
   * confidence sequence, errors as 0) when a stopping rule looked at either run (since 0.4.1).
   */
  verdict_from?: 'bootstrap' | 'anytime';
  /** Why the verdict is the anytime-valid interval's ("B was stopped by --precision"), or null. */
  verdict_why?: string | null;
  /** What differs in the sampling settings as sent ("temperature 0 vs 0.7"), or null when nothing does. */
  sampling_differs: string | null;
}

export interface Comparison {
  baseline: string;
  seed: number;
  resamples: number;
  runs: ComparedRun[];
  pairings: Pairing[];
}

function measuresOf(s: Summary): Record<CompareMeasure, Estimate> {
  return {
    bas_correct: s.rewards.bas_correct,
    fault_audit: s.rewards.fault_audit,
    reward: s.reward,
    reward_errors_as_zero: s.reward_errors_as_zero,
    fault_precision: s.metrics.fault_precision,
    fault_recall: s.metrics.fault_recall,
    num_flagged: s.metrics.num_flagged,
    parsed: s.metrics.parsed,
  };
}

/** Run labels: A, B, … Z, then R27, R28 … */
function runLabel(i: number): string {
  return i < 26 ? String.fromCharCode(65 + i) : `R${i + 1}`;
}

/** The verdict from an interval of (run − baseline). */
function verdictOf(ci: [number, number] | null, run: string, baseline: string): Verdict | null {
  if (!ci) return null;
  if (ci[0] > 0) return `${run} better`;
  if (ci[1] < 0) return `${baseline} better`;
  return 'no difference shown at 95%';
}

/** A verdict that says so when the runs were sampled differently: such a pair is never like for like in silence. */
function withSampling(v: Verdict | null, sampling: string | null): Verdict | null {
  return v === null || sampling === null ? v : `${v}; sampling differs (${sampling})`;
}

/** Why two runs cannot be paired task by task (different prompt, generator or tasks), or null when they can. */
function pairingApart(base: RunData, baseLabel: string, other: RunData, label: string): string | null {
  const clash = versionClash(other.run, base.run);
  if (clash)
    return clash.what === 'prompt'
      ? `${label} was made with prompt ${clash.a ?? 'unknown'} and ${baseLabel} with ${clash.b ?? 'unknown'}: the same task was asked differently`
      : `${label} was made with task generator ${clash.a ?? 'unknown'} and ${baseLabel} with ${clash.b ?? 'unknown'}: the same index is a different task`;
  if (!sameTaskConfig(base.task, other.task))
    return `${label} ran different tasks (${describeTask(other.task)}) from ${baseLabel} (${describeTask(base.task)})`;
  return null;
}

/**
 * The per-task differences (other − base) over the tasks both ran, found by walking the two
 * index-ordered task lists side by side: with errors as 0 on every shared task, and over
 * completed rollouts where both runs completed one.
 */
function taskDiffs(base: RunData, other: RunData): { shared: number; diffs: Float64Array; diffsZero: Float64Array } {
  const a = base.builder.taskMeans();
  const b = other.builder.taskMeans();
  const diffs = new Float64Array(Math.min(a.length, b.length));
  const diffsZero = new Float64Array(diffs.length);
  let [shared, paired, i] = [0, 0, 0];
  for (let j = 0; j < b.length; j++) {
    const index = b.index[j]!;
    while (i < a.length && a.index[i]! < index) i++;
    if (i === a.length || a.index[i] !== index) continue;
    diffsZero[shared++] = b.rewardZero[j]! - a.rewardZero[i]!;
    if (b.completed[j] && a.completed[i]) diffs[paired++] = b.reward[j]! - a.reward[i]!;
  }
  return { shared, diffs: diffs.subarray(0, paired), diffsZero: diffsZero.subarray(0, shared) };
}

/**
 * The paired difference (other − base) in reward over the tasks both ran, with its seeded
 * bootstrap interval and verdict; not comparable when the task generator or configuration
 * differs. Used by compare (against the first run) and leaderboard (against the best).
 */
export function pairRuns(
  base: RunData,
  baseLabel: string,
  other: RunData,
  label: string,
  seed: number,
  resamples: number,
): Pairing {
  const sampling = samplingDifference(base.provenance.sampling, other.provenance.sampling);
  const empty = { shared_tasks: 0, left_out: 0, diff: null, diff_errors_as_zero: null, anytime: null, verdict: null };
  const head = { baseline: baseLabel, run: label };
  const apart = pairingApart(base, baseLabel, other, label);
  if (apart) {
    const note = `${apart}, so their rewards are not comparable task by task`;
    return { ...head, comparable: false, note, ...empty, sampling_differs: sampling };
  }
  const { shared, diffs, diffsZero } = taskDiffs(base, other);
  if (shared === 0) {
    const note = `${label} and ${baseLabel} share no task index`;
    return { ...head, comparable: true, note, ...empty, sampling_differs: sampling };
  }
  const diff = diffs.length ? pairedBootstrap(diffs, seed, resamples) : null;
  const anytime = anytimeOf(diffsZero);
  // After a rule looked at either run, only the anytime-valid interval may give the verdict.
  const why = anytimeReason(base, baseLabel, other, label);
  const ci = why === null ? (diff?.ci95 ?? null) : (anytime?.ci95 ?? null);
  return {
    ...head,
    comparable: true,
    note: null,
    shared_tasks: shared,
    left_out: shared - diffs.length,
    diff,
    diff_errors_as_zero: pairedBootstrap(diffsZero, seed, resamples),
    anytime,
    verdict: withSampling(verdictOf(ci, label, baseLabel), sampling),
    verdict_from: why === null ? 'bootstrap' : 'anytime',
    verdict_why: why,
    sampling_differs: sampling,
  };
}

/** Compares `runs`; the first is the baseline every other run is paired with. */
export function buildComparison(runs: RunData[], seed: number, resamples: number): Comparison {
  const names = runNames(runs);
  const compared = runs.map((d, i): ComparedRun => ({
    label: runLabel(i),
    name: names[i]!,
    dir: d.dir,
    model: d.model,
    task: d.task,
    status: typeof d.run?.status === 'string' ? d.run.status : null,
    notes: d.notes,
    tasks: d.summary.counts.tasks,
    rollouts: d.summary.counts.rollouts,
    completed: d.summary.counts.completed,
    errors: d.summary.counts.errored,
    errors_by_type: d.summary.counts.errors_by_type,
    measures: measuresOf(d.summary),
    provenance: d.provenance,
  }));
  const pairings = runs.slice(1).map((d, i) => pairRuns(runs[0]!, 'A', d, runLabel(i + 1), seed, resamples));
  return { baseline: 'A', seed, resamples, runs: compared, pairings };
}

function cell(e: Estimate, digits = 3): string {
  return e.mean === null ? '–' : `${fmt(e.mean, digits)}\n${fmtCi(e.ci95, digits)}`;
}

function diffCell(d: PairedBootstrap | null): string {
  if (!d || d.mean === null) return '–';
  return `${signed(d.mean)} [${signed(d.ci95![0])}, ${signed(d.ci95![1])}]`;
}

/** Each run's identity and counts: label, model and folder, tasks, rollouts, completed, errors by type. */
function runsText(c: Comparison): string {
  return fitTable(
    ['run', 'model\nfolder', 'tasks', 'rollouts', 'completed', 'errors'],
    c.runs.map((r) => {
      const errs = Object.entries(r.errors_by_type)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      return [
        r.label,
        `${r.model}\n${r.dir}`,
        fmtInt(r.tasks),
        fmtInt(r.rollouts),
        fmtInt(r.completed),
        errs ? `${r.errors} (${errs})` : String(r.errors),
      ];
    }),
    { align: ['left', 'left', 'right', 'right', 'right', 'left'], separators: true, wrap: [1, 5] },
  );
}

/** How each run was made: endpoint, sampling, tasks, versions, dates and wall time. */
function provenanceText(c: Comparison): string {
  return fitTable(
    ['run', 'endpoint', 'sampling', 'tasks', 'versions', 'dates\nwall time'],
    c.runs.map((r) => {
      const p = r.provenance;
      const gen = p.generator === null ? 'tasks from a file' : `gen ${p.generator} · prompt ${p.prompt_version ?? '?'}`;
      const t = p.task;
      return [
        r.label,
        p.endpoint ?? 'unknown',
        samplingShort(p.sampling),
        t ? `${t.num_transactions} rows\nfault rate ${t.fault_rate}\nseed ${t.seed}` : 'unknown',
        `bas ${p.bas_version ?? 'unknown'}\n${gen}`,
        `${dateText(p.started_at)}\n${durationText(p.wall_time_s)}`,
      ];
    }),
    { align: ['left', 'left', 'left', 'left', 'left', 'left'], separators: true, wrap: [1, 2, 3, 4] },
  );
}

/** The rewards and the metrics, each a mean over its interval, in two tables. */
function measuresText(c: Comparison): string[] {
  const sep = { separators: true };
  const rewards = c.runs.map((r) => [
    r.label,
    cell(r.measures.bas_correct),
    cell(r.measures.fault_audit),
    cell(r.measures.reward),
    cell(r.measures.reward_errors_as_zero),
  ]);
  const metrics = c.runs.map((r) => {
    const m = r.measures;
    return [r.label, cell(m.fault_precision), cell(m.fault_recall), cell(m.num_flagged, 2), cell(m.parsed)];
  });
  return [
    'means with 95% intervals',
    fitTable(['run', 'bas_correct', 'fault_audit', 'reward', 'reward\n(errors as 0)'], rewards, sep),
    fitTable(['run', 'fault_precision', 'fault_recall', 'num_flagged', 'parsed'], metrics, sep),
  ];
}

/** The paired differences against the baseline, with their heading; none without pairs. */
function pairingsText(c: Comparison): string[] {
  if (!c.pairings.length) return [];
  // Both differences in one cell (first line completed rollouts, second errors as 0), so
  // that a verdict fits whole in 80 columns.
  const rows = c.pairings.map((x) => [
    `${x.run} − ${x.baseline}`,
    fmtInt(x.shared_tasks),
    fmtInt(x.left_out),
    `${diffCell(x.diff)}\n${diffCell(x.diff_errors_as_zero)}`,
    x.verdict === null ? (x.comparable ? '–' : 'not comparable') : `${x.verdict}${verdictSource(x)}`,
  ]);
  return [
    pairingHeading(c),
    fitTable(['pair', 'shared\ntasks', 'left\nout', 'reward diff [95% CI]\n2nd line: errors as 0', 'verdict'], rows, {
      align: ['left', 'right', 'right', 'right', 'left'],
      separators: true,
      wrap: [4],
    }),
  ];
}

/** " (anytime-valid interval)" after a verdict read from the confidence sequence, else nothing. */
export function verdictSource(x: Pairing): string {
  return x.verdict_from === 'anytime' ? ' (anytime-valid interval)' : '';
}

/** The note saying why a pair's verdict is the anytime-valid interval's, or null. */
export function anytimeVerdictNote(x: Pairing): string | null {
  if (x.verdict_from !== 'anytime' || !x.verdict_why) return null;
  return `the verdict of ${x.run} − ${x.baseline} is the anytime-valid interval's, not the bootstrap's: ${x.verdict_why}, and after a stop that depends on the scores a fixed-n interval is not valid`;
}

/** What the paired differences are: against which run, by which bootstrap. */
export function pairingHeading(c: Comparison): string {
  return `paired differences against the baseline A (bootstrap, ${fmtInt(c.resamples)} resamples, seed ${c.seed})`;
}

/**
 * The notes under a comparison, each wrapped to 80 columns with its continuation lines
 * indented: each pair's anytime-valid interval, why a pair is not comparable, tasks left out,
 * and each run's own notes.
 */
export function comparisonNotes(c: Comparison): string[] {
  const note = (text: string) =>
    wrapCell(terminalText(text), 78)
      .split('\n')
      .map((l, i) => (i === 0 ? l : `  ${l}`))
      .join('\n');
  const out: string[] = [];
  for (const x of c.pairings)
    if (x.anytime)
      out.push(
        note(
          `anytime-valid 95% interval of ${x.run} − ${x.baseline} (confidence sequence, errors as 0, ${fmtInt(x.anytime.tasks)} tasks): ${signed(x.anytime.mean)} [${signed(x.anytime.ci95[0])}, ${signed(x.anytime.ci95[1])}]; valid however the runs were stopped`,
        ),
      );
  for (const x of c.pairings) {
    const why = anytimeVerdictNote(x);
    if (why) out.push(note(`note: ${why}`));
  }
  for (const x of c.pairings) if (x.note) out.push(note(`note: ${x.note}`));
  for (const x of c.pairings)
    if (x.left_out)
      out.push(
        note(
          `note: ${x.left_out} shared task(s) left out of ${x.run} − ${x.baseline}: one run has no completed rollout on them`,
        ),
      );
  for (const r of c.runs) for (const n of r.notes) out.push(note(`note (${r.label}): ${n}`));
  return out;
}

/** The text `bas compare` prints; every table fits 80 columns. */
export function renderComparison(c: Comparison): string {
  const out = [runsText(c), provenanceText(c), ...measuresText(c), ...pairingsText(c), ...comparisonNotes(c)];
  // Notes quote run folders (models, statuses): made safe like the tables' cells.
  return terminalText(out.join('\n')) + '\n';
}

/**
 * The comparison of the runs in `dirs` (the first the baseline), as `bas compare` reads them:
 * at least two, none named twice; `warn` hears what reading skipped (a torn last line).
 */
export async function readComparison(
  dirs: readonly string[],
  seed: number,
  resamples: number,
  warn?: Warn,
): Promise<Comparison> {
  if (dirs.length < 2) throw new ConfigError('bas compare needs at least two run folders (use bas report for one)');
  refuseRepeatedRuns([...dirs], 'compare');
  const runs: RunData[] = [];
  for (const dir of dirs) runs.push(await readRun(dir, warn ?? stderrWarn));
  return buildComparison(runs, seed, resamples);
}
