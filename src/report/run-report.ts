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

/** Prices in US dollars per million tokens. */
export interface Prices {
  in: number | null;
  out: number | null;
}

export interface Cost {
  price_in_per_million: number | null;
  price_out_per_million: number | null;
  input_usd: number | null;
  output_usd: number | null;
  /** Null unless both prices are known. */
  total_usd: number | null;
  /**
   * The part of the total that bought no score: the tokens of errored rollouts, and of lines
   * a resume replaced. Null unless both prices are known.
   */
  unscored_usd: number | null;
  /**
   * What the replies answered from the response cache would have cost at these prices: not
   * part of the total, which is what this run paid. Absent when no reply came from the cache.
   */
  from_cache_usd?: number | null;
  /**
   * Requests in flight when the run stopped (since 0.4.1): their replies were never read, so
   * `total_usd` is a lower bound when this is above 0, by at most `in_flight_up_to_usd` (null
   * when prices are unknown or nothing bounded their replies).
   */
  in_flight_requests: number;
  in_flight_up_to_usd: number | null;
}

/**
 * A run's cost in words, honest about what is unknown: "$0.1234", or "at least $0.1234 (3
 * requests were in flight when the run stopped; up to about $0.0456 more)". Null without prices.
 */
export function costText(c: Cost): string | null {
  if (c.total_usd === null) return null;
  const usd = `$${c.total_usd.toFixed(4)}`;
  if (c.in_flight_requests === 0) return usd;
  const n = c.in_flight_requests;
  const more =
    c.in_flight_up_to_usd === null ? 'their cost is unknown' : `up to about $${c.in_flight_up_to_usd.toFixed(4)} more`;
  return `at least ${usd} (${n.toLocaleString('en-US')} request${n === 1 ? ' was' : 's were'} in flight when the run stopped; ${more})`;
}

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

function priceOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/** The cost of the tokens in `s` at the flags' prices, else the run's own. */
export function costOf(s: Summary, flags: { in?: number; out?: number }, runPrices?: Partial<Prices> | null): Cost {
  const pin = flags.in ?? priceOf(runPrices?.in);
  const pout = flags.out ?? priceOf(runPrices?.out);
  const input = pin === null ? null : (s.tokens.prompt / 1e6) * pin;
  const output = pout === null ? null : (s.tokens.completion / 1e6) * pout;
  // A summary written before 0.4 has no split: nothing is known to have bought nothing.
  const lost = s.tokens.unscored ?? { prompt: 0, completion: 0 };
  // A summary written before 0.4.1 knows of no request abandoned in flight.
  const flight = s.tokens.in_flight ?? { requests: 0, prompt: 0, completion: 0 };
  const both = pin !== null && pout !== null;
  const fromCache = s.tokens.from_cache;
  return {
    price_in_per_million: pin,
    price_out_per_million: pout,
    input_usd: input,
    output_usd: output,
    total_usd: input !== null && output !== null ? input + output : null,
    unscored_usd: both ? (lost.prompt / 1e6) * pin + (lost.completion / 1e6) * pout : null,
    ...(fromCache
      ? { from_cache_usd: both ? (fromCache.prompt / 1e6) * pin + (fromCache.completion / 1e6) * pout : null }
      : {}),
    in_flight_requests: flight.requests,
    in_flight_up_to_usd:
      both && flight.completion !== null ? (flight.prompt / 1e6) * pin + (flight.completion / 1e6) * pout : null,
  };
}

/**
 * The cost row of the replies answered from the response cache: what they would have cost,
 * which this run did not pay. Null when none came from the cache.
 */
export function fromCacheLine(s: Summary, c: Cost, money: (v: number | null) => string = usd): [string, string] | null {
  const hits = s.tokens.from_cache;
  if (!hits) return null;
  const n = hits.rollouts;
  return [
    `answered from the cache, not paid (${fmtInt(n)} rollout${n === 1 ? '' : 's'}, ${fmtInt(hits.prompt + hits.completion)} tokens)`,
    money(c.from_cache_usd ?? null),
  ];
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

function usd(v: number | null): string {
  return v === null ? '–' : `$${v.toFixed(v < 1 ? 4 : 2)}`;
}

/**
 * The cost row "of which bought nothing", when some tokens bought no score: errored rollouts
 * (and lines a resume replaced) were paid for all the same. Null when there were none.
 */
export function unscoredLine(s: Summary, c: Cost, money: (v: number | null) => string = usd): [string, string] | null {
  const lost = s.tokens.unscored;
  if (!lost || lost.total + lost.prompt + lost.completion === 0) return null;
  const errored = s.counts.errored;
  const who = errored > 0 ? `${fmtInt(errored)} errored rollout${errored === 1 ? '' : 's'}` : 'replaced lines';
  return [`  of which bought nothing (${who}, ${fmtInt(lost.prompt + lost.completion)} tokens)`, money(c.unscored_usd)];
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
  cost.push(['total', usd(c.total_usd)]);
  const lost = unscoredLine(r.summary, c);
  if (lost) cost.push(lost);
  const hits = fromCacheLine(r.summary, c);
  if (hits) cost.push(hits);
  out.push('', cost.toString());
  if (c.total_usd === null) out.push('(give --price-in and --price-out, in USD per million tokens, to price the run)');
  return out.join('\n') + '\n';
}
