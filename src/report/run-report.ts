/**
 * `bas report` in data: one run's summary with its breakdowns and cost, and its text form.
 */
import { terminalText } from '../io/terminal-text.js';
import type { TaskConfig } from '../task/types.js';
import type { RunData } from './read.js';
import type { Summary } from '../summary/summary.js';
import { timeOfRun, type RunTime } from '../runfile/sessions.js';
import { fmt, fmtInt, plainTable, renderSummary } from './tables.js';
import { runEndpoints, type RunEndpoint } from '../runfile/endpoints.js';
import { durationText, provenanceLines, type Provenance } from './provenance.js';
import { wrapCell } from './fit-table.js';
import type { SequentialRecord } from '../summary/confidence-sequence.js';
import { sequentialOf } from './sequential-record.js';
import { costOf, fromCacheLine, lowerBoundLines, unscoredLine, type Cost } from './cost.js';
import { usd } from '../display/format.js';

/** Everything `bas report --json` prints. */
export interface RunReport {
  run: {
    dir: string;
    model: string;
    task: TaskConfig | null;
    status: string | null;
    started_at: string | null;
    ended_at: string | null;
    /** Seconds over every session of the run whose length is known (null when none is). */
    elapsed_s: number | null;
    /** Processes that worked on the run: the first eval and each resume. */
    sessions: number;
    /** Sessions whose end was never written (killed, or resumed under bas 0.3). */
    sessions_of_unknown_length: number;
    /** Rollouts the run set out to do, if run.json says. */
    expected_rollouts: number | null;
    /** Every endpoint the run used, with the scored rollouts each answered; null for a run that used none. */
    endpoints: RunEndpoint[] | null;
    /** Model, endpoint, sampling as sent, size, versions, dates, wall time (see provenance.ts). */
    provenance: Provenance;
  };
  notes: string[];
  summary: Summary;
  cost: Cost;
  /** run.json's `sequential` (`--precision`, `--against … --until decided`): the anytime-valid interval and where the run stopped; null without a rule. */
  sequential: SequentialRecord | null;
}

/** Builds the report of one run. */
export function buildRunReport(data: RunData, prices: { in?: number; out?: number } = {}): RunReport {
  const run = data.run;
  const time = timeOfRun(run);
  return {
    run: {
      dir: data.dir,
      model: data.model,
      task: data.task,
      status: typeof run?.status === 'string' ? run.status : null,
      started_at: typeof run?.started_at === 'string' ? run.started_at : null,
      ended_at: typeof run?.ended_at === 'string' ? run.ended_at : null,
      elapsed_s: time.elapsed_s,
      sessions: time.sessions,
      sessions_of_unknown_length: time.unknown,
      expected_rollouts: data.expected,
      endpoints: run ? runEndpoints(run as Record<string, unknown>, data.summary.counts.completed) : null,
      provenance: { ...data.provenance, status: typeof run?.status === 'string' ? run.status : null },
    },
    notes: data.notes,
    summary: data.summary,
    cost: costOf(data.summary, prices, run?.prices),
    sequential: sequentialOf(run),
  };
}

/**
 * The time a run took, over all its sessions: `10.2 s` for one, `10.2 s over 2 sessions`,
 * and `at least 4.1 s over 3 sessions, 1 of unknown length` where an end was never written;
 * null when no session's length is known.
 */
export function runTimeText(t: RunTime): string | null {
  if (t.elapsed_s === null) return null;
  if (t.sessions <= 1) return durationText(t.elapsed_s);
  const over = `${durationText(t.elapsed_s)} over ${t.sessions} sessions`;
  return t.unknown > 0 ? `at least ${over}, ${t.unknown} of unknown length` : over;
}

/** A one-line description of a task configuration. */
export function describeTask(t: TaskConfig | null): string {
  return t ? `${t.num_transactions} rows, fault rate ${t.fault_rate}, seed ${t.seed}` : 'unknown';
}

/** The reward's distribution as a table with a bar per bin. */
function renderHistogram(s: Summary): string {
  const t = plainTable(['reward', 'rollouts', 'share', ''], ['left', 'right', 'right', 'left']);
  const total = s.reward_histogram.reduce((a, b) => a + b.count, 0);
  const max = Math.max(1, ...s.reward_histogram.map((b) => b.count));
  for (const b of s.reward_histogram) {
    const label = `[${b.lo.toFixed(1)}, ${b.hi.toFixed(1)}${b.hi === 1 ? ']' : ')'}`;
    const bar = '#'.repeat(Math.round((b.count / max) * 30));
    t.push([label, fmtInt(b.count), total ? fmt(b.count / total, 3) : '–', bar]);
  }
  return t.toString();
}

