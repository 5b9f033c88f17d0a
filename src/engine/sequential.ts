/**
 * The sequential stopping rules of a run (`--precision`, `--against RUN --until decided`):
 * rollouts go in as they finish, in any order; a task enters the confidence sequence only
 * when it and every task before it in the run's order are complete (all its rollouts
 * recorded), as the mean of its rollouts' rewards with errored rollouts as 0. So the tasks
 * are consumed in index order, never in completion order (a slow reply is often a wrong one:
 * completion order would bias the mean). docs/statistics.md, "Anytime-valid intervals".
 */
import {
  ConfidenceSequence,
  PairedConfidenceSequence,
  verdictOf,
  type SequenceInterval,
  type SequentialRecord,
  type Verdict,
} from '../summary/confidence-sequence.js';
import { tasksNeeded } from '../summary/power.js';
import { ConfigError } from '../errors/index.js';
import { pairKey, splitPairKey, type PairKey } from '../runfile/record.js';
import type { Shard } from '../settings/shard.js';
import { savedResumeCommand } from '../settings/resume-command.js';
import * as std from '../io/std.js';
import { readRewards } from './session.js';
import type { RunStop } from './stop.js';

/** When to stop. */
export type SequentialRule =
  /** Stop when the 95% interval of the mean reward is within ±width. */
  | { kind: 'precision'; width: number }
  /**
   * Stop when the interval of this run minus the baseline excludes 0 or lies within ±margin;
   * `baseline` holds the baseline's task scores by task index.
   */
  | { kind: 'decided'; margin: number; baseline: ReadonlyMap<number, number> };

/** Where a sequence stands: the tasks it has taken, its interval, and whether (and why) it stopped. */
export interface SequentialState {
  rule: 'precision' | 'decided';
  /** Tasks consumed (complete, in order). */
  tasks: number;
  /** The last task index consumed, or null. */
  lastIndex: number | null;
  interval: SequenceInterval;
  /** True once the rule's condition held. */
  reached: boolean;
  /** For `decided`: the verdict now (`undecided` until the interval decides). */
  verdict: Verdict | null;
  /** Sample standard deviation of the consumed task scores (or paired differences); null below two. */
  sd: number | null;
}

export class TaskSequence {
  private readonly scores = new Map<number, Array<number | undefined>>();
  private next = 0;
  private readonly one: ConfidenceSequence | null;
  private readonly paired: PairedConfidenceSequence | null;
  private reachedAt: number | null = null;
  private last: number | null = null;
  private current: SequenceInterval;
  /** Running mean and sum of squared deviations of what entered the sequence (Welford). */
  private count = 0;
  private runningMean = 0;
  private squares = 0;

  /**
   * `order`: the task indices of the run, in the order they are consumed; `rollouts` per task.
   */
  constructor(
    private readonly order: readonly number[],
    private readonly rollouts: number,
    readonly rule: SequentialRule,
  ) {
    this.one = rule.kind === 'precision' ? new ConfidenceSequence() : null;
    this.paired = rule.kind === 'decided' ? new PairedConfidenceSequence() : null;
    this.current = (this.one ?? this.paired)!.interval();
  }

  /**
   * Records one rollout's reward (null for an errored rollout, counted as 0), and consumes
   * every task that is now complete in order. Returns true when the rule has been reached.
   */
  add(index: number, rollout: number, reward: number | null): boolean {
    if (rollout < 0 || rollout >= this.rollouts) return this.reached;
    let task = this.scores.get(index);
    if (task === undefined) {
      task = new Array<number | undefined>(this.rollouts);
      this.scores.set(index, task);
    }
    task[rollout] = reward === null ? 0 : Math.min(1, Math.max(0, reward));
    this.advance();
    return this.reached;
  }

  get reached(): boolean {
    return this.reachedAt !== null;
  }

