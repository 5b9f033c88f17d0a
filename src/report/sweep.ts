/**
 * `bas sweep` in data: one run per model and point of the difficulty grid (ledger rows, and
 * fault rate when several are given), and reward, `bas_correct` and `fault_audit` against the
 * rows with their 95% intervals (and `bas_consistent`), as a text table per model, as JSON and as CSV. The three
 * give the same numbers; the HTML page and `bas leaderboard` draw them (report/html/sweep-page.ts).
 */
import { basename, join } from 'node:path';
import { fitTable, textWidth, wrapCell } from './fit-table.js';
import { readRun, type RunData } from './read.js';
import { cutOffRun } from '../runfile/results.js';
import {
  axisRank,
  axisText,
  planAxis,
  planModels,
  placeText,
  readSweepPlan,
  SWEEP_AXES,
  type AxisPlace,
  type SweepAxis,
} from '../runfile/sweep-file.js';
import type { Warn } from '../runfile/read.js';
import type { Estimate } from '../summary/stats.js';
import { fmt, fmtInt } from './tables.js';
import { csvField } from './csv.js';
import { costOf, totalText, type Cost } from './cost.js';
import {
  endpointText,
  SAMPLING_CSV_HEAD,
  samplingCells,
  samplingText,
  sharedText,
  versionsText,
  type Provenance,
} from './provenance.js';

/**
 * The measures a sweep draws: the rewards, and how often a stated BAS is what the reply's own
 * faults imply (no value for a point run before 0.4.1).
 */
export const SWEEP_MEASURES = ['reward', 'bas_correct', 'fault_audit', 'bas_consistent'] as const;
/** The measures drawn as curves: the rewards (the table beside them has every measure). */
export const SWEEP_CURVES = ['reward', 'bas_correct', 'fault_audit'] as const;
type SweepMeasure = (typeof SWEEP_MEASURES)[number];

/** Decimals of every mean and interval bound of a sweep (one number format per figure). */
const DIGITS = 3;

export interface SweepPoint {
  /** The model of the point's run. */
  model: string;
  num_transactions: number;
  fault_rate: number | null;
  /** The reasoning effort and completion token limit sent (null: not sent, or unknown); a budget sweep's axis (since 0.4.1). */
  reasoning_effort: string | null;
  max_tokens: number | null;
  /** The point's run folder. */
  dir: string;
  status: string | null;
  /**
   * True when every reply of the point was cut off by the token limit and the first-contact
   * rule stopped its run: its rewards are its rollouts counted as 0 (since 0.4.1).
   */
  cut_off: boolean;
  tasks: number;
  /** Rollouts the point's run sets out to do (tasks × rollouts), or the rollouts recorded when run.json does not say. */
  n: number;
  completed: number;
  errored: number;
  measures: Record<SweepMeasure, Estimate>;
  /** Tokens the point's run was billed (prompt and completion; since 0.4.1). */
  tokens_total: number;
  /** Its cost at its run's prices (`cost.lower_bound` when it may be incomplete; since 0.4.1). */
  cost: Cost;
  notes: string[];
  /** What the point's run was measured with: endpoint, task settings, sampling, versions. */
  provenance: Provenance;
}

export interface SweepResult {
  /** The sweep folder (or, in a leaderboard overlay, the folders, joined by ", "). */
  dir: string;
  /** Every model, in the order the sweep lists them. */
  models: string[];
  /** The model when there is only one (as 0.3 wrote it), else null. */
  model: string | null;
  /** What the points vary along: ledger rows, or the reasoning budget (since 0.4.1). */
  axis: SweepAxis;
  points: SweepPoint[];
}

export interface SweepInput {
  num_transactions: number;
  fault_rate: number | null;
  /** The model the plan gave the point; the run's own when not given. */
  model?: string | null;
  /** A budget sweep's point: its budget as planned (else the one its run.json says it sent). */
  reasoning_effort?: string;
  max_tokens?: number;
  /** The point's run (its per-task sums are not needed: `bas view` gives a run's report here). */
  data: Omit<RunData, 'builder'>;
  /** Every reply cut off by the token limit, the run stopped (results.ts `cutOffRun`). */
  cut_off?: boolean;
}

/**
 * How a sweep's figures draw its axis: its label, the range every panel shares, and (for
 * reasoning efforts, drawn by rank) each tick's name.
 */
