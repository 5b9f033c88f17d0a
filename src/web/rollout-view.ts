/**
 * One rollout opened: its scores and outcome, what the record says of the request, the BAS
 * figures expected and given, the whole ledger with every row marked (display/marks.ts), and
 * the reply. The same panel in a run's page, in `bas view`, side by side in a diff, in a bundle.
 */
import type { RolloutDetail } from '../display/drill.js';
import { fmt, int } from '../display/format.js';
import { markRollout, outcomeText, type Chip } from '../display/marks.js';
import { pairText } from '../display/route.js';
import { el, pairsTable } from './dom.js';

const CHIP_TEXT: Record<Chip['kind'], [string, string]> = {
  found: ['✓ ', 'fault found'],
  missed: ['missed: ', 'fault in the key, not flagged'],
  wrong: ['✗ ', 'flagged, but not a fault of this row'],
  key: ['', 'a fault in the key'],
};
const TEXT_COLS = new Set(['date', 'type', 'counterparty', 'description', 'category', 'invoice', 'abn']);

function chip(c: Chip): HTMLElement {
  const [prefix, title] = CHIP_TEXT[c.kind];
  return el('span', { cls: `chip ${c.kind === 'key' ? 'expected' : c.kind}`, title, text: prefix + c.code });
}

function usageText(u: Record<string, number> | null | undefined): string {
  if (!u) return 'not reported';
  const parts = [
    `prompt ${int(u.prompt_tokens)}`,
    `completion ${int(u.completion_tokens)}`,
    `total ${int(u.total_tokens)}`,
  ];
  if (u.reasoning_tokens) parts.push(`reasoning ${int(u.reasoning_tokens)}`);
  if (u.cached_tokens) parts.push(`cached ${int(u.cached_tokens)}`);
  return parts.join(' · ');
}

/** What the record says beyond the scores (the viewer's answers carry it; a page's data does not). */
function facts(d: RolloutDetail): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const c = d.consistency;
  if (c)
    out.push([
      'consistency',
      c.bas_consistent === 1
        ? 'the stated BAS is the one its own faults imply'
        : `the stated BAS is not the one its own faults imply${c.bas_error ? ` (${c.bas_error})` : ''}`,
    ]);
  if (d.error_type !== null) out.push(['error', `${d.error_type}: ${d.error_message ?? ''}`]);
  if (d.unparseable !== null) out.push(['unparsed', d.unparseable]);
  if (d.attempts !== undefined) out.push(['attempts', d.attempts === null ? 'unknown' : String(d.attempts)]);
  if (d.latency_ms !== undefined) {
    const ttft = d.ttft_ms !== null && d.ttft_ms !== undefined ? ` · first token ${int(d.ttft_ms)} ms` : '';
    out.push(['latency', (d.latency_ms === null ? 'unknown' : `${int(d.latency_ms)} ms`) + ttft]);
  }
  if (d.finish_reason !== undefined) out.push(['finish', d.finish_reason ?? 'unknown']);
  if (d.usage !== undefined) out.push(['usage', usageText(d.usage)]);
  if (d.task) out.push(['business', d.task.business], ['quarter', `${d.task.period[0]} to ${d.task.period[1]}`]);
  return out;
}

function figureTable(d: RolloutDetail, task: NonNullable<RolloutDetail['task']>): HTMLElement {
  const t = el('table', { cls: 'figures' }, [
    el(
      'tr',
      null,
      ['label', 'expected', 'given', ''].map((h) => el('th', { text: h })),
    ),
  ]);
  for (const [label, expected] of Object.entries(task.expected_bas)) {
    const g = d.figures?.[label] ?? null;
    const verdict = g === null ? ['text', ''] : g.right ? ['right text', '✓ right'] : ['wrongfig text', '✗ wrong'];
    t.append(
      el('tr', null, [
        el('td', { text: label }),
        el('td', { text: expected }),
        el('td', { text: g ? g.given : '–' }),
        el('td', { cls: verdict[0]!, text: verdict[1]! }),
      ]),
    );
  }
  return t;
}

function ledgerTable(d: RolloutDetail, task: NonNullable<RolloutDetail['task']>): HTMLElement[] {
  const marked = markRollout(d)!;
  const fields = Object.keys(task.rows[0] ?? {});
  const t = el('table', { cls: 'ledger' }, [
    el(
      'tr',
      null,
      [...fields, 'audit'].map((h) => el('th', { cls: TEXT_COLS.has(h) || h === 'audit' ? 'text' : null, text: h })),
    ),
  ]);
  task.rows.forEach((row, i) => {
    const m = marked.rows[i]!;
    const cells = fields.map((f) =>
      el('td', { cls: TEXT_COLS.has(f) ? 'text' : null, text: row[f as keyof typeof row] }),
    );
    const audit = el('td', { cls: 'text wrap mark' }, m.chips.map(chip));
    t.append(el('tr', { cls: `row-${m.mark} ${m.mark}`, 'data-row': m.id, 'data-mark': m.mark }, [...cells, audit]));
  });
  const out: HTMLElement[] = [el('div', { cls: 'scroll' }, [t])];
  if (marked.extra.length)
    out.push(el('p', { cls: 'note', text: `Flags on ids that are not in the ledger: ${marked.extra.join(', ')}` }));
  return out;
}

function legend(): HTMLElement {
  return el('p', { cls: 'small legend' }, [
    el('span', { cls: 'chip found', text: '✓ found' }),
    el('span', { cls: 'chip missed', text: 'missed' }),
    el('span', { cls: 'chip wrong', text: '✗ wrongly flagged' }),
  ]);
}

function replyBlock(d: RolloutDetail): HTMLElement[] {
  const max = d.max_reply_chars ?? Infinity;
  const cut = d.reply !== null && d.reply.length >= max;
  const head =
    d.reply === null
      ? 'Reply'
      : `Reply (${int(d.reply.length)} characters${cut ? ', cut; results.jsonl has it all' : ''})`;
  return [el('h3', { text: head }), el('pre', { cls: 'reply', text: d.reply ?? '(none)' })];
}

/** The panel of rollout `d`; `model` names the run's model when known. */
export function rolloutPanel(d: RolloutDetail, attrs: { id?: string; title?: string } = {}): HTMLElement {
  const title = attrs.title ?? `Task ${d.index}, rollout ${d.rollout}${d.model ? ` · ${d.model}` : ''}`;
  const scores = `reward ${fmt(d.reward)} · bas_correct ${fmt(d.bas_correct)} · fault_audit ${fmt(d.fault_audit)} · ${outcomeText(d)}`;
  const sec = el('section', { id: attrs.id ?? null, cls: 'rollout', 'data-pair': pairText(d) }, [
    el('h2', { text: title }),
    el('p', { cls: 'meta scores', text: scores }),
    d.why.length ? el('p', { cls: 'small', text: `embedded as: ${d.why.join(', ')}` }) : null,
    pairsTable(facts(d), { cls: 'prov facts' }),
  ]);
  if (d.task) {
    sec.append(el('h3', { text: 'BAS figures' }), figureTable(d, d.task), el('h3', { text: 'Ledger' }), legend());
    sec.append(...ledgerTable(d, d.task));
  } else
    sec.append(
      el('p', { cls: 'note', text: `The ledger is not shown: ${d.no_task ?? 'the task cannot be rebuilt'}.` }),
    );
  sec.append(...replyBlock(d));
  return sec;
}
