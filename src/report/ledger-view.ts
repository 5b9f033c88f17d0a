/**
 * Ledgers for people: a table of one task with its faults and corrected BAS, and CSV rows for
 * a spreadsheet.
 */
import { formatCents } from '../task/money.js';
import { BAS_LABELS, type FaultCode, type Task } from '../task/types.js';
import { csvField } from './csv.js';

/** The width a terminal is assumed to have: every line of the table view fits in it. */
export const TABLE_WIDTH = 80;

/** One letter per fault code, so the faults column stays narrow; the legend under the table spells them out. */
const FAULT_LETTER: Record<FaultCode, string> = {
  duplicate_invoice: 'D',
  gst_on_gst_free: 'F',
  gst_miscalculated: 'M',
  missing_abn_over_threshold: 'A',
  outside_period: 'O',
};

const LEGEND = [
  'Faults: D duplicate_invoice, F gst_on_gst_free, M gst_miscalculated,',
  '        A missing_abn_over_threshold, O outside_period. abn: shown or not.',
];

/** Joins `items` with `sep`, starting a new line (indented by `indent`) before one would pass the width. */
function wrap(first: string, items: string[], sep: string, indent: string): string[] {
  const lines: string[] = [];
  let line = first;
  for (const item of items) {
    const next = line === first || line === indent ? `${line}${item}` : `${line}${sep}${item}`;
    if (next.length > TABLE_WIDTH && line !== first && line !== indent) {
      lines.push(line);
      line = `${indent}${item}`;
    } else line = next;
  }
  lines.push(line);
  return lines;
}

/** Cuts `text` to `width` characters, marking the cut. */
function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}~`;
}

/**
 * A readable view of one task within 80 columns: header, one line per row with its key
 * faults as letters, which row each duplicate repeats, and the corrected BAS. Invoice
 * numbers and ABNs are in the csv and jsonl formats; here an ABN is only "yes" or blank.
 */
export function renderTaskTable(task: Task): string {
  const { ledger, key, config } = task;
  const head = [
    `Task ${task.index} (seed ${config.seed}, ${config.num_transactions} rows, fault rate ${config.fault_rate})`,
    cut(`${ledger.business.name}${ledger.business.trade ? ` (${ledger.business.trade})` : ''}`, TABLE_WIDTH),
    `ABN ${ledger.business.abn}; BAS quarter ${ledger.period.start} to ${ledger.period.end}`,
  ];
  const cells = ledger.rows.map((r) => [
    r.id,
    r.date,
    r.type === 'sale' ? 'sale' : 'buy',
    r.counterparty,
    r.category,
    formatCents(r.amount),
    formatCents(r.gst),
    r.abn === '' ? '' : 'yes',
    (key.faults[r.id] ?? []).map((c) => FAULT_LETTER[c]).join(''),
  ]);
  const titles = ['id', 'date', 'type', 'counterparty', 'category', 'amount', 'gst', 'abn', 'faults'];
  const widths = titles.map((t, c) => Math.max(t.length, ...cells.map((row) => row[c]!.length)));
  // The counterparty takes what the other columns leave (at least 8 characters).
  const others = widths.reduce((a, w, c) => (c === 3 ? a : a + w + 1), 0);
  widths[3] = Math.max(8, Math.min(widths[3]!, TABLE_WIDTH - others - 1));
  const right = new Set([5, 6]);
  const line = (row: string[]) =>
    row
      .map((v, c) => (right.has(c) ? v.padStart(widths[c]!) : cut(v, widths[c]!).padEnd(widths[c]!)))
      .join(' ')
      .trimEnd();
  const table = [line(titles), ...cells.map(line)];

  // Which earlier row each duplicate repeats: the invoice column is not shown.
  const firstOf = new Map<string, string>();
  const repeats: string[] = [];
  for (const r of ledger.rows) {
    const first = firstOf.get(r.invoice);
    if (first === undefined) firstOf.set(r.invoice, r.id);
    else repeats.push(`${r.id} repeats ${first}`);
  }
  const bas = BAS_LABELS.map((l) => `${l} ${formatCents(key.bas[l])}`);
  const faultRows = Object.keys(key.faults).length;
  return [
    ...head,
    ...table,
    ...LEGEND,
    ...(repeats.length > 0 ? wrap('Duplicates: ', repeats, ', ', '  ') : []),
    ...wrap('Corrected BAS: ', bas, '   ', '  '),
    `Faulty rows: ${faultRows} of ${ledger.rows.length}`,
    '',
  ].join('\n');
}

export const CSV_HEADER = 'task,id,date,type,counterparty,description,category,amount,gst,invoice,abn,faults\n';

/** The rows of one task as CSV lines, the key's fault codes joined by spaces in the last column. */
export function taskCsvRows(task: Task): string {
  let out = '';
  for (const r of task.ledger.rows) {
    out += [
      task.index,
      r.id,
      r.date,
      r.type,
      r.counterparty,
      r.description,
      r.category,
      formatCents(r.amount),
      formatCents(r.gst),
      r.invoice,
      r.abn,
      (task.key.faults[r.id] ?? []).join(' '),
    ]
      .map(csvField)
      .join(',');
    out += '\n';
  }
  return out;
}