export function figureAxis(r: SweepResult): {
  xLabel: string;
  domain: [number, number];
  tick?: (x: number) => string;
  x: (p: SweepPoint) => number;
} {
  const spec: { label: string; tick?: (rank: number) => string } = SWEEP_AXES[r.axis];
  const x = (p: SweepPoint) => axisRank(p, r.axis);
  const xs = r.points.map(x);
  const domain: [number, number] = [Math.min(...xs), Math.max(...xs)];
  return { xLabel: spec.label, domain, x, ...(spec.tick ? { tick: spec.tick } : {}) };
}

/**
 * The sweep's points from their run folders: models in the order given (else first seen),
 * then rows, then fault rate.
 */
export function buildSweep(
  dir: string,
  points: SweepInput[],
  models: string[] = [],
  axis: SweepAxis = 'num_transactions',
): SweepResult {
  const out = points.map(({ num_transactions, fault_rate, model, data, cut_off, ...budget }): SweepPoint => {
    const s = data.summary;
    const sent = data.provenance.sampling;
    // A point cut off at its budget scores 0 on each rollout it ran: its rewards count them so.
    const cut = cut_off === true;
    const zero = s.reward_errors_as_zero;
    return {
      model: model ?? data.model,
      num_transactions,
      fault_rate,
      reasoning_effort: budget.reasoning_effort ?? sent?.reasoning_effort ?? null,
      max_tokens: budget.max_tokens ?? sent?.max_tokens ?? null,
      dir: data.dir,
      status: typeof data.run?.status === 'string' ? data.run.status : null,
      cut_off: cut,
      tasks: s.counts.tasks,
      n: data.expected ?? s.counts.rollouts,
      completed: s.counts.completed,
      errored: s.counts.errored,
      measures: {
        reward: cut ? zero : s.reward,
        bas_correct: cut ? zero : s.rewards.bas_correct,
        fault_audit: cut ? zero : s.rewards.fault_audit,
        bas_consistent: s.consistency.bas_consistent,
      },
      tokens_total: s.tokens.prompt + s.tokens.completion,
      cost: costOf(s, {}, data.run?.prices),
      // Its run's own notes would say a resume finishes it: a resume would only stop again.
      notes: cut ? [cutOffNote(s.counts.errored, data.expected ?? s.counts.rollouts)] : data.notes,
      provenance: data.provenance,
    };
  });
  const order = [...models];
  for (const p of out) if (!order.includes(p.model)) order.push(p.model);
  out.sort(
    (a, b) =>
      order.indexOf(a.model) - order.indexOf(b.model) ||
      axisRank(a, axis) - axisRank(b, axis) ||
      (a.fault_rate ?? 0) - (b.fault_rate ?? 0),
  );
  const used = order.filter((m) => out.some((p) => p.model === m));
  return { dir, models: used, model: used.length === 1 ? used[0]! : null, axis, points: out };
}

/** The note of a point cut off at its budget. */
function cutOffNote(rollouts: number, planned: number): string {
  return `every reply was cut off by the token limit, so the run stopped after ${rollouts} of its ${planned} rollouts; each counts as 0 in every reward (its interval is over those ${rollouts}), and a resume does not run it again`;
}

/** A mean over its interval; `split`: the interval's bounds on lines of their own, for a narrow table. */
function cell(e: Estimate, split = false): string {
  return e.mean === null
    ? '–'
    : `${fmt(e.mean, DIGITS)}\n${e.ci95 ? `${fmt(e.ci95[0], DIGITS)}–${split ? '\n' : ''}${fmt(e.ci95[1], DIGITS)}` : '–'}`;
}

/** Whether any point has a fault rate of its own (then the tables and charts show it). */
export function hasFaultRates(r: SweepResult): boolean {
  const rates = new Set(r.points.map((p) => p.fault_rate));
  return rates.size > 1 || !rates.has(null);
}

/**
 * Where a point is, in words: "24 rows", "reasoning effort low" or "max_tokens 4000", with ",
 * fault rate 0.5" when it has one. A planned point's axis is the budget it carries.
 */
export function pointName(p: AxisPlace & { fault_rate: number | null }, axis?: SweepAxis): string {
  return `${placeText(p, axis)}${p.fault_rate === null ? '' : `, fault rate ${p.fault_rate}`}`;
}

/**
 * The fewest decimals (up to 6) that write every value exactly, so a column of fault rates
 * reads 0.10, 0.25 rather than 0.1, 0.25.
 */
function sharedDecimals(values: number[]): number {
  let d = 0;
  while (d < 6 && values.some((v) => Number(v.toFixed(d)) !== v)) d++;
  return d;
}

/**
 * One model's grid as a table within 80 columns: a row per point, mean over its 95% interval.
 * Every number in a column has the same decimals (the fault rates those of every table).
 */
