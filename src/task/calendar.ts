/**
 * BAS quarters and the days around them, as ISO strings. Pure date arithmetic in UTC; the
 * results are cached per quarter because every ledger of a run asks for the same few.
 */
import type { Period } from './types.js';

/** How far outside its quarter an out-of-period row may be dated. */
const OUTSIDE_MARGIN_DAYS = 45;

export interface QuarterDays {
  period: Period;
  /** Every day of the quarter, in order. */
  inside: string[];
  /** The days just before the quarter starts, nearest last. */
  before: string[];
  /** The days just after it ends, nearest first. */
  after: string[];
}

const cache = new Map<string, QuarterDays>();

function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const DAY = 86_400_000;

/**
 * The days of a quarter: `startMonth` is 0 (Jan–Mar), 3 (Apr–Jun), 6 (Jul–Sep) or 9 (Oct–Dec).
 */
export function quarterDays(year: number, startMonth: number): QuarterDays {
  const cacheKey = `${year}-${startMonth}`;
  let found = cache.get(cacheKey);
  if (found) return found;
  const first = Date.UTC(year, startMonth, 1);
  const next = Date.UTC(year, startMonth + 3, 1);
  const inside: string[] = [];
  for (let t = first; t < next; t += DAY) inside.push(iso(t));
  const before: string[] = [];
  for (let k = OUTSIDE_MARGIN_DAYS; k >= 1; k--) before.push(iso(first - k * DAY));
  const after: string[] = [];
  for (let k = 0; k < OUTSIDE_MARGIN_DAYS; k++) after.push(iso(next + k * DAY));
  found = { period: { start: inside[0]!, end: inside[inside.length - 1]! }, inside, before, after };
  cache.set(cacheKey, found);
  return found;
}
