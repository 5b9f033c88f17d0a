/**
 * The verdict of a paired comparison that involves a run a stopping rule looked at. After a
 * data-dependent stop (`--precision`, `--against RUN --until decided`), or a run continued
 * after its rule looked at its interval, a fixed-n interval (the bootstrap) is no longer valid:
 * how many tasks there are depends on the scores. The confidence sequence of the per-task
 * differences is valid at any stopping time, so such a pair's verdict is read from it
 * (docs/statistics.md, "Comparing a run a rule looked at"); `bas compare` and the leaderboard
 * say which interval gave the verdict, and why.
 */
import { PairedConfidenceSequence } from '../summary/confidence-sequence.js';
import { sequentialOf } from './sequential-record.js';
import type { RunData } from './read.js';

/** An anytime-valid interval of a paired difference. */
export interface AnytimeDiff {
  method: 'betting-mixture';
  anytime_valid: true;
  tasks: number;
  mean: number | null;
  ci95: [number, number];
}

/** The confidence sequence of the differences (each in [-1, 1]) after all of them. */
export function anytimeOf(diffs: ArrayLike<number>): AnytimeDiff | null {
  if (diffs.length === 0) return null;
  const cs = new PairedConfidenceSequence();
  for (let k = 0; k < diffs.length; k++) {
    const d = diffs[k]!;
    cs.push(Math.min(1, Math.max(0, d)), Math.min(1, Math.max(0, -d)));
  }
  const i = cs.interval();
  return { method: 'betting-mixture', anytime_valid: true, tasks: i.n, mean: i.mean, ci95: [i.low, i.high] };
}

/** Why `d`'s figures depend on when its rule looked ("B was stopped by --precision"), or null. */
function looked(d: RunData, label: string): string | null {
  const run = d.run as Record<string, unknown> | null;
  const q = sequentialOf(run);
  if (q === null) return null;
  const flag = q.rule === 'precision' ? '--precision' : '--until decided';
  const status = run?.status;
  if (status === 'precision' || status === 'decided') return `${label} was stopped by ${flag}`;
  return `${label} ran under ${flag}, which looked at its interval as it went`;
}

/**
 * Why a pair's verdict must come from the anytime-valid interval (either run was stopped, or
 * continued, by a rule that looked at its interval), or null when the bootstrap's holds.
 */
export function anytimeReason(base: RunData, baseLabel: string, other: RunData, label: string): string | null {
  const why = [looked(base, baseLabel), looked(other, label)].filter((x) => x !== null);
  return why.length === 0 ? null : why.join(' and ');
}
