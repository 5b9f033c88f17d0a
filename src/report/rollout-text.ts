/**
 * One rollout in a terminal (`bas report DIR --rollout I:R`): its scores, the BAS figures
 * expected and given, the ledger rows that hold a fault or a flag, marked found, missed or
 * wrongly flagged, and the reply. Any rollout of any run can be read this way, whatever its
 * HTML page embeds. Built from the same page data as the HTML drill-down (drilldown.ts).
 */
import { terminalText } from '../io/terminal-text.js';
import type { DrillData } from './html/drilldown.js';
import { fitTable } from './fit-table.js';
import { labelledLines } from './run-report.js';
import { fmt } from './tables.js';

type Rollout = DrillData['rollouts'][number];

function outcome(r: Rollout): string {
  const [, , , , bas, , errType, , , , , unparseable] = r;
  if (errType !== null) return `errored (${errType})`;
  if (unparseable !== null) return 'unparseable reply';
  return bas === 1 ? 'BAS right' : 'BAS wrong';
}

/** The rows with a fault in the key or a claim in the reply, each marked. */
function faultRows(d: DrillData, r: Rollout): { table: string | null; extra: string[] } {
  const task = d.tasks[r[0]];
  if (!task) return { table: null, extra: [] };
  const given = r[10];
  const judged = given !== null || r[11] !== null;
  const rows: string[][] = [];
  const seen = new Set<string>();
  for (const row of task.rows) {
    const id = row[0];
    seen.add(id);
    const expected = (Object.hasOwn(task.faults, id) ? task.faults[id]! : []).map((i) => d.codes[i]!);
    const claimed = given && Object.hasOwn(given, id) ? given[id]! : [];
    if (expected.length === 0 && claimed.length === 0) continue;
    const lines = judged
      ? [
          ...expected.map((c) => (claimed.includes(c) ? `found  ${c}` : `missed ${c}`)),
          ...claimed.filter((c) => !expected.includes(c)).map((c) => `wrong  ${c}`),
        ]
      : expected.map((c) => `key    ${c}`);
    rows.push([id, row[1], row[6], row[7], lines.join('\n')]);
  }
  const extra = given ? Object.keys(given).filter((id) => !seen.has(id)) : [];
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
