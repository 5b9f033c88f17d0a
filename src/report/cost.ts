/**
 * A run's cost at its prices, and the words for it. A cost is a total only when every billed
 * request said what it used: with requests in flight at a stop, or replies billed without
 * their usage, it is a lower bound, and every form that shows it says "at least" (text, JSON,
 * HTML, the viewer, the leaderboard: docs/cost.md, "When a cost is a lower bound").
 */
import type { Summary } from '../summary/summary.js';
import { incompleteBecause } from '../summary/billed.js';
import { fmtInt } from './tables.js';
import { usd } from '../display/format.js';

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
  /** Null unless both prices are known; a lower bound when `lower_bound` is true. */
  total_usd: number | null;
  /**
   * True when the token sums (and so the cost) may be incomplete: requests were in flight at a
   * stop, or replies were billed without saying what they used (since 0.4.1).
   */
  lower_bound: boolean;
  /** Why the cost is a lower bound ("3 requests in flight at a stop, 2 replies without usage"), or null. */
  incomplete: string | null;
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
  /**
   * Requests billed without usage (a 200 that said nothing, a reply lost on its way), and the
   * worst case the budget charged for them at these prices (since 0.4.1).
   */
  unreported_requests: number;
  unreported_up_to_usd: number | null;
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
  // A summary written before 0.4.1 knows of no request abandoned in flight, before 0.4.1 of none unreported.
  const flight = s.tokens.in_flight ?? { requests: 0, prompt: 0, completion: 0 };
  const unreported = s.tokens.unreported ?? { requests: 0, prompt: 0, completion: 0 };
  const both = pin !== null && pout !== null;
  const at = (t: { prompt: number; completion: number }): number =>
    (t.prompt / 1e6) * pin! + (t.completion / 1e6) * pout!;
  const fromCache = s.tokens.from_cache;
  const incomplete = incompleteBecause(s.tokens);
  return {
    price_in_per_million: pin,
    price_out_per_million: pout,
    input_usd: input,
    output_usd: output,
    total_usd: input !== null && output !== null ? input + output : null,
    lower_bound: incomplete !== null,
    incomplete,
    unscored_usd: both ? at(lost) : null,
    ...(fromCache ? { from_cache_usd: both ? at(fromCache) : null } : {}),
    in_flight_requests: flight.requests,
    in_flight_up_to_usd:
      both && flight.completion !== null ? at({ prompt: flight.prompt, completion: flight.completion }) : null,
    unreported_requests: unreported.requests,
    unreported_up_to_usd: both ? at(unreported) : null,
  };
}

/** "$0.1234", or "at least $0.1234" when the cost may be incomplete; null without prices. */
export function totalText(c: Pick<Cost, 'total_usd' | 'lower_bound'>, digits = 4): string | null {
  if (c.total_usd === null) return null;
  return `${c.lower_bound ? 'at least ' : ''}$${c.total_usd.toFixed(digits)}`;
}

/**
 * A run's cost in words, honest about what is unknown: "$0.1234", or "at least $0.1234 (3
 * requests were in flight when the run stopped; up to about $0.0456 more)". Null without prices.
 */
export function costText(c: Cost): string | null {
  const total = totalText(c);
  if (total === null || !c.lower_bound) return total;
  const parts: string[] = [];
  const n = c.in_flight_requests;
  if (n > 0) {
    const more =
      c.in_flight_up_to_usd === null
        ? 'their cost is unknown'
        : `up to about $${c.in_flight_up_to_usd.toFixed(4)} more`;
    parts.push(
      `${n.toLocaleString('en-US')} request${n === 1 ? ' was' : 's were'} in flight when the run stopped; ${more}`,
    );
  }
  const u = c.unreported_requests;
  if (u > 0) {
    const more = c.unreported_up_to_usd === null ? '' : `; up to about $${c.unreported_up_to_usd.toFixed(4)} more`;
    parts.push(`${u.toLocaleString('en-US')} billed ${u === 1 ? 'reply' : 'replies'} reported no usage${more}`);
  }
  if (parts.length === 0) parts.push(c.incomplete ?? 'some replies reported no usage');
  return `${total} (${parts.join('; ')})`;
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

/**
 * The rows a cost table adds under its total when the total is a lower bound: the requests in
 * flight at a stop and the replies billed without usage, each with the most it may add.
 */
export function lowerBoundLines(c: Cost, money: (v: number | null) => string = usd): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  if (c.in_flight_requests > 0)
    rows.push([
      `  ${fmtInt(c.in_flight_requests)} in flight at the stop, up to about`,
      unknownAs(c.in_flight_up_to_usd, money),
    ]);
  if (c.unreported_requests > 0)
    rows.push([
      `  ${fmtInt(c.unreported_requests)} billed without usage, up to about`,
      unknownAs(c.unreported_up_to_usd, money),
    ]);
  if (rows.length === 0 && c.lower_bound) rows.push([`  not counted: ${c.incomplete}`, '?']);
  return rows;
}

function unknownAs(v: number | null, money: (v: number | null) => string): string {
  return v === null ? 'unknown' : money(v);
}

/**
 * A table cell of a figure that may be a lower bound (a cost, a token total): "at least" on a
 * line of its own above it, so the figure itself is never broken across lines.
 */
export function atLeastCell(text: string, lowerBound: boolean): string {
  return lowerBound && text !== '–' ? `at least\n${text}` : text;
}
