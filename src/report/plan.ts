/**
 * `bas plan` in data: from a pilot run (one-sample) or two runs sharing tasks (paired), the
 * tasks a fixed design needs to detect a difference D with 80% power at 5% two-sided,
 * clustered by task where there are several rollouts, with the cost of those tasks at the runs'
 * prices. The statistics are src/summary/power.ts; this file reads the runs and words it.
 */
import { ConfigError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import type { RolloutRecord } from '../runfile/record.js';
import { versionClash } from '../runfile/versions.js';
import {
  designEffect,
  pairedSplit,
  shiftToMean,
  simulateSequential,
  type SequentialPlan,
  pairedVariance,
  tasksNeeded,
  taskMeanVariance,
  varianceSplit,
  type PairedSplit,
  type VarianceSplit,
} from '../summary/power.js';
import { sameTaskConfig } from '../task/config.js';
import { readRunFolding, type RunData } from './read.js';
import { describeTask } from './run-report.js';
import { fmtInt, plainTable } from './tables.js';
import { wrapCell } from './fit-table.js';

/** Each task's rollout scores (errored rollouts as 0), and the tokens the rollouts used. */
class ScoreFold {
  readonly tasks = new Map<number, number[]>();
  prompt = 0;
  completion = 0;
  /** Rollouts whose usage was reported (cached ones included: a new run would pay for them). */
  withUsage = 0;

  add(r: RolloutRecord): void {
    const score = r.error === null && typeof r.reward === 'number' ? r.reward : 0;
    let t = this.tasks.get(r.index);
    if (!t) this.tasks.set(r.index, (t = []));
    t.push(score);
    const u = r.usage;
    if (u && typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number') {
      this.prompt += u.prompt_tokens;
      this.completion += u.completion_tokens;
      this.withUsage++;
    }
  }
}

/** One run as a plan reads it. */
interface PlannedRun {
  dir: string;
  model: string;
  tasks: number;
  /** The most rollouts any task has. */
  rollouts_per_task: number;
  /** Mean of the per-task mean rewards, errored rollouts as 0. */
  mean: number;
  /** Mean tokens per rollout over rollouts that reported usage; null when none did. */
  tokens_per_rollout: { prompt: number; completion: number } | null;
  prices: { in: number | null; out: number | null };
  /** What one rollout costs at these prices; null unless both prices and the usage are known. */
  usd_per_rollout: number | null;
}

/** A fixed design's size and cost. */
interface FixedDesign {
  tasks: number | null;
  rollouts_per_task: number;
  /** Rollouts of one run (tasks × rollouts per task). */
  rollouts: number | null;
  /** The cost of the runs the design needs (both runs in a paired design), when prices are known. */
  usd: number | null;
}

export interface Plan {
  design: 'one-sample' | 'paired';
  /** The difference to detect, and whether it was given or is the one the two runs show. */
  difference: number;
  difference_from: 'given' | 'observed';
  alpha: 0.05;
  power: 0.8;
  runs: PlannedRun[];
  /** One-sample: the pilot's variance split; paired: null. */
  variance: VarianceSplit | null;
  /** Paired: the split of the per-task differences (B − A); one-sample: null. */
  paired: (PairedSplit & { shared_tasks: number }) | null;
  /** The variance of one task's score (or score difference) planned for. */
  task_variance: number;
  /** 1 + (r − 1)ρ for the planned rollouts per task; null when ρ is unknown. */
  design_effect: number | null;
  fixed: FixedDesign;
  /**
   * The sequential rule (`--until decided`, one-sample: until the confidence sequence leaves
   * out the pilot's mean), simulated from the pilot's own scores shifted to the difference;
   * null when the difference does not fit in the score range.
   */
  sequential: (SequentialPlan & { usd_median: number | null; usd_mean: number | null }) | null;
  notes: string[];
}

function priceOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

async function readScores(dir: string): Promise<{ data: RunData; fold: ScoreFold }> {
  return readRunFolding(dir, () => new ScoreFold());
}

function plannedRun(data: RunData, fold: ScoreFold, flags: { in?: number; out?: number }): PlannedRun {
  const tasks = [...fold.tasks.values()];
  const run = data.run as { prices?: { in?: unknown; out?: unknown } } | null;
  const prices = { in: flags.in ?? priceOf(run?.prices?.in), out: flags.out ?? priceOf(run?.prices?.out) };
  const tokens =
    fold.withUsage > 0 ? { prompt: fold.prompt / fold.withUsage, completion: fold.completion / fold.withUsage } : null;
  return {
    dir: data.dir,
    model: data.model,
    tasks: tasks.length,
    rollouts_per_task: tasks.reduce((m, t) => Math.max(m, t.length), 0),
    mean: tasks.reduce((s, t) => s + t.reduce((a, b) => a + b, 0) / t.length, 0) / tasks.length,
    tokens_per_rollout: tokens,
    prices,
    usd_per_rollout:
      tokens && prices.in !== null && prices.out !== null
        ? (tokens.prompt * prices.in + tokens.completion * prices.out) / 1e6
        : null,
  };
}

export interface PlanOptions {
  difference: number | null;
  /** Rollouts per task of the planned run(s); default the pilot's. */
  rollouts: number | null;
  prices: { in?: number; out?: number };
  /** Simulated runs of the sequential rule, their seed, and the tasks at which one gives up (null: 4 × the fixed design). */
  simulations: number;
  seed: number;
  maxTasks: number | null;
}

type ReadRun = Awaited<ReturnType<typeof readScores>>;

/** The plan from one pilot run (one-sample) or two runs sharing tasks (paired). */
export async function buildPlan(dirs: string[], o: PlanOptions): Promise<Plan> {
  const read: ReadRun[] = [];
  for (const dir of dirs) read.push(await readScores(dir));
  const runs = read.map((r) => plannedRun(r.data, r.fold, o.prices));
  if (read.length === 1) return onePlan(dirs[0]!, read[0]!, runs[0]!, o);
  return pairedPlan(dirs, [read[0]!, read[1]!], runs, o);
}

/** A one-sample plan from a pilot: the tasks to tell its mean from the mean ± D. */
function onePlan(dir: string, pilot: ReadRun, run: PlannedRun, o: PlanOptions): Plan {
  if (o.difference === null)
    throw new ConfigError('bas plan with one run needs --difference D, the difference to detect (0 < D <= 1)');
  const notes: string[] = [];
  const split = varianceSplit([...pilot.fold.tasks.values()]);
  if (split.tasks < 2) throw new ConfigError(`${dir} has ${split.tasks} task: a plan needs at least two`);
  const r = o.rollouts ?? run.rollouts_per_task;
  if (split.within === null && r > 1)
    notes.push(
      `the pilot has one rollout per task, so its variance cannot be split into between and within tasks: the plan for ${r} rollouts per task uses the variance of one rollout (conservative)`,
    );
  const variance = taskMeanVariance(split, r);
  const fixed = fixedDesign(tasksNeeded(variance, o.difference), r, [run]);
  const scores = [...pilot.fold.tasks.values()].map(mean);
  const m0 = split.mean;
  // Toward the side the difference fits in: above the pilot's mean when it can, else below.
  const up = m0 + o.difference <= 1;
  const fits = up || m0 - o.difference >= 0;
  const target = up ? m0 + o.difference : m0 - o.difference;
  const seq = fits
    ? sequentialPlan(
        shiftToMean(scores, target, 0, 1),
        m0,
        up ? 'above' : 'below',
        o,
        fixed,
        [run],
        run.rollouts_per_task,
      )
    : null;
  if (!fits)
    notes.push(
      `a difference of ${o.difference} from the pilot's mean ${m0.toFixed(3)} leaves the reward range: no simulation`,
    );
  if (split.within !== null && r !== run.rollouts_per_task)
    notes.push(
      `the simulation resamples the pilot's task means, of ${run.rollouts_per_task} rollouts each, not of ${r}`,
    );
  return {
    design: 'one-sample',
    difference: o.difference,
    difference_from: 'given',
    alpha: 0.05,
    power: 0.8,
    runs: [run],
    variance: split,
    paired: null,
    task_variance: variance,
    design_effect: designEffect(split, r),
    fixed,
    sequential: seq,
    notes,
  };
}

/** The tasks both runs hold, after checking that they ran the same tasks. */
function sharedTasks(dirs: string[], a: ReadRun, b: ReadRun): number[] {
  const clash = versionClash(b.data.run, a.data.run);
  if (clash || !sameTaskConfig(a.data.task, b.data.task))
    throw new ConfigError(
      `${dirs[1]} and ${dirs[0]} ${clash ? `were made with different ${clash.what}s` : `ran different tasks (${describeTask(b.data.task)} against ${describeTask(a.data.task)})`}: they cannot be paired task by task`,
    );
  const shared = [...a.fold.tasks.keys()].filter((i) => b.fold.tasks.has(i)).sort((x, y) => x - y);
  if (shared.length < 2)
    throw new ConfigError(`${dirs[0]} and ${dirs[1]} share ${shared.length} task: a paired plan needs at least two`);
  return shared;
}

/** A paired plan from two runs sharing tasks: the tasks to detect a difference D between them. */
function pairedPlan(dirs: string[], [a, b]: [ReadRun, ReadRun], runs: PlannedRun[], o: PlanOptions): Plan {
  const notes: string[] = [];
  const shared = sharedTasks(dirs, a, b);
  const split = pairedSplit(
    shared.map((i) => a.fold.tasks.get(i)!),
    shared.map((i) => b.fold.tasks.get(i)!),
  );
  const observed = split.mean;
  const d = o.difference ?? Math.abs(observed);
  if (o.difference === null && !(d > 0))
    throw new ConfigError('the two runs show no difference on their shared tasks: give --difference D to plan for one');
  if (o.difference === null)
    notes.push(
      `the difference planned for is the one the two runs show (${observed.toFixed(3)}); a difference chosen for what matters (--difference) is the sounder plan`,
    );
  const most = Math.max(runs[0]!.rollouts_per_task, runs[1]!.rollouts_per_task);
  const r = o.rollouts ?? most;
  if (r !== most)
    notes.push(`the simulation resamples the runs' task differences, at their own rollouts per task, not ${r}`);
  if (split.between === null && r > 1)
    notes.push(
      `both runs have one rollout per task, so the rollout noise cannot be told from the spread of the differences: the plan for ${r} rollouts per task uses one rollout's variance (conservative)`,
    );
  const variance = pairedVariance(split, r);
  const fixed = fixedDesign(tasksNeeded(variance, d), r, runs);
  // Paired differences in [-1, 1], shifted to +D (or -D, the sign the runs show when D is theirs), mapped to [0, 1].
  const sign = o.difference === null && observed < 0 ? -1 : 1;
  const diffs = shared.map((i) => mean(b.fold.tasks.get(i)!) - mean(a.fold.tasks.get(i)!));
  const unit = shiftToMean(diffs, sign * d, -1, 1).map((x) => (x + 1) / 2);
  const seq = sequentialPlan(unit, 0.5, sign > 0 ? 'above' : 'below', o, fixed, runs, most);
  // The design effect of a paired plan is that of the differences' two parts.
  const within = (split.within_a ?? 0) + (split.within_b ?? 0);
  const total = split.between !== null ? split.between + within : 0;
  const de = split.between !== null && total > 0 ? 1 + ((r - 1) * split.between) / total : null;
  return {
    design: 'paired',
    difference: d,
    difference_from: o.difference === null ? 'observed' : 'given',
    alpha: 0.05,
    power: 0.8,
    runs,
    variance: null,
    paired: { ...split, shared_tasks: shared.length },
    task_variance: variance,
    design_effect: de,
    fixed,
    sequential: seq,
    notes,
  };
}

function mean(t: readonly number[]): number {
  return t.reduce((a, b) => a + b, 0) / t.length;
}

/** The sequential rule simulated, with its cost at the median and mean tasks. */
function sequentialPlan(
  scores: number[],
  m0: number,
  truth: 'above' | 'below',
  o: PlanOptions,
  fixed: FixedDesign,
  runs: PlannedRun[],
  rollouts: number,
): Plan['sequential'] {
  const cap = o.maxTasks ?? Math.max(100, 4 * (fixed.tasks ?? 25));
  const sim = simulateSequential(scores, m0, truth, { simulations: o.simulations, seed: o.seed, cap });
  const perTask = runs.every((x) => x.usd_per_rollout !== null)
    ? runs.reduce((s, x) => s + x.usd_per_rollout!, 0) * rollouts
    : null;
  return {
    ...sim,
    usd_median: perTask === null ? null : sim.median_tasks * perTask,
    usd_mean: perTask === null ? null : sim.mean_tasks * perTask,
  };
}

function fixedDesign(n: number | null, r: number, runs: PlannedRun[]): FixedDesign {
  const perTask = runs.every((x) => x.usd_per_rollout !== null)
    ? runs.reduce((s, x) => s + x.usd_per_rollout!, 0) * r
    : null;
  return {
    tasks: n,
    rollouts_per_task: r,
    rollouts: n === null ? null : n * r,
    usd: n === null || perTask === null ? null : n * perTask,
  };
}

/** A difference as people read it: at most four decimals. */
function round(v: number): string {
  return String(Number(v.toFixed(4)));
}

function usd(v: number | null): string {
  return v === null ? '–' : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

function num(v: number | null, digits = 4): string {
  return v === null || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

/** The runs the plan starts from. */
function runsTable(p: Plan): string {
  const runs = plainTable(['run', 'model', 'tasks', 'rollouts/task', 'mean reward', 'USD/rollout']);
  p.runs.forEach((r, i) =>
    runs.push([
      p.runs.length === 1 ? 'pilot' : String.fromCharCode(65 + i),
      r.model,
      fmtInt(r.tasks),
      String(r.rollouts_per_task),
      num(r.mean, 3),
      usd(r.usd_per_rollout),
    ]),
  );
  return runs.toString();
}

/** The variance the plan rests on, and the fixed design it gives. */
function fixedTable(p: Plan): string {
  const t = plainTable(['', 'value']);
  if (p.variance) {
    t.push(['variance of a task mean (pilot)', num(p.variance.task_mean_variance)]);
    t.push(['  between tasks / within a task', `${num(p.variance.between)} / ${num(p.variance.within)}`]);
    t.push(['  intra-task correlation', num(p.variance.icc, 3)]);
  }
  if (p.paired) {
    t.push(['shared tasks', fmtInt(p.paired.shared_tasks)]);
    t.push(['mean difference B − A', num(p.paired.mean, 3)]);
    t.push(['variance of a task difference', num(p.paired.diff_variance)]);
  }
  t.push([`variance planned for (${p.fixed.rollouts_per_task} rollouts/task)`, num(p.task_variance)]);
  t.push(['design effect 1 + (r − 1)ρ', num(p.design_effect, 2)]);
  t.push(['fixed design: tasks', p.fixed.tasks === null ? '–' : fmtInt(p.fixed.tasks)]);
  t.push(['fixed design: rollouts per run', p.fixed.rollouts === null ? '–' : fmtInt(p.fixed.rollouts)]);
  t.push([p.design === 'paired' ? 'fixed design: cost of both runs' : 'fixed design: cost', usd(p.fixed.usd)]);
  return t.toString();
}

/** The sequential rule's simulation: its heading and its table. */
function sequentialLines(q: NonNullable<Plan['sequential']>): string[] {
  const seq = plainTable(['sequential rule', 'value']);
  seq.push(['tasks: median', fmtInt(q.median_tasks)]);
  seq.push([`tasks: mean${q.undecided > 0 ? ' (undecided counted at the cap)' : ''}`, num(q.mean_tasks, 1)]);
  seq.push(['tasks: 90% decided by', fmtInt(q.p90_tasks)]);
  seq.push(['undecided at the cap', `${(100 * q.undecided).toFixed(1)}%`]);
  seq.push(['decided the wrong way', `${(100 * q.wrong_sign).toFixed(1)}%`]);
  seq.push(['cost at the median / mean tasks', `${usd(q.usd_median)} / ${usd(q.usd_mean)}`]);
  return [
    `the sequential rule (confidence sequence, until decided), simulated:\n${fmtInt(q.simulations)} runs resampled from the pilot's scores (seed ${q.seed}),\neach stopped undecided at ${fmtInt(q.cap)} tasks`,
    seq.toString(),
  ];
}

/** A note wrapped to 80 columns like the tables, continuation lines indented. */
function noteLine(text: string): string {
  return wrapCell(text, 78)
    .split('\n')
    .map((l, i) => (i === 0 ? l : `  ${l}`))
    .join('\n');
}

/** The text `bas plan` prints. */
export function renderPlan(p: Plan): string {
  const what =
    p.design === 'paired'
      ? `a paired difference of ${round(p.difference)} (B − A, ${p.difference_from})`
      : `a difference of ${round(p.difference)} from the pilot's mean`;
  const out = [
    runsTable(p),
    `to detect ${what}\nwith 80% power at 5% two-sided (errored rollouts as 0):`,
    fixedTable(p),
  ];
  if (p.sequential) out.push(...sequentialLines(p.sequential));
  if (p.fixed.usd === null)
    out.push(
      '(give --price-in and --price-out, in USD per million tokens, for the cost,\nunless the runs recorded them)',
    );
  for (const n of p.notes) out.push(noteLine(`note: ${n}`));
  return terminalText(out.join('\n')) + '\n';
}
