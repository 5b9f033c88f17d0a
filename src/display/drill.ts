/**
 * The data of a run's drill-down, as the report pages embed it and the viewer answers it: the
 * compact form (rows and rollouts as tuples, repeated text interned, a task stored once
 * however many rollouts it has) and the named form of one rollout that every front end reads
 * (`RolloutDetail`). The layouts are declared here once: the server writes tuples in this
 * order and the browser reads them by these names.
 */

/** The fields of one ledger row, in tuple order. */
const ROW_FIELDS = [
  'id',
  'date',
  'type',
  'counterparty',
  'description',
  'category',
  'amount',
  'gst',
  'invoice',
  'abn',
] as const;
/** Row fields that repeat across rows and tasks: numbers into `DrillData.strings` (a 10,000-task page shrank by about half). */
const ROW_INTERNED = ['type', 'counterparty', 'description', 'category', 'abn'] as const;
type RowData = [string, string, number, number, number, number, string, string, string, number];

export interface TaskData {
  index: number;
  business: string;
  period: [string, string];
  rows: RowData[];
  /** Expected G1, 1A, 1B, net as two-decimal strings. */
  bas: [string, string, string, string];
  /** Row id -> indices into FAULT_CODES. */
  faults: Record<string, number[]>;
}

/**
 * The fields of one rollout, in tuple order. `task` is the task's position in
 * `DrillData.tasks` (-1 when it is not shown); `figures` is [shown text, right?] per label;
 * `why` says why a page embeds this rollout.
 */
const ROLLOUT_FIELDS = [
  'task',
  'index',
  'rollout',
  'reward',
  'bas_correct',
  'fault_audit',
  'error_type',
  'error_message',
  'reply',
  'figures',
  'faults',
  'unparseable',
  'why',
  'no_task',
] as const;
export type RolloutData = [
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  string | null,
  string | null,
  string | null,
  Array<[string, boolean]> | null,
  Record<string, string[]> | null,
  string | null,
  string[],
  string | null,
];

export interface DrillData {
  /** Field names of a rollout and of a ledger row, in tuple order, and the row fields that are interned. */
  layout: { rollout: readonly string[]; row: readonly string[]; interned: readonly string[] };
  /** Rollouts in the run (the data may hold fewer). */
  total_rollouts: number;
  /** The run folder, for the `bas report DIR --rollout I:R` hint. */
  dir: string;
  /** How many of each kind a page's selection keeps. */
  limits: Record<string, number>;
  /** Repeated row text, referenced by number from rows. */
  strings: string[];
  labels: readonly string[];
  codes: readonly string[];
  maxReplyChars: number;
  tasks: TaskData[];
  rollouts: RolloutData[];
}

/** The layouts as the server writes them. */
export const DRILL_LAYOUT = { rollout: ROLLOUT_FIELDS, row: ROW_FIELDS, interned: ROW_INTERNED } as const;

/** A ledger row by field name. */
type LedgerRow = Record<(typeof ROW_FIELDS)[number], string>;

/** One rollout by name: what the drill-down, `--rollout --json` and the viewer's /api/rollout show. */
export interface RolloutDetail {
  index: number;
  rollout: number;
  reward: number | null;
  bas_correct: number | null;
  fault_audit: number | null;
  error_type: string | null;
  error_message: string | null;
  reply: string | null;
  /** Per label: the figure as the reply gave it, and whether it is right; null when not parsed. */
  figures: Record<string, { given: string; right: boolean }> | null;
  /** The reply's claims, row id -> codes; null when not parsed. */
  faults: Record<string, string[]> | null;
  unparseable: string | null;
  why: string[];
  no_task: string | null;
  task: {
    business: string;
    period: [string, string];
    expected_bas: Record<string, string>;
    expected_faults: Record<string, string[]>;
    rows: LedgerRow[];
  } | null;
  /** Set by the viewer (from the record): absent from a page's embedded data. */
  latency_ms?: number | null;
  ttft_ms?: number | null;
  usage?: Record<string, number> | null;
  finish_reason?: string | null;
  attempts?: number | null;
  consistency?: { bas_consistent?: number; bas_error?: string } | null;
  model?: string | null;
  max_reply_chars?: number;
}

/** Row `cells` by field name, interned text looked up. */
function namedRow(d: DrillData, cells: RowData): LedgerRow {
  const out = {} as Record<string, string>;
  d.layout.row.forEach((name, i) => {
    const v = cells[i]!;
    out[name] = d.layout.interned.includes(name) ? d.strings[v as number]! : String(v);
  });
  return out as LedgerRow;
}

/** The task of rollout `x`, by name; null when it is not shown. */
function namedTask(d: DrillData, x: RolloutData): RolloutDetail['task'] {
  const task = x[0] >= 0 ? d.tasks[x[0]] : undefined;
  if (task === undefined) return null;
  return {
    business: task.business,
    period: task.period,
    expected_bas: Object.fromEntries(d.labels.map((l, i) => [l, task.bas[i]!])),
    expected_faults: Object.fromEntries(
      Object.entries(task.faults).map(([id, cs]) => [id, cs.map((c) => d.codes[c]!)]),
    ),
    rows: task.rows.map((r) => namedRow(d, r)),
  };
}

/** Rollout `x` of the page data `d` as named fields. */
export function rolloutDetail(d: DrillData, x: RolloutData): RolloutDetail {
  const [, index, rollout, reward, bas, audit, errType, errMsg, reply, figures, faults, unparseable, why, noTask] = x;
  return {
    task: namedTask(d, x),
    index,
    rollout,
    reward,
    bas_correct: bas,
    fault_audit: audit,
    error_type: errType,
    error_message: errMsg,
    reply,
    figures:
      figures === null
        ? null
        : Object.fromEntries(d.labels.map((l, i) => [l, { given: figures[i]![0], right: figures[i]![1] }])),
    faults,
    unparseable,
    why,
    no_task: noTask,
  };
}