function renderSweepGrid(r: SweepResult, model: string, split = false): string {
  const withRate = hasFaultRates(r);
  const rateDigits = sharedDecimals(r.points.flatMap((p) => (p.fault_rate === null ? [] : [p.fault_rate])));
  const head = [
    // "reasoning\neffort", "max_\ntokens": a budget sweep's table was 82 columns wide.
    SWEEP_AXES[r.axis].head.replace(/[ _]/, (c) => (c === ' ' ? '\n' : '_\n')),
    ...(withRate ? ['fault\nrate'] : []),
    'reward',
    'bas_correct',
    'fault_audit',
    'bas_\nconsistent',
    'completed\n/ errored',
  ];
  const rows = r.points
    .filter((p) => p.model === model)
    .map((p) => [
      axisText(p, r.axis),
      ...(withRate ? [fmt(p.fault_rate, rateDigits)] : []),
      cell(p.measures.reward, split),
      cell(p.measures.bas_correct, split),
      cell(p.measures.fault_audit, split),
      cell(p.measures.bas_consistent, split),
      `${fmtInt(p.completed)} / ${fmtInt(p.errored)}\nof ${fmtInt(p.n)}`,
    ]);
  const table = fitTable(head, rows, { separators: true, align: head.map(() => 'right') });
  // Too wide with a fault rate beside the budget: each interval on two lines fits.
  return !split && textWidth(table) > 80 ? renderSweepGrid(r, model, true) : table;
}

/**
 * What the sweep's numbers were measured with, as labelled lines: the tasks (size, fault rate
 * where the grid has none of its own, seed), the endpoint, the sampling and the versions. A
 * setting the points share is shown once; else each value with the models (or points) that had it.
 */
export function sweepSettingsLines(r: SweepResult): Array<[string, string]> {
  const withRate = hasFaultRates(r);
  const tasks = (p: Provenance): string => {
    const t = p.task;
    const rate = withRate || t === null ? '' : ` · fault rate ${t.fault_rate}`;
    const size = `${p.n ?? 'unknown'} tasks × ${p.rollouts ?? 'unknown'} rollout${p.rollouts === 1 ? '' : 's'}`;
    // Rows are the axis of a difficulty sweep, and a setting of a budget sweep.
    const rows = r.axis === 'num_transactions' ? '' : ` · ${t?.num_transactions ?? 'unknown'} rows`;
    return `${size}${rows}${rate} · seed ${t?.seed ?? 'unknown'}`;
  };
  const line = (label: string, text: (p: Provenance) => string): [string, string] => {
    const items: Array<[string, string]> = [];
    for (const m of r.models) {
      const points = r.points.filter((p) => p.model === m);
      const texts = new Set(points.map((p) => text(p.provenance)));
      if (texts.size === 1) items.push([m, [...texts][0]!]);
      else for (const p of points) items.push([`${m}, ${pointName(p, r.axis)}`, text(p.provenance)]);
    }
    return [label, sharedText(items)];
  };
  return [
    line('tasks', tasks),
    line('endpoint', endpointText),
    line('sampling', (p) => samplingText(p.sampling, r.axis)),
    line('versions', versionsText),
  ];
}

/** What each of a model's points spent: "spent: 8 rows 12,345 tokens, $0.0123; 16 rows …" ("at least" where incomplete). */
function spentLine(r: SweepResult, model: string): string {
  const points = r.points.filter((p) => p.model === model);
  const each = points.map((p) => {
    const usd = totalText(p.cost);
    return `${pointName(p, r.axis)} ${p.cost.lower_bound ? 'at least ' : ''}${fmtInt(p.tokens_total)} tokens${usd === null ? '' : `, ${usd}`}`;
  });
  return wrapCell(`spent: ${each.join('; ')}`, 80);
}

/** The text `bas sweep` prints at the end: a table per model, within 80 columns, then the notes. */
export function renderSweep(r: SweepResult): string {
  const out = [wrapCell(`sweep in ${r.dir}: means over 95% intervals against ${SWEEP_AXES[r.axis].against}`, 80)];
  for (const [label, text] of sweepSettingsLines(r)) out.push(wrapCell(`${label}: ${text}`, 80));
  for (const m of r.models) out.push(wrapCell(`model ${m}`, 80), renderSweepGrid(r, m), spentLine(r, m));
  for (const p of r.points)
    for (const n of p.notes)
      out.push(wrapCell(`note (${r.models.length > 1 ? `${p.model}, ` : ''}${pointName(p, r.axis)}): ${n}`, 80));
  return out.join('\n') + '\n';
}

