/**
 * A stopping rule's record (run.json's `sequential`, written by `--precision` and `--against RUN
 * --until decided`) in words, for the eval's last line and for the note every report carries:
 * the anytime-valid interval, the tasks the run stopped at with the cost beside them, and what a
 * fixed design would have needed.
 */
import { terminalText } from '../io/terminal-text.js';
import type { SequentialRecord } from '../summary/confidence-sequence.js';
import type { Summary } from '../summary/summary.js';
import { costOf, totalText, type Prices } from './cost.js';

/**
 * ", $0.1234" (", at least $0.1234" when the cost may be incomplete: requests cut off in flight,
 * replies without usage) at run.json's prices, or nothing without both. What was paid, as the
 * cost table's total (cost.ts): cached replies are not in these sums.
 */
function paidText(summary: Summary, prices: unknown): string {
  const p = (typeof prices === 'object' && prices !== null ? prices : {}) as Partial<Prices>;
  const total = totalText(costOf(summary, {}, p));
  return total === null ? '' : `, ${total}`;
}

/**
 * The note a report gives a run with a stopping rule: why it stopped where it did (or that it
 * ran to `-n`), with the rule's line and the cost at the run's prices.
 */
export function sequentialNote(q: SequentialRecord, status: unknown, summary: Summary, prices: unknown): string {
  const cost = paidText(summary, prices);
  const stop =
    status === 'precision'
      ? 'This run stopped when its interval reached --precision, before its last task'
      : status === 'decided'
        ? `This run stopped on a verdict against ${q.against}, before its last task`
        : null;
  const why = stop === null ? '' : `${stop}: ${coveredText(q, summary)} `;
  const line = sequentialText(q, cost);
  return `${why}${line.charAt(0).toUpperCase()}${line.slice(1)}.`;
}

/**
 * What a stopped run's figures cover: the tasks the rule used, and the replies that landed
 * after the stop, kept and paid for but not summarised.
 */
function coveredText(q: SequentialRecord, summary: Summary): string {
  const tasks =
    q.last_index === null ? 'the tasks the rule used' : `tasks 0 to ${q.last_index}, the ones the rule used`;
  const late = summary.counts.after_stop ?? 0;
  const apart =
    late > 0
      ? `; ${late.toLocaleString('en-US')} repl${late === 1 ? 'y' : 'ies'} that landed after the stop ${late === 1 ? 'is' : 'are'} kept in results.jsonl and counted in tokens and cost, not in the summary`
      : '';
  return `the figures cover ${tasks}${apart}.`;
}

/**
 * A sequential record in words, with `cost` (", $1.83" or nothing) beside the tasks:
 * "anytime-valid 95% interval of the difference (this run minus RUN): +0.210 [0.104, 0.316];
 * better: decided after 212 tasks, $1.83; a fixed design planned to detect a 0.05 difference
 * with 80% power needed 1,325".
 */
export function sequentialText(q: SequentialRecord, cost: string): string {
  const f = (v: number): string => v.toFixed(3);
  const tasks = `${q.tasks.toLocaleString('en-US')} task${q.tasks === 1 ? '' : 's'}`;
  const fixedN = q.fixed_design_tasks?.toLocaleString('en-US');
  if (q.rule === 'decided') {
    const signed = (v: number): string => (v > 0 ? `+${f(v)}` : f(v));
    const mean = q.mean === null ? '-' : signed(q.mean);
    const verdict = q.verdict ?? 'undecided';
    const how = q.reached ? `${verdict}: decided after ${tasks}${cost}` : `undecided after ${tasks}${cost}`;
    const margin = q.margin ? `, margin ±${q.margin}` : '';
    const fixed =
      fixedN === undefined
        ? ''
        : `; a fixed design planned to detect a ${q.fixed_design_difference ?? 0.05} difference with 80% power needed ${fixedN}`;
    return `anytime-valid 95% interval of the difference (this run minus ${terminalText(q.against ?? 'the baseline')}${margin}): ${mean} [${f(q.low)}, ${f(q.high)}]; ${how}${fixed}`;
  }
  const how = q.reached
    ? `reached --precision ${q.width} after ${tasks}${cost}`
    : `${tasks} in order${cost}; --precision ${q.width} not reached`;
  const mean = q.mean === null ? '-' : f(q.mean);
  const fixed = fixedN === undefined ? '' : `; a fixed-n 95% interval of ±${q.width} at this spread needs ${fixedN}`;
  return `anytime-valid 95% interval of the mean reward: ${mean} [${f(q.low)}, ${f(q.high)}] (±${f(q.half_width)}), ${how}${fixed}`;
}