/**
 * "59 of 60 rollouts recorded". A scored run records a missing reply as an errored rollout
 * (`missing_reply`), so there the count says how many replied, which is what "incomplete" means.
 */
function statusCount(r: RunReport): string {
  const c = r.summary.counts;
  const expected = fmtInt(r.run.expected_rollouts!);
  const missing = Object.hasOwn(c.errors_by_type, 'missing_reply') ? c.errors_by_type['missing_reply']! : 0;
  if (missing > 0)
    return `${fmtInt(c.rollouts - missing)} of ${expected} rollouts replied to, ${fmtInt(missing)} missing`;
  return `${fmtInt(c.rollouts)} of ${expected} rollouts recorded`;
}

/** Width of the text report's header lines. */
const HEADER_WIDTH = 80;

/** `label:` and a value, the value wrapped under itself so every line fits 80 columns. */
export function labelledLines(pairs: Array<[string, string]>): string[] {
  const pad = Math.max(...pairs.map(([k]) => k.length)) + 2;
  return pairs.map(([k, v]) =>
    wrapCell(terminalText(v), HEADER_WIDTH - pad)
      .split('\n')
      .map((line, i) => (i === 0 ? `${`${k}:`.padEnd(pad)}${line}` : `${' '.repeat(pad)}${line}`))
      .join('\n'),
  );
}

/** The text `bas report` prints. */
export function renderRunReport(r: RunReport): string {
  const pairs: Array<[string, string]> = [['run', r.run.dir]];
  // The time over sessions says more than a bare total where the run was resumed, or where a
  // session's length is unknown (a bas 0.3 resume, a kill): "10.2 s over 2 sessions".
  const time =
    r.run.sessions > 1
      ? runTimeText({ elapsed_s: r.run.elapsed_s, sessions: r.run.sessions, unknown: r.run.sessions_of_unknown_length })
      : null;
  for (const [k, v] of provenanceLines(r.run.provenance)) {
    if (k === 'wall time' && time !== null) pairs.push([k, time]);
    else pairs.push([k, k === 'status' && r.run.expected_rollouts !== null ? `${v} (${statusCount(r)})` : v]);
  }
  // One endpoint is the usual case, named by the provenance; a run resumed elsewhere names each.
  const endpoints = r.run.endpoints ?? [];
  if (endpoints.length > 1)
    for (const e of endpoints)
      pairs.push([
        'endpoint',
        `${e.base_url ?? 'none'}${e.provider ? ` (provider ${e.provider})` : ''} answered ${fmtInt(e.rollouts)}`,
      ]);
  for (const n of r.notes) pairs.push(['note', n]);
  const lines = labelledLines(pairs);
  // The header quotes run.json (model, folder, status): nothing in it may drive the terminal.
  const out = [
    terminalText(lines.join('\n')),
    '',
    renderSummary(r.summary),
    'reward distribution (completed rollouts)',
    renderHistogram(r.summary),
  ];
  const c = r.cost;
  const cost = plainTable(['cost', 'USD'], ['left', 'right']);
  cost.push([
    `input (${fmtInt(r.summary.tokens.prompt)} tokens at ${c.price_in_per_million ?? '?'}/M)`,
    usd(c.input_usd),
  ]);
  cost.push([
    `output (${fmtInt(r.summary.tokens.completion)} tokens at ${c.price_out_per_million ?? '?'}/M)`,
    usd(c.output_usd),
  ]);
  // A total that may be incomplete says so, with what it may leave out (cost.ts).
  cost.push([c.lower_bound ? 'total, at least' : 'total', usd(c.total_usd)]);
  for (const row of lowerBoundLines(c)) cost.push(row);
  const lost = unscoredLine(r.summary, c);
  if (lost) cost.push(lost);
  const hits = fromCacheLine(r.summary, c);
  if (hits) cost.push(hits);
  out.push('', cost.toString());
  if (c.total_usd === null) out.push('(give --price-in and --price-out, in USD per million tokens, to price the run)');
  return out.join('\n') + '\n';
}
