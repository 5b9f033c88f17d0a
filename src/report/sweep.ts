/**
 * `bas sweep` in data: one run per point of the difficulty knob (ledger rows, and fault rate
 * when several are given), and reward, `bas_correct` and `fault_audit` against the rows with
 * their 95% intervals, as a table and as JSON.
 */
import { fitTable } from './fit-table.js';
import type { RunData } from './read.js';
import type { Estimate } from '../summary/stats.js';
import { fmt, fmtCi, fmtInt } from './tables.js';

/** The measures a sweep draws. */
export const SWEEP_MEASURES = ['reward', 'bas_correct', 'fault_audit'] as const;
type SweepMeasure = (typeof SWEEP_MEASURES)[number];

export interface SweepPoint {
  num_transactions: number;
  fault_rate: number | null;
  /** The point's run folder. */
  dir: string;
  status: string | null;
  tasks: number;
  completed: number;
  errored: number;
  measures: Record<SweepMeasure, Estimate>;
  notes: string[];
}

export interface SweepResult {
  dir: string;
  model: string;
  points: SweepPoint[];
}

/** The sweep's points from their run folders, in rows order (then fault rate). */
export function buildSweep(
  dir: string,
  model: string,
  points: Array<{ num_transactions: number; fault_rate: number | null; data: RunData }>,
): SweepResult {
  const out = points.map(({ num_transactions, fault_rate, data }): SweepPoint => {
    const s = data.summary;
    return {
      num_transactions,
      fault_rate,
      dir: data.dir,
      status: typeof data.run?.status === 'string' ? data.run.status : null,
      tasks: s.counts.tasks,
      completed: s.counts.completed,
      errored: s.counts.errored,
      measures: { reward: s.reward, bas_correct: s.rewards.bas_correct, fault_audit: s.rewards.fault_audit },
      notes: data.notes,
    };
  });
  out.sort((a, b) => a.num_transactions - b.num_transactions || (a.fault_rate ?? 0) - (b.fault_rate ?? 0));
  return { dir, model, points: out };
}

function cell(e: Estimate): string {
  return e.mean === null ? '–' : `${fmt(e.mean)}\n${fmtCi(e.ci95, 2)}`;
}

/** The text `bas sweep` prints at the end: one row per point, within 80 columns. */
export function renderSweep(r: SweepResult): string {
  const rates = new Set(r.points.map((p) => p.fault_rate));
  const withRate = rates.size > 1 || !rates.has(null);
  const head = [
    'rows',
    ...(withRate ? ['fault\nrate'] : []),
    'reward',
    'bas_correct',
    'fault_audit',
    'completed',
    'errored',
  ];
  const rows = r.points.map((p) => [
    String(p.num_transactions),
    ...(withRate ? [p.fault_rate === null ? '–' : String(p.fault_rate)] : []),
    cell(p.measures.reward),
    cell(p.measures.bas_correct),
    cell(p.measures.fault_audit),
    fmtInt(p.completed),
    fmtInt(p.errored),
  ]);
  const out = [
    `sweep of ${r.model} in ${r.dir}: means with 95% intervals against ledger rows`,
    fitTable(head, rows, { separators: true, align: head.map(() => 'right') }),
  ];
  for (const p of r.points)
    for (const n of p.notes)
      out.push(`note (${p.num_transactions} rows${p.fault_rate === null ? '' : `, fault rate ${p.fault_rate}`}): ${n}`);
  return out.join('\n') + '\n';
}
