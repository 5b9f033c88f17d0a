/**
 * `bas leaderboard` in data: runs ranked best first within groups of runs on the same tasks,
 * each with its 95% intervals, counts, provenance, tokens and cost, and its paired verdict
 * against the group's best on the tasks they share (the bootstrap of `compare`).
 *
 * Runs are ranked together only when the same index means the same ledger: the same task
 * configuration (rows, fault rate, seed), the same task generator and the same prompt.
 * Anything else would compare results on different tasks, or on tasks asked differently, so
 * it forms a group of its own.
 *
 * Only runs that finished (status "complete") within their error budget are ranked: an
 * interrupted run, or one that errored on most rollouts, is listed below the ranking with the
 * reason (`includeIncomplete` ranks them too, marked). The default measure counts an errored
 * rollout as reward 0, so no run climbs by erroring (docs/leaderboard.md).
 */
import type { TaskConfig } from '../task/types.js';
import { runGenerator, runPromptVersion } from '../runfile/versions.js';
import { pairRuns, type Pairing } from './compare.js';
import { anytimeOf, anytimeReason } from './anytime-verdict.js';
import type { RunData } from './read.js';
import { describeTask } from './run-report.js';
import { costOf, type Cost } from './cost.js';
import { runNames } from './run-names.js';
import type { Estimate } from '../summary/stats.js';
import { holmRejects, pairedTTest } from '../summary/paired.js';
import type { PooledFaults } from '../summary/aggregate.js';
import type { ConsistencySummary } from '../summary/summary.js';
import type { Provenance } from './provenance.js';

import type { RankMeasure } from '../settings/choices.js';
export type { RankMeasure } from '../settings/choices.js';

/** The error budget of a run whose run.json names none (eval's own default). */
const DEFAULT_MAX_ERROR_RATE = 0.1;

export interface LeaderboardRun {
  /** 1 for the best of its group; null for a run listed below the ranking. */
  rank: number | null;
  /** Why the run is not rankable (not complete, over its error budget …), or null. */
  unrankable: string | null;
  name: string;
  dir: string;
  model: string;
  status: string | null;
  notes: string[];
  provenance: Provenance;
  tasks: number;
  rollouts: number;
  /** Rollouts run.json planned, when it says. */
  expected: number | null;
  completed: number;
  errored: number;
  errors_by_type: Record<string, number>;
  /** The share of errored rollouts above which the run counts as failed (run.json, else 0.1). */
  max_error_rate: number;
  measures: {
    reward_errors_as_zero: Estimate;
    reward: Estimate;
    bas_correct: Estimate;
    fault_audit: Estimate;
    bas_label_accuracy: Estimate;
    fault_precision: Estimate;
    fault_recall: Estimate;
    num_flagged: Estimate;
    parsed: Estimate;
  };
  /** Precision and recall over all claimed and true pairs (see `PooledFaults`). */
  faults_pooled: PooledFaults;
  /** Whether stated BAS are what their own faults imply, and wrong ones by cause (n 0 for a run before 0.4.1). */
  consistency: ConsistencySummary;
  /** `unscored`: the part of the total that bought no score (errored rollouts, replaced lines). */
  tokens: { prompt: number; completion: number; total: number; unscored: number };
  /** At the prices recorded in the run's run.json; null parts where none were given. */
  cost: Cost;
  /** Paired difference (this run − the best) on shared tasks; null for the best and unranked runs. */
  vs_best: Pairing | null;
  /**
   * 1 for the best run's tier, 2 for the next …: runs share a tier when a paired test cannot
   * tell them from the tier's first run at 95%, Holm-corrected over every pair of the group
   * (see `tiersOf`); null for a run not ranked.
   */
  tier: number | null;
}

export interface LeaderboardGroup {
  task: TaskConfig | null;
  /** Task generator version; null when the tasks came from a file (`bas score`). */
  generator: number | null;
  /** Prompt version; null when the tasks came from a file (`bas score`). */
  prompt_version: number | null;
  /** A one-line description of the group's tasks. */
  title: string;
  /** Ranked runs, best first. */
  runs: LeaderboardRun[];
  /** Runs listed below the ranking, with why (empty with `includeIncomplete`). */
  unranked: LeaderboardRun[];
}

