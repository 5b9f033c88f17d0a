/**
 * The summary as plain-text tables (cli-table3, no colours, so output is the same on a
 * terminal, in a pipe and in a test).
 */
import Table from 'cli-table3';
import { BAS_LABELS, FAULT_CODES } from '../task/types.js';
import type { Estimate } from './stats.js';
import type { Summary } from './summary.js';

/** A table with our house look: no colour codes. */
export function plainTable(head: string[], align?: Array<'left' | 'right'>, opts: { separators?: boolean } = {}): Table.Table {
  return new Table({
    head,
    // Compact (no line between rows) unless cells span several lines and need separating.
    style: { head: [], border: [], compact: !opts.separators },
    colAligns: align ?? head.map((_, i) => (i === 0 ? 'left' : 'right')),
  });
}

/** A number with `digits` decimals, or an en dash for a missing value. */
export function fmt(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || Number.isNaN(v) ? '–' : v.toFixed(digits);
}

/** "[0.123, 0.456]" or an en dash. */
export function fmtCi(ci: [number, number] | null, digits = 3): string {
  return ci ? `[${fmt(ci[0], digits)}, ${fmt(ci[1], digits)}]` : '–';
}

/** A whole number with thousands separators. */
export function fmtInt(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

function estimateRow(name: string, e: Estimate, digits = 3): string[] {
  return [name, fmt(e.mean, digits), fmt(e.stderr, digits), fmtCi(e.ci95, digits), String(e.n)];
}

/** The summary's tables, each preceded by a heading line. */
export function renderSummary(s: Summary, opts: { title?: string } = {}): string {
  const parts: string[] = [];
  if (opts.title) parts.push(opts.title);

  const counts = plainTable(['rollouts', 'count']);
  counts.push(['tasks', fmtInt(s.counts.tasks)]);
  counts.push(['rollouts', fmtInt(s.counts.rollouts)]);
  counts.push(['completed', fmtInt(s.counts.completed)]);
  counts.push(['errored', fmtInt(s.counts.errored)]);
  for (const [type, n] of Object.entries(s.counts.errors_by_type).sort()) counts.push([`  ${type}`, fmtInt(n)]);
  if (s.counts.replaced) counts.push(['lines superseded by a later retry', fmtInt(s.counts.replaced)]);
  if (s.truncated) counts.push(['cut by the token limit (finish_reason "length")', fmtInt(s.truncated)]);
  parts.push(counts.toString());
  if (s.errors?.length) parts.push(renderErrors(s));

  const scores = plainTable(['score', 'mean', 'stderr', '95% CI', 'n']);
  scores.push(estimateRow('reward', s.reward));
  scores.push(estimateRow('reward (errors as 0)', s.reward_errors_as_zero));
  scores.push(estimateRow('bas_correct', s.rewards.bas_correct));
  scores.push(estimateRow('fault_audit', s.rewards.fault_audit));
  for (const [name, e] of Object.entries(s.metrics)) scores.push(estimateRow(name, e, name === 'num_flagged' ? 2 : 3));
  parts.push(scores.toString());

  const labels = plainTable(['label', 'accuracy', '95% CI', 'n']);
  for (const l of BAS_LABELS) labels.push([l, fmt(s.labels[l].mean), fmtCi(s.labels[l].ci95), String(s.labels[l].n)]);
  parts.push(labels.toString());

  const codes = plainTable(['fault code', 'precision', 'recall', 'tp', 'fp', 'fn']);
  for (const c of FAULT_CODES) {
    const b = s.codes[c];
    codes.push([c, fmt(b.precision), fmt(b.recall), fmtInt(b.tp), fmtInt(b.fp), fmtInt(b.fn)]);
  }
  if (s.unknown_codes) codes.push(['(unknown codes claimed)', '', '', '', fmtInt(s.unknown_codes), '']);
  parts.push(codes.toString());

  if (s.pass_at_k.length) {
    const pk = plainTable(['pass@k (bas_correct)', 'value', 'tasks']);
    for (const r of s.pass_at_k) pk.push([`pass@${r.k}`, fmt(r.value), String(r.tasks)]);
    parts.push(pk.toString());
  }

  const usage = plainTable(['usage', 'value']);
  usage.push(['prompt tokens', fmtInt(s.tokens.prompt)]);
  usage.push(['completion tokens', fmtInt(s.tokens.completion)]);
  usage.push(['total tokens', fmtInt(s.tokens.total)]);
  if (s.tokens.reasoning) usage.push(['  of which reasoning', fmtInt(s.tokens.reasoning)]);
  usage.push(['latency p50 (s)', fmt(s.latency_ms.p50 === null ? null : s.latency_ms.p50 / 1000, 2)]);
  usage.push(['latency p95 (s)', fmt(s.latency_ms.p95 === null ? null : s.latency_ms.p95 / 1000, 2)]);
  parts.push(usage.toString());
  if (s.tokens.ignored) parts.push(`(${fmtInt(s.tokens.ignored)} token counts were negative, fractional or absurd and are left out of the sums)`);

  return parts.join('\n') + '\n';
}

/** Width of an example message in the text summary (JSON keeps the whole of it). */
const EXAMPLE_WIDTH = 68;

/** The commonest error messages per type, as indented lines that fit 80 columns. */
export function renderErrors(s: Summary): string {
  const lines = ['why rollouts errored (commonest messages per type)'];
  for (const d of s.errors) {
    lines.push(`  ${d.type}: ${fmtInt(d.count)}`);
    for (const m of d.messages) {
      const text = m.example.length > EXAMPLE_WIDTH ? `${m.example.slice(0, EXAMPLE_WIDTH - 1)}…` : m.example;
      lines.push(`    ${fmtInt(m.count).padStart(5)}  ${text}`);
    }
    if (d.other) lines.push(`    ${fmtInt(d.other).padStart(5)}  (other messages)`);
  }
  return lines.join('\n');
}