/** The columns of `--csv`, one line per model and point. */
const CSV_HEAD = [
  'model',
  'rows',
  'fault_rate',
  'n',
  'completed',
  'errored',
  ...SWEEP_MEASURES.flatMap((m) => [m, `${m}_ci_low`, `${m}_ci_high`]),
  'status',
  'folder',
  // What the point was measured with (after the figures, so the columns before keep their places).
  'seed',
  ...SAMPLING_CSV_HEAD,
  'provider',
  'endpoint',
  'generator',
  'prompt_version',
  'bas_version',
  // What the points vary along (since 0.4.1): num_transactions (the rows column), reasoning_effort or max_tokens.
  'axis',
  // What each point spent (since 0.4.1): cost_is_lower_bound when it may be incomplete.
  'tokens_total',
  'cost_usd',
  'cost_is_lower_bound',
];

/** The sweep as CSV: the numbers of `--json` at full precision, one line per model and point, empty where there is none. */
export function renderSweepCsv(r: SweepResult): string {
  const lines = [CSV_HEAD.join(',')];
  for (const p of r.points) {
    const cells = [
      p.model,
      p.num_transactions,
      p.fault_rate,
      p.n,
      p.completed,
      p.errored,
      ...SWEEP_MEASURES.flatMap((m) => [p.measures[m].mean, p.measures[m].ci95?.[0], p.measures[m].ci95?.[1]]),
      p.status,
      p.dir,
      p.provenance.task?.seed ?? null,
      ...samplingCells(p.provenance.sampling),
      p.provenance.provider,
      p.provenance.endpoint,
      p.provenance.generator,
      p.provenance.prompt_version,
      p.provenance.bas_version,
      r.axis,
      p.tokens_total,
      p.cost.total_usd,
      p.cost.lower_bound ? 'yes' : 'no',
    ];
    lines.push(cells.map(csvField).join(','));
  }
  return lines.join('\n') + '\n';
}

/**
 * A sweep folder read back: its plan's models and points, each from its run folder (`who`
 * starts errors). `read` holds runs the caller has read already, by folder (a leaderboard
 * reads every run it finds first): those points are not read again, nor their warnings told twice.
 */
export async function readSweepFolder(
  dir: string,
  who = '--resume',
  warn?: Warn,
  read: ReadonlyMap<string, SweepInput['data']> = new Map(),
): Promise<SweepResult> {
  const plan = readSweepPlan(dir, who);
  const models = planModels(plan);
  const points: SweepInput[] = [];
  for (const p of plan.points) {
    const folder = join(dir, p.folder);
    // A point stopped at its budget before its first rollout is shown empty, not refused.
    const data = read.get(folder) ?? (await readRun(folder, warn, { allowEmpty: true }));
    points.push({
      num_transactions: p.num_transactions,
      fault_rate: p.fault_rate,
      model: p.model ?? (models.length === 1 ? models[0] : null),
      ...(p.reasoning_effort === undefined ? {} : { reasoning_effort: p.reasoning_effort }),
      ...(p.max_tokens === undefined ? {} : { max_tokens: p.max_tokens }),
      data,
      // Only a failed run can have been cut off: the records are read again for that alone.
      cut_off: data.run?.status === 'failed' ? await cutOffRun(folder) : false,
    });
  }
  return buildSweep(dir, points, models, planAxis(plan));
}

/**
 * Several sweep folders as one figure (`bas leaderboard` of sweep folders): every model of
 * every folder a curve of its own; a model found in more than one folder is named with its
 * folder, `model (folder)`, so two sweeps of one model are two curves, never pooled.
 */
export function overlaySweeps(all: SweepResult[]): SweepResult {
  // One axis per figure: the first folder's; sweeps along another are ranked, not drawn.
  const axis = all[0]?.axis ?? 'num_transactions';
  const sweeps = all.filter((s) => s.axis === axis);
  const count = new Map<string, number>();
  for (const s of sweeps) for (const m of s.models) count.set(m, (count.get(m) ?? 0) + 1);
  const name = (m: string, dir: string) => ((count.get(m) ?? 0) > 1 ? `${m} (${basename(dir)})` : m);
  const models = sweeps.flatMap((s) => s.models.map((m) => name(m, s.dir)));
  const points = sweeps.flatMap((s) => s.points.map((p) => ({ ...p, model: name(p.model, s.dir) })));
  const unique = [...new Set(models)];
  return {
    dir: sweeps.map((s) => s.dir).join(', '),
    models: unique,
    model: unique.length === 1 ? unique[0]! : null,
    axis,
    points,
  };
}
