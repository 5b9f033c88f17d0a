/**
 * What `bas eval` prints above and below the summary tables: the run header (model, endpoint,
 * task configuration, folder), how long it took (this session, and all of them on a resume)
 * and how fast it went, how the requests in flight were paced (run.json's `pace`), and the
 * cost when prices are known. `bas report` shows the same facts
 * from the saved run.
 */
import { terminalText } from '../io/terminal-text.js';
import type { RunInfo } from '../runfile/store.js';
import { runTime, sessionsOf, type PaceRecord } from '../runfile/sessions.js';
import { describeTask, runTimeText } from './run-report.js';
import { costOf, fromCacheLine, lowerBoundLines, totalText, unscoredLine } from './cost.js';
import { durationText, UNDER_ONE_MS_S } from './provenance.js';
import type { Summary } from '../summary/summary.js';
import type { SequentialRecord } from '../summary/confidence-sequence.js';
import { sequentialText } from './sequential-text.js';
import { fmtInt, plainTable } from './tables.js';

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
  /** Rollouts this process recorded (fewer than the run's on a resume, or when it stopped early). */
  ranHere: number;
}

/**
 * " (588 rollouts/s)", "(1,448 rollouts/s)", "(2.35 rollouts/s)": whole numbers from 100 up,
 * three figures below; nothing when no rollout ran or durationText says "under 1 ms", where
 * the rate would be noise.
 */
function rateText(ran: number, elapsedS: number): string {
  if (ran === 0 || !(elapsedS >= UNDER_ONE_MS_S)) return '';
  const rate = ran / elapsedS;
  const text = rate >= 100 ? fmtInt(rate) : rate.toFixed(rate >= 10 ? 1 : 2);
  return ` (${text} rollouts/s)`;
}

/**
 * The header lines, ending with a blank line. The time line is this session's; a resumed
 * run adds the time over all its sessions, since that is what the run cost.
 */
export function renderEvalHeader(h: EvalHeader): string {
  const { info } = h;
  const pace = info.pace;
  const sessions = sessionsOf(info);
  const inAll = sessions.length > 1 ? runTimeText(runTime(sessions)) : null;
  // A batch run's requests were scheduled by the provider's engine: no pace of bas's to show.
  const batches = (info as { batch?: { batches?: unknown[] } }).batch?.batches?.length ?? 0;
  const paced = batches
    ? `through the provider's batch engine (${batches} batch${batches === 1 ? '' : 'es'})`
    : !pace
      ? ''
      : !pace.adaptive
        ? `${pace.max} in flight (fixed: --no-adapt)`
        : pace.lowest < pace.max
          ? `up to ${pace.max} in flight, lowered to ${pace.lowest} by rate limits (${pace.final} at the end)`
          : `up to ${pace.max} in flight`;
  const limited = rateLimitText(pace);
  return [
    // The model and folder may come from a hand-edited run.json (--resume): shown terminal-safe.
    `model:    ${terminalText(info.model)} · ${endpointLabel(info.base_url)}`,
    `tasks:    ${describeTask(info.task)} · ${info.n} tasks × ${info.rollouts} rollout${info.rollouts === 1 ? '' : 's'}`,
    `run:      ${terminalText(h.dir)}`,
    `time:     ${durationText(h.elapsedS)} for ${h.ranHere} rollout${h.ranHere === 1 ? '' : 's'}${rateText(h.ranHere, h.elapsedS)}${paced ? ` · ${paced}` : ''}`,
    ...(inAll ? [`in all:   ${inAll}`] : []),
    ...(limited ? [`limits:   ${limited}`] : []),
    '',
  ].join('\n');
}

/**
 * "12 requests refused (HTTP 429) · paced at 4.93 requests/s at the end": what the rate limits
 * cost this session, or null when it met none (or ran before bas recorded them).
 */
function rateLimitText(pace: PaceRecord | null | undefined): string | null {
  const refused = pace?.rate_limited ?? 0;
  const rps = pace?.rate_rps ?? null;
  if (refused === 0 && rps === null) return null;
  const refusals = `${fmtInt(refused)} request${refused === 1 ? '' : 's'} refused (HTTP 429)`;
  if (rps === null) return refusals;
  const at = rps >= 100 ? fmtInt(rps) : rps.toFixed(rps >= 10 ? 1 : 2);
  return `${refusals} · paced at ${at} requests/s at the end`;
}

/** The cost table when both prices are known, else nothing. */
export function renderEvalCost(s: Summary, prices: { in: number | null; out: number | null }): string {
  const c = costOf(s, {}, prices);
  const hits = fromCacheLine(s, c, (v) => `$${(v ?? 0).toFixed(4)}`);
  if (c.total_usd === null) return '';
  const t = plainTable(['cost', 'USD']);
  t.push([`input at $${c.price_in_per_million}/M tokens`, `$${c.input_usd!.toFixed(4)}`]);
  t.push([`output at $${c.price_out_per_million}/M tokens`, `$${c.output_usd!.toFixed(4)}`]);
  t.push([c.lower_bound ? 'total, at least' : 'total', `$${c.total_usd.toFixed(4)}`]);
  for (const row of lowerBoundLines(c, (v) => `$${(v ?? 0).toFixed(4)}`)) t.push(row);
  const lost = unscoredLine(s, c, (v) => `$${(v ?? 0).toFixed(4)}`);
  if (lost) t.push(lost);
  if (hits) t.push(hits);
  return `${t.toString()}\n`;
}

/**
 * The line a run with `--precision` or `--until decided` ends with: the anytime-valid
 * interval, the tasks it took and what they cost, and what a fixed design would have needed
 * (for `--precision`, the same width; for a decision, the difference it was planned to detect).
 */
export function renderSequential(
  q: SequentialRecord,
  s: Summary,
  prices: { in: number | null; out: number | null },
): string {
  const c = costOf(s, {}, prices);
  const total = totalText(c);
  const cost = total === null ? '' : `, ${total}`;
  return `${sequentialText(q, cost)}\n`;
}