export interface Leaderboard {
  by: RankMeasure;
  /** Whether runs that did not finish within their error budget were ranked (marked). */
  include_incomplete: boolean;
  seed: number;
  resamples: number;
  /** How tiers are formed (docs/leaderboard.md). */
  tiers: { test: 'paired t-test'; correction: 'holm'; alpha: number };
  groups: LeaderboardGroup[];
}

/** Family-wise level of the tiers' tests. */
const TIER_ALPHA = 0.05;

/** Per task, in index order: the task and its per-task mean of the ranking measure (NaN: none completed). */
function taskMeans(d: RunData, by: RankMeasure): { index: Float64Array; value: Float64Array } {
  const t = d.builder.taskMeans();
  return { index: t.index, value: by === 'reward_errors_as_zero' ? t.rewardZero : t.reward };
}

/** The differences (b − a) over tasks both have a value on (both lists in index order). */
function pairedDiffs(a: ReturnType<typeof taskMeans>, b: ReturnType<typeof taskMeans>): Float64Array {
  const out = new Float64Array(Math.min(a.index.length, b.index.length));
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.index.length && j < b.index.length) {
    const [x, y] = [a.index[i]!, b.index[j]!];
    if (x < y) i++;
    else if (y < x) j++;
    else {
      const diff = b.value[j]! - a.value[i]!;
      if (diff === diff) out[n++] = diff;
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

/**
 * Tiers of ranked runs (best first): every pair is tested (paired t-test over the tasks both
 * ran, per-task means of the reward, or of the reward with errors as 0 when ranking by it),
 * Holm-corrected over the pairs; then, walking down the ranking, a run joins the current
 * tier unless it is told apart from that tier's first run, in which case it starts the next.
 * Tiers are so contiguous in rank, and every run is indistinguishable from its tier's best.
 */
function tiersOf(ranked: RunData[], by: RankMeasure): number[] {
  const measure = by === 'reward_errors_as_zero' ? by : 'reward';
  const means = ranked.map((d) => taskMeans(d, measure));
  const pairs: Array<[number, number]> = [];
  const ps: number[] = [];
  for (let a = 0; a < ranked.length; a++)
    for (let b = a + 1; b < ranked.length; b++) {
      pairs.push([a, b]);
      ps.push(pairedTTest(pairedDiffs(means[a]!, means[b]!)).p);
    }
  const apart = holmRejects(ps, TIER_ALPHA);
  // A run a stopping rule looked at is told apart only where the anytime-valid interval agrees.
  const valid = pairs.map(([a, b]) => anytimeApart(ranked[a]!, ranked[b]!));
  const told = new Set(pairs.filter((_, k) => apart[k] && valid[k]).map(([a, b]) => a * ranked.length + b));
  const tiers: number[] = [];
  let leader = 0;
  ranked.forEach((_, i) => {
    if (i > 0 && told.has(leader * ranked.length + i)) leader = i;
    tiers.push(i === 0 ? 1 : tiers[i - 1]! + (leader === i ? 1 : 0));
  });
  return tiers;
}

/**
 * Whether two runs may be told apart as far as the anytime-valid interval goes: always when no
 * stopping rule looked at either (the t-test alone decides), else only when the confidence
 * sequence of their per-task differences (errors as 0) excludes 0.
 */
function anytimeApart(a: RunData, b: RunData): boolean {
  if (anytimeReason(a, 'a', b, 'b') === null) return true;
  const ci = anytimeOf(pairedDiffs(taskMeans(a, 'reward_errors_as_zero'), taskMeans(b, 'reward_errors_as_zero')))?.ci95;
  return ci !== undefined && (ci[0] > 0 || ci[1] < 0);
}

function groupKey(d: RunData): string {
  const t = d.task;
  return JSON.stringify([
    t?.num_transactions ?? null,
    t?.fault_rate ?? null,
    t?.seed ?? null,
    runGenerator(d.run),
    runPromptVersion(d.run),
  ]);
}

function groupTitle(d: RunData): string {
  const g = runGenerator(d.run);
  const p = runPromptVersion(d.run);
  return `${describeTask(d.task)} · ${g === null ? 'tasks from a file' : `task generator ${g}, prompt ${p}`}`;
}

function measureOf(d: RunData, by: RankMeasure): Estimate {
  const s = d.summary;
  return by === 'bas_correct' || by === 'fault_audit' ? s.rewards[by] : s[by];
}

function maxErrorRate(d: RunData): number {
  const v = d.run?.max_error_rate;
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : DEFAULT_MAX_ERROR_RATE;
}

/** Why a run may not be ranked, or null when it may: it finished, whole, within its error budget. */
function unrankableReason(d: RunData): string | null {
  const c = d.summary.counts;
  const status = typeof d.run?.status === 'string' ? d.run.status : null;
  if (d.run === null) return 'no run.json: whether the run finished is unknown';
  if (status !== 'complete') return `status ${status ?? 'unknown'}: the run did not finish`;
  if (d.expected !== null && c.rollouts < d.expected) return `${c.rollouts} of ${d.expected} planned rollouts recorded`;
  if (c.completed === 0) return 'no rollout completed';
  const budget = maxErrorRate(d);
  if (c.errored / c.rollouts > budget)
    return `${((100 * c.errored) / c.rollouts).toFixed(1)}% of rollouts errored, over its budget of ${100 * budget}%`;
  return null;
}

/** Best first by the mean of `by`; runs without a mean last; ties by name, then folder. */
function rankOrder(runs: Array<{ d: RunData; name: string }>, by: RankMeasure): Array<{ d: RunData; name: string }> {
  return [...runs].sort((a, b) => {
    const [x, y] = [measureOf(a.d, by).mean, measureOf(b.d, by).mean];
    if (x !== y) return y === null ? -1 : x === null ? 1 : y - x;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : a.d.dir < b.d.dir ? -1 : 1;
  });
}

function entry(
  d: RunData,
  name: string,
  rank: number | null,
  vsBest: Pairing | null,
  tier: number | null = null,
): LeaderboardRun {
  const s = d.summary;
  return {
    rank,
    unrankable: unrankableReason(d),
    name,
    dir: d.dir,
    model: d.model,
    status: typeof d.run?.status === 'string' ? d.run.status : null,
    notes: d.notes,
    provenance: d.provenance,
    tasks: s.counts.tasks,
    rollouts: s.counts.rollouts,
    expected: d.expected,
    completed: s.counts.completed,
    errored: s.counts.errored,
    errors_by_type: s.counts.errors_by_type,
    max_error_rate: maxErrorRate(d),
    measures: {
      reward_errors_as_zero: s.reward_errors_as_zero,
      reward: s.reward,
      bas_correct: s.rewards.bas_correct,
      fault_audit: s.rewards.fault_audit,
      bas_label_accuracy: s.metrics.bas_label_accuracy,
      fault_precision: s.metrics.fault_precision,
      fault_recall: s.metrics.fault_recall,
      num_flagged: s.metrics.num_flagged,
      parsed: s.metrics.parsed,
    },
    faults_pooled: s.faults_pooled,
    consistency: s.consistency,
    tokens: {
      prompt: s.tokens.prompt,
      completion: s.tokens.completion,
      total: s.tokens.total,
      unscored: s.tokens.unscored?.total ?? 0,
    },
    cost: costOf(s, {}, d.run?.prices),
    vs_best: vsBest,
    tier,
  };
}

/**
 * The order of groups: by their settings, numbers as numbers (12 rows before 60 before 120),
 * rows first, then fault rate, seed, task generator and prompt; unknown settings last.
 */
function groupOrder(a: RunData, b: RunData): number {
  const key = (d: RunData) => [
    d.task?.num_transactions ?? null,
    d.task?.fault_rate ?? null,
    d.task?.seed ?? null,
    runGenerator(d.run),
    runPromptVersion(d.run),
  ];
  const [x, y] = [key(a), key(b)];
  for (let i = 0; i < x.length; i++) {
    const [u, v] = [x[i], y[i]];
    if (u === v) continue;
    if (u === null || u === undefined) return 1;
    if (v === null || v === undefined) return -1;
    return u < v ? -1 : 1;
  }
  return 0;
}

/** Ranks `runs` within groups of comparable runs; groups ordered by their settings (`groupOrder`). */
export function buildLeaderboard(
  runs: RunData[],
  opts: { by?: RankMeasure; includeIncomplete?: boolean; seed: number; resamples: number },
): Leaderboard {
  const by = opts.by ?? 'reward_errors_as_zero';
  const include = opts.includeIncomplete ?? false;
  const names = runNames(runs);
  const groups = new Map<string, Array<{ d: RunData; name: string }>>();
  runs.forEach((d, i) => {
    const key = groupKey(d);
    groups.set(key, [...(groups.get(key) ?? []), { d, name: names[i]! }]);
  });
  return {
    by,
    include_incomplete: include,
    seed: opts.seed,
    resamples: opts.resamples,
    tiers: { test: 'paired t-test', correction: 'holm', alpha: TIER_ALPHA },
    groups: [...groups.values()]
      .sort((a, b) => groupOrder(a[0]!.d, b[0]!.d))
      .map((members): LeaderboardGroup => {
        const rankable = members.filter(({ d }) => include || unrankableReason(d) === null);
        const ranked = rankOrder(rankable, by);
        const left = rankOrder(
          members.filter((m) => !rankable.includes(m)),
          by,
        );
        const first = (ranked[0] ?? left[0])!;
        const best = ranked[0];
        const tiers = tiersOf(
          ranked.map((r) => r.d),
          by,
        );
        return {
          task: first.d.task,
          generator: runGenerator(first.d.run),
          prompt_version: runPromptVersion(first.d.run),
          title: groupTitle(first.d),
          runs: ranked.map(({ d, name }, i) =>
            entry(
              d,
              name,
              i + 1,
              i === 0 ? null : pairRuns(best!.d, '#1', d, `#${i + 1}`, opts.seed, opts.resamples),
              tiers[i]!,
            ),
          ),
          unranked: left.map(({ d, name }) => entry(d, name, null, null)),
        };
      }),
  };
}

function signed(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;
}

/**
 * The paired difference against the best in the ranking measure's terms ("−0.052 [−0.101,
 * −0.004]"; errors count 0 when the measure counts them so), its verdict, and what differs
 * in sampling, if anything.
 */
export function vsBestText(r: LeaderboardRun, by: RankMeasure): { diff: string; verdict: string } {
  const p = r.vs_best;
  if (r.rank === null) return { diff: '', verdict: 'not ranked' };
  if (!p) return { diff: '', verdict: 'best' };
  // After a stopping rule looked at either run, the anytime-valid interval (errors as 0) decides.
  const anytime = p.verdict_from === 'anytime' && p.anytime ? p.anytime : null;
  const d = anytime ?? (by === 'reward_errors_as_zero' ? p.diff_errors_as_zero : p.diff);
  if (!p.comparable || !d || d.mean === null || !d.ci95)
    return { diff: '–', verdict: p.note ? 'no shared tasks' : '–' };
  const ci = d.ci95;
  const said = ci[0] > 0 ? 'this better' : ci[1] < 0 ? 'best better' : 'no difference shown';
  const verdict = anytime ? `${said} (anytime-valid interval, errors as 0)` : said;
  return {
    diff: `${signed(d.mean)} [${signed(ci[0])}, ${signed(ci[1])}]`,
    verdict: p.sampling_differs ? `${verdict}; sampling differs (${p.sampling_differs})` : verdict,
  };
}

/** "#3", or "#3*" for a run ranked only because of `--include-incomplete`. */
export function rankText(r: LeaderboardRun): string {
  if (r.rank === null) return '–';
  return `${r.rank}${r.unrankable ? '*' : ''}`;
}

/** The measure's name as a heading says it. */
/** The ranking measure as a figure or a column names it: "reward (errors as 0)", never the JSON key. */
export function measureName(by: RankMeasure): string {
  return by === 'reward_errors_as_zero' ? 'reward (errors as 0)' : by;
}

export function measureText(by: RankMeasure): string {
  return by === 'reward_errors_as_zero'
    ? 'reward with errors counted as 0'
    : `${by} over completed rollouts (errored ones left out)`;
}