  private advance(): void {
    while (this.reachedAt === null && this.next < this.order.length) {
      const index = this.order[this.next]!;
      const task = this.scores.get(index);
      if (task === undefined) return;
      let sum = 0;
      for (let r = 0; r < this.rollouts; r++) {
        const s = task[r];
        if (s === undefined) return;
        sum += s;
      }
      this.scores.delete(index);
      this.next++;
      this.last = index;
      const mean = sum / this.rollouts;
      if (this.one) {
        this.observe(mean);
        this.one.push(mean);
        this.current = this.one.interval();
        if (this.rule.kind === 'precision' && this.current.halfWidth <= this.rule.width) this.reachedAt = this.next;
      } else if (this.paired && this.rule.kind === 'decided') {
        const base = this.rule.baseline.get(index);
        if (base === undefined) continue;
        this.observe(mean - base);
        this.paired.push(mean, Math.min(1, Math.max(0, base)));
        this.current = this.paired.interval();
        if (verdictOf(this.current.low, this.current.high, this.rule.margin) !== 'undecided')
          this.reachedAt = this.next;
      }
    }
  }

  private observe(x: number): void {
    this.count++;
    const delta = x - this.runningMean;
    this.runningMean += delta / this.count;
    this.squares += delta * (x - this.runningMean);
  }

  state(): SequentialState {
    return {
      rule: this.rule.kind,
      tasks: this.current.n,
      lastIndex: this.last,
      interval: this.current,
      reached: this.reached,
      verdict: this.rule.kind === 'decided' ? verdictOf(this.current.low, this.current.high, this.rule.margin) : null,
      sd: this.count >= 2 ? Math.sqrt(this.squares / (this.count - 1)) : null,
    };
  }
}

/**
 * The tasks a fixed-n 95% interval needs to be within ±`width`: n = (1.96·sd / width)²,
 * rounded up; null when sd is not positive.
 */
function fixedPrecisionTasks(sd: number, width: number): number | null {
  if (!(sd > 0) || !(width > 0)) return null;
  return Math.ceil(((1.959963984540054 * sd) / width) ** 2);
}

/** What both rules record of where the sequence stands: its interval and the tasks it took. */
function sequenceFields(state: SequentialState) {
  const i = state.interval;
  return {
    alpha: 0.05,
    anytime_valid: true as const,
    method: 'betting-mixture' as const,
    tasks: state.tasks,
    last_index: state.lastIndex,
    mean: i.mean,
    low: i.low,
    high: i.high,
    half_width: i.halfWidth,
    reached: state.reached,
  };
}

/** The record of a sequence's state under `--precision W`. */
function precisionRecord(state: SequentialState, width: number): SequentialRecord {
  return {
    rule: 'precision',
    width,
    ...sequenceFields(state),
    fixed_design_tasks: state.sd === null ? null : fixedPrecisionTasks(state.sd, width),
  };
}

/** The difference a fixed design is planned for when `--margin` is 0 (docs/statistics.md). */
const DEFAULT_DIFFERENCE = 0.05;

/**
 * The difference a fixed design is planned to detect: after a verdict of better or worse, the
 * difference found (a 0.4 difference decided in 29 tasks is set beside the 12 a fixed design
 * for 0.4 needs, not the 789 one for 0.05 would); otherwise `--margin`, or 0.05 without one.
 */
function plannedDifference(state: SequentialState, margin: number): number {
  const found = state.interval.mean;
  const decided = state.verdict === 'better' || state.verdict === 'worse';
  if (decided && found !== null && Math.abs(found) >= 0.001) return Number(Math.abs(found).toFixed(3));
  return margin > 0 ? margin : DEFAULT_DIFFERENCE;
}

/** The record of a sequence's state under `--against RUN --until decided --margin M`. */
function decidedRecord(state: SequentialState, against: string, margin: number): SequentialRecord {
  const d = plannedDifference(state, margin);
  return {
    rule: 'decided',
    width: null,
    ...sequenceFields(state),
    fixed_design_tasks: state.sd === null ? null : tasksNeeded(state.sd * state.sd, d),
    against,
    margin,
    verdict: state.verdict ?? 'undecided',
    fixed_design_difference: d,
  };
}

/**
 * The score of each of RUN's tasks 0..n-1, the mean of its rollouts (errored ones as 0), for
 * `--against RUN`. Every one of those tasks must have all its rollouts recorded: a task
 * missing from the baseline could not be compared, and would be paid for all the same.
 * RUN's run.json was read by the caller (its tasks and rollouts are in `against.run`).
 */
