/**
 * Fault injection. Each row is chosen with probability `fault_rate`; a chosen row gets one
 * fault among those that can apply to it, and now and then a second. What is injected is
 * recorded row by row, independently of the rules that later re-derive the key.
 */
import type { QuarterDays } from './calendar.js';
import { gstInclusiveShare, tenPercentOf } from './money.js';
import type { Rng } from './random.js';
import { isPurchaseOverThreshold, isTaxable } from './rules.js';
import type { FaultCode, FaultMap, Row } from './types.js';

/** Chance that a faulty row gets a second, different fault. */
const SECOND_FAULT_SHARE = 0.15;

/** Faults that live in a document's content, and so travel with it when it is entered twice. */
const CONTENT_FAULTS: ReadonlySet<FaultCode> = new Set([
  'gst_on_gst_free',
  'gst_miscalculated',
  'missing_abn_over_threshold',
]);

function applicable(row: Row, position: number, injectedHere: readonly FaultCode[], days: QuarterDays): FaultCode[] {
  const out: FaultCode[] = [];
  const taxable = isTaxable(row.category);
  if (!taxable && row.gst === 0 && gstInclusiveShare(row.amount) > 0) out.push('gst_on_gst_free');
  if (taxable && row.gst === gstInclusiveShare(row.amount) && tenPercentOf(row.amount) !== row.gst)
    out.push('gst_miscalculated');
  // A duplicate replaces the row with an earlier document, so it must come first.
  if (position > 0 && injectedHere.length === 0) out.push('duplicate_invoice');
  if (row.date >= days.period.start && row.date <= days.period.end) out.push('outside_period');
  if (isPurchaseOverThreshold(row) && row.abn !== '') out.push('missing_abn_over_threshold');
  return out;
}

/** Applies `code` to `rows[position]`, returning the codes the row now carries because of it. */
function apply(
  rng: Rng,
  rows: Row[],
  position: number,
  code: FaultCode,
  injected: FaultMap,
  days: QuarterDays,
): FaultCode[] {
  const row = rows[position]!;
  switch (code) {
    case 'gst_on_gst_free':
      row.gst = gstInclusiveShare(row.amount);
      return [code];
    case 'gst_miscalculated':
      row.gst = tenPercentOf(row.amount);
      return [code];
    case 'missing_abn_over_threshold':
      row.abn = '';
      return [code];
    case 'outside_period':
      row.date = rng.chance(0.5) ? rng.pick(days.before) : rng.pick(days.after);
      return [code];
    case 'duplicate_invoice': {
      // The same document entered again: copy it whole, keep this row's id and posting date.
      const source = rows[rng.int(0, position - 1)]!;
      rows[position] = { ...source, id: row.id, date: row.date };
      const inherited = (injected[source.id] ?? []).filter((c) => CONTENT_FAULTS.has(c));
      return [code, ...inherited];
    }
  }
}

/** Injects faults into clean `rows` in place and returns the record of what was injected. */
export function injectFaults(rng: Rng, rows: Row[], days: QuarterDays, faultRate: number): FaultMap {
  const chosen: boolean[] = new Array<boolean>(rows.length);
  let any = false;
  for (let i = 0; i < rows.length; i++) any = (chosen[i] = rng.chance(faultRate)) || any;
  if (faultRate > 0 && !any) chosen[rng.int(0, rows.length - 1)] = true;

  const injected: FaultMap = Object.create(null) as FaultMap;
  for (let position = 0; position < rows.length; position++) {
    if (!chosen[position]) continue;
    const first = rng.pick(applicable(rows[position]!, position, [], days));
    const codes = apply(rng, rows, position, first, injected, days);
    if (rng.chance(SECOND_FAULT_SHARE)) {
      const more = applicable(rows[position]!, position, codes, days).filter((c) => !codes.includes(c));
      if (more.length > 0)
        for (const c of apply(rng, rows, position, rng.pick(more), injected, days))
          if (!codes.includes(c)) codes.push(c);
    }
    injected[rows[position]!.id] = codes.length > 1 ? codes.sort() : codes;
  }
  return injected;
}
