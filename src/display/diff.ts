/**
 * The diff of two runs that share tasks: each (task, rollout) both hold, what changed from
 * run A to run B, the rollouts whose outcome flipped first. A flip is the BAS going from right
 * to wrong or back, an error appearing or going, or a fault code newly missed or wrongly
 * flagged (a mistake gained) or no longer (lost); the rest are ordered by how far the reward
 * moved. Computed once here, for the viewer's /api/diff and for a page's embedded diff.
 */
import type { ListRow } from './list.js';
import { pairText } from './route.js';

/** One side of a diff row: what the list row says of the rollout. */
export type DiffSide = Pick<ListRow, 'reward' | 'errored' | 'bas_correct' | 'missed' | 'wrong'>;

interface DiffRow {
  index: number;
  rollout: number;
  a: DiffSide;
  b: DiffSide;
  /** What flipped, in words ("BAS right → wrong", "missed outside_period gained", …); empty when nothing did. */
  flips: string[];
  /** B's reward − A's; null when either errored. */
  delta: number | null;
}

export interface DiffAnswer {
  a: string;
  b: string;
  /** Rollouts both runs hold, and those only one does. */
  shared: number;
  only_a: number;
  only_b: number;
  /** Shared rollouts with a flip, and with the reward moved at all. */
  flipped: number;
  changed: number;
  /** The rows, flipped first; at most `limit` of them. */
  rows: DiffRow[];
  limit: number;
  /** Why no rollout is diffed (the runs are on different tasks), or null. */
  refused: string | null;
}

/** A run's task settings, as a diff checks that two runs share their tasks. */
export interface DiffTasks {
  num_transactions: number;
  fault_rate: number;
  seed: number;
}

/**
 * Why two runs' rollouts cannot be paired: their task settings differ, so task `i` is another
 * ledger in each (as `bas compare` refuses such a pairing); null when they agree or a side
 * does not say.
 */
export function tasksDiffer(a: DiffTasks | null | undefined, b: DiffTasks | null | undefined): string | null {
  if (!a || !b) return null;
  if (a.num_transactions === b.num_transactions && a.fault_rate === b.fault_rate && a.seed === b.seed) return null;
  const t = (x: DiffTasks) => `${x.num_transactions} rows, fault rate ${x.fault_rate}, seed ${x.seed}`;
  return `the runs are on different tasks (A: ${t(a)}; B: ${t(b)}): task i is another ledger in each, so no rollout is paired`;
}

/** Rows the viewer's diff lists (its /api/diff, and the one the app computes from a bundle); the counts cover all. */
export const DIFF_ROWS = 200;

/** One side's outcome in words: errored, or the BAS right or wrong (the diff's flips, the app's sides). */
export function sideOutcome(s: DiffSide): string {
  if (s.errored) return 'errored';
  return s.bas_correct ? 'BAS right' : 'BAS wrong';
}

/** What flipped between `a` and `b`. */
export function flipsOf(a: DiffSide, b: DiffSide): string[] {
  const out: string[] = [];
  if (sideOutcome(a) !== sideOutcome(b)) out.push(`${sideOutcome(a)} → ${sideOutcome(b)}`);
  const gained = (kind: string, x: string[], y: string[]) =>
    y.filter((c) => !x.includes(c)).forEach((c) => out.push(`${kind} ${c} gained`));
  const lost = (kind: string, x: string[], y: string[]) =>
    x.filter((c) => !y.includes(c)).forEach((c) => out.push(`${kind} ${c} lost`));
  if (!a.errored && !b.errored) {
    gained('missed', a.missed, b.missed);
    lost('missed', a.missed, b.missed);
    gained('wrongly flagged', a.wrong, b.wrong);
    lost('wrongly flagged', a.wrong, b.wrong);
  }
  return out;
}

/** Flipped first (a BAS or error flip before a code's), then by how far the reward moved, then by task. */
function order(x: DiffRow, y: DiffRow): number {
  const weight = (r: DiffRow) => (r.flips.length === 0 ? 0 : r.flips[0]!.includes('→') ? 2 : 1);
  const moved = (r: DiffRow) => Math.abs(r.delta ?? 0);
  return weight(y) - weight(x) || moved(y) - moved(x) || x.index - y.index || x.rollout - y.rollout;
}

const side = (r: ListRow): DiffSide => ({
  reward: r.reward,
  errored: r.errored,
  bas_correct: r.bas_correct,
  missed: r.missed,
  wrong: r.wrong,
});

/** Rows kept before the ones past the limit are dropped: a few sorts of a small array, however many rows. */
const TRIM_AT = 1024;

/**
 * The diff built one shared rollout at a time (`add`: A's row and B's): every rollout counted,
 * only the first `limit` rows in order kept, so two runs of 100,000 rollouts hold a few hundred
 * rows here, not 100,000.
 */
export class DiffTally {
  private kept: DiffRow[] = [];
  private shared = 0;
  private flipped = 0;
  private changed = 0;

  constructor(private readonly limit: number) {}

  add(l: ListRow, r: ListRow): void {
    const delta = l.reward === null || r.reward === null ? null : Math.round((r.reward - l.reward) * 1e6) / 1e6;
    const flips = flipsOf(side(l), side(r));
    this.shared++;
    if (flips.length > 0) this.flipped++;
    if (flips.length > 0 || (delta ?? 0) !== 0) this.changed++;
    this.kept.push({ index: r.index, rollout: r.rollout, a: side(l), b: side(r), flips, delta });
    if (this.kept.length >= this.limit + TRIM_AT) this.trim();
  }

  private trim(): void {
    this.kept.sort(order);
    if (this.kept.length > this.limit) this.kept.length = this.limit;
  }

  /** The answer, for runs `ids` holding `sizeA` and `sizeB` rollouts. */
  answer(ids: [string, string], sizeA: number, sizeB: number): DiffAnswer {
    this.trim();
    const { shared, flipped, changed, limit, kept: rows } = this;
    const [a, b] = ids;
    return {
      a,
      b,
      shared,
      only_a: sizeA - shared,
      only_b: sizeB - shared,
      flipped,
      changed,
      rows,
      limit,
      refused: null,
    };
  }
}

/**
 * The diff of run `b` against run `a` from their list rows, keeping the first `limit` rows;
 * none when `refused` says why the runs cannot be paired (`tasksDiffer`).
 */
export function diffRuns(
  ids: [string, string],
  a: Iterable<ListRow>,
  b: Iterable<ListRow>,
  limit: number,
  refused: string | null = null,
): DiffAnswer {
  if (refused !== null)
    return { a: ids[0], b: ids[1], shared: 0, only_a: 0, only_b: 0, flipped: 0, changed: 0, rows: [], limit, refused };
  const left = new Map<string, ListRow>();
  for (const r of a) left.set(pairText(r), r);
  const tally = new DiffTally(limit);
  let sizeB = 0;
  for (const r of b) {
    sizeB++;
    const l = left.get(pairText(r));
    if (l !== undefined) tally.add(l, r);
  }
  return tally.answer(ids, left.size, sizeB);
}
