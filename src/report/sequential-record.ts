/**
 * run.json's `sequential` (written by `--precision` and `--against RUN --until decided`) as a
 * report reads it: checked, or left out. Apart from its words (sequential-text.ts), which need
 * the cost, so that the run report can carry the record without a cycle of imports.
 */
import type { SequentialRecord } from '../summary/confidence-sequence.js';

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * run.json's `sequential`, when it is one bas wrote (a hand-edited or foreign one is left out:
 * reports show no interval rather than a wrong one); null otherwise.
 */
export function sequentialOf(run: Record<string, unknown> | null): SequentialRecord | null {
  const q = run?.sequential as Record<string, unknown> | undefined;
  if (typeof q !== 'object' || q === null) return null;
  if (q.rule !== 'precision' && q.rule !== 'decided') return null;
  if (!num(q.tasks) || !num(q.low) || !num(q.high) || !num(q.half_width) || typeof q.reached !== 'boolean') return null;
  if (q.mean !== null && !num(q.mean)) return null;
  if (q.fixed_design_tasks !== null && !num(q.fixed_design_tasks)) return null;
  if (q.rule === 'precision' && !num(q.width)) return null;
  if (q.rule === 'decided' && (typeof q.against !== 'string' || !num(q.margin))) return null;
  return q as unknown as SequentialRecord;
}
