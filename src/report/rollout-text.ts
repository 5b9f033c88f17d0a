/**
 * One rollout in a terminal (`bas report DIR --rollout I:R`): its scores, the BAS figures
 * expected and given, the ledger rows that hold a fault or a flag, marked found, missed or
 * wrongly flagged, and the reply. Any rollout of any run can be read this way, whatever its
 * HTML page embeds. Built from the same page data as the HTML drill-down (drilldown.ts), its
 * rows marked by the same code as every page's (display/marks.ts).
 */
import { terminalText } from '../io/terminal-text.js';
import type { DrillData } from '../display/drill.js';
import { markLedger, outcomeText, type Chip } from '../display/marks.js';
import { fitTable } from './fit-table.js';
import { labelledLines } from './run-report.js';
import { fmt } from './tables.js';

type Rollout = DrillData['rollouts'][number];

function outcome(r: Rollout): string {
  const [, , , , bas, , errType, , , , , unparseable] = r;
  return outcomeText({ error_type: errType, unparseable, bas_correct: bas });
}

const CHIP_LINE: Record<Chip['kind'], string> = {
  found: 'found  ',
  missed: 'missed ',
  wrong: 'wrong  ',
  key: 'key    ',
};

/** The rows with a fault in the key or a claim in the reply, each marked (display/marks.ts). */
function faultRows(d: DrillData, r: Rollout): { table: string | null; extra: string[] } {
  const task = d.tasks[r[0]];
  if (!task) return { table: null, extra: [] };
  const expected: Record<string, string[]> = {};
  for (const [id, codes] of Object.entries(task.faults)) expected[id] = codes.map((i) => d.codes[i]!);
  const marked = markLedger(
    task.rows.map((row) => row[0]),
    expected,
    r[10],
    r[10] !== null || r[11] !== null,
  );
  const rows = marked.rows.flatMap((m, i) => {
    if (m.chips.length === 0) return [];
    const row = task.rows[i]!;
    return [[m.id, row[1], row[6], row[7], m.chips.map((c) => CHIP_LINE[c.kind] + c.code).join('\n')]];
  });
  const extra = marked.extra;
  if (rows.length === 0) return { table: '(no row has a fault in the key or a flag in the reply)', extra };
  return {
    table: fitTable(['row', 'date', 'amount', 'gst', 'audit (found, missed, wrongly flagged)'], rows, {
      align: ['left', 'left', 'right', 'right', 'left'],
      separators: true,
      wrap: [4],
    }),
    extra,
  };
}

/** The text of one rollout of the page data `d` (its position `i` in `d.rollouts`). */
export function renderRollout(d: DrillData, i: number, model: string): string {
  const r = d.rollouts[i]!;
  const [pos, index, rollout, reward, bas, audit, errType, errMsg, reply, figures, , unparseable, , noTask] = r;
  const task = pos >= 0 ? d.tasks[pos]! : null;
  const pairs: Array<[string, string]> = [
    ['rollout', `task ${index}, rollout ${rollout} of ${d.dir} (${model})`],
    ['scores', `reward ${fmt(reward)} · bas_correct ${fmt(bas)} · fault_audit ${fmt(audit)} · ${outcome(r)}`],
  ];
  if (task) pairs.push(['business', task.business], ['quarter', `${task.period[0]} to ${task.period[1]}`]);
  if (errType !== null) pairs.push(['error', `${errType}: ${errMsg ?? ''}`]);
  if (unparseable !== null) pairs.push(['unparsed', unparseable]);
  if (!task) pairs.push(['ledger', `not shown: ${noTask ?? 'the task cannot be rebuilt'}`]);
  const out = [labelledLines(pairs).join('\n'), ''];
  if (task) {
    out.push(
      'BAS figures',
      fitTable(
        ['label', 'expected', 'given', ''],
        d.labels.map((l, k) => {
          const g = figures?.[k] ?? null;
          return [l, task.bas[k]!, g ? g[0] : '–', g ? (g[1] ? 'right' : 'wrong') : ''];
        }),
        { align: ['left', 'right', 'right', 'left'], wrap: [2] },
      ),
    );
    const f = faultRows(d, r);
    out.push('rows with a fault in the key or a flag in the reply', f.table!);
    if (f.extra.length) out.push(`flags on ids that are not in the ledger: ${f.extra.join(', ')}`);
  }
  out.push('');
  if (reply === null) out.push('reply: (none)');
  else {
    out.push(`reply (${reply.length.toLocaleString('en-US')} characters):`, reply);
    if (reply.length >= d.maxReplyChars) out.push(`… (cut at ${d.maxReplyChars} characters; results.jsonl has it all)`);
  }
  // Replies, messages and ids come from the model and the run folder: terminal-safe.
  return terminalText(out.join('\n')) + '\n';
}
