/**
 * What `bas eval` prints above and below the summary tables: the run header (model, endpoint,
 * task configuration, folder), how long it took and how fast it went, how the requests in
 * flight were paced, and the cost when prices are known. `bas report` shows the same facts
 * from the saved run.
 */
import { terminalText } from '../io/terminal-text.js';
import type { PaceRecord } from '../endpoint/pace.js';
import type { RunInfo } from '../runfile/store.js';
import { costOf, describeTask, unscoredLine } from './run-report.js';
import type { Summary } from '../summary/summary.js';
import { plainTable } from './tables.js';

/** Where the requests went, without credentials or path: a host, or the built-in policy. */
function endpointLabel(baseURL: string | null): string {
  if (baseURL === null) return 'built-in policy (no endpoint)';
  try {
    return new URL(baseURL).host;
  } catch {
    return 'unknown endpoint';
  }
}

export interface EvalHeader {
  dir: string;
  info: RunInfo;
  /** Seconds this process ran rollouts. */
  elapsedS: number;
  /** Rollouts this process set out to run (fewer than the run's on a resume). */
  ranHere: number;
  pace: PaceRecord;
}

function seconds(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s - 60 * m)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The header lines, ending with a blank line. */
export function renderEvalHeader(h: EvalHeader): string {
  const { info, pace } = h;
  const rate = h.elapsedS > 0 ? h.ranHere / h.elapsedS : 0;
  const paced = !pace.adaptive
    ? `${pace.max} in flight (fixed: --no-adapt)`
    : pace.lowest < pace.max
      ? `up to ${pace.max} in flight, lowered to ${pace.lowest} by rate limits (${pace.final} at the end)`
      : `up to ${pace.max} in flight`;
  return [
    // The model and folder may come from a hand-edited run.json (--resume): shown terminal-safe.
    `model:    ${terminalText(info.model)} · ${endpointLabel(info.base_url)}`,
    `tasks:    ${describeTask(info.task)} · ${info.n} tasks × ${info.rollouts} rollout${info.rollouts === 1 ? '' : 's'}`,
    `run:      ${terminalText(h.dir)}`,
    `time:     ${seconds(h.elapsedS)} for ${h.ranHere} rollouts (${rate.toFixed(rate >= 10 ? 1 : 2)} rollouts/s) · ${paced}`,
    '',
  ].join('\n');
}

/** The cost table when both prices are known, else nothing. */
export function renderEvalCost(s: Summary, prices: { in: number | null; out: number | null }): string {
  const c = costOf(s, {}, prices);
  if (c.total_usd === null) return '';
  const t = plainTable(['cost', 'USD']);
  t.push([`input at $${c.price_in_per_million}/M tokens`, `$${c.input_usd!.toFixed(4)}`]);
  t.push([`output at $${c.price_out_per_million}/M tokens`, `$${c.output_usd!.toFixed(4)}`]);
  t.push(['total', `$${c.total_usd.toFixed(4)}`]);
  const lost = unscoredLine(s, c, (v) => `$${(v ?? 0).toFixed(4)}`);
  if (lost) t.push(lost);
  return `${t.toString()}\n`;
}