async function baselineScores(against: Against, n: number): Promise<Map<number, number>> {
  const { dir } = against;
  const { rollouts } = against.run;
  const rewards = await readRewards(dir, { n: against.run.n, rollouts, shard: null, indices: null });
  const scores = new Map<number, number>();
  for (let index = 0; index < n; index++) {
    let sum = 0;
    for (let r = 0; r < rollouts; r++) {
      const reward = rewards.get(pairKey(index, r));
      if (reward === undefined) {
        throw new ConfigError(
          `--against: task ${index} of ${dir} has no record for rollout ${r}, and a run against it is compared task by task: give -n ${index} (its tasks before this one are complete), or finish ${dir} first with ${savedResumeCommand(dir, against.saved, std.env())}`,
        );
      }
      sum += Math.min(1, Math.max(0, reward));
    }
    scores.set(index, sum / rollouts);
  }
  return scores;
}

/** `--against RUN`: its folder, `--margin`, and RUN's tasks and rollouts per task (its run.json, read by the caller). */
interface Against {
  dir: string;
  margin: number;
  run: { n: number; rollouts: number };
  /** RUN's run.json as read: the endpoint a resume of it must be given again. */
  saved: Readonly<Record<string, unknown>>;
}

/** What a run's stopping rule needs from the run. */
interface RuleSettings {
  precision: number | null;
  against: Against | null;
}

/**
 * A run's stopping rule (`--precision`, or `--against RUN --until decided`) as the engine uses
 * it: its sequence over the run's tasks in index order, fed with each record as it is
 * written (and, on a resume, with the scored rollouts already recorded), the stop it asks for
 * once reached, and its run.json record.
 */
export class RunRule {
  private constructor(
    private readonly sequence: TaskSequence,
    private readonly settings: RuleSettings,
  ) {}

  /** Whether a run with these settings has a stopping rule: `open` below gives one exactly then. */
  static applies(settings: RuleSettings): boolean {
    return settings.against !== null || settings.precision !== null;
  }

  /**
   * The rule of a run with these settings, or null when it has none. `recorded`: on a resume,
   * the rewards of its finished pairs, as its one read of the folder found them.
   */
  static async open(
    settings: RuleSettings,
    tasks: { n: number; rollouts: number; shard: Shard | null },
    recorded: ReadonlyMap<PairKey, number> | null,
  ): Promise<RunRule | null> {
    const { n, rollouts, shard } = tasks;
    let rule: SequentialRule;
    if (settings.against !== null)
      rule = {
        kind: 'decided',
        margin: settings.against.margin,
        baseline: await baselineScores(settings.against, n),
      };
    else if (settings.precision !== null) rule = { kind: 'precision', width: settings.precision };
    else return null;
    const order: number[] = [];
    for (let i = shard ? shard.index - 1 : 0; i < n; i += shard ? shard.count : 1) order.push(i);
    const sequence = new TaskSequence(order, rollouts, rule);
    if (recorded)
      for (const [key, reward] of recorded) {
        const [index, rollout] = splitPairKey(key);
        sequence.add(index, rollout, reward);
      }
    return new RunRule(sequence, settings);
  }

  get reached(): boolean {
    return this.sequence.reached;
  }

  /** Adds one record's reward; returns true when this record made the rule reach its end. */
  add(index: number, rollout: number, reward: number | null): boolean {
    if (this.sequence.reached) return false;
    return this.sequence.add(index, rollout, reward);
  }

  /** The stop the rule asks for once reached. */
  stop(): RunStop {
    const s = this.sequence.state();
    if (this.sequence.rule.kind === 'precision')
      return { kind: 'precision', message: 'the interval reached --precision' };
    return { kind: 'decided', message: `decided: ${s.verdict ?? 'undecided'} after ${s.tasks} tasks` };
  }

  /** run.json's `sequential`. */
  record(): SequentialRecord {
    const state = this.sequence.state();
    const { against, precision } = this.settings;
    return against !== null ? decidedRecord(state, against.dir, against.margin) : precisionRecord(state, precision!);
  }
}
