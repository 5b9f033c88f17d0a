/**
 * Ledgers for people: a table of one task with its faults and corrected BAS, and CSV rows for
 * a spreadsheet.
 */
import Table from 'cli-table3';
import { formatCents } from '../task/money.js';
import { BAS_LABELS, type Task } from '../task/types.js';

/** A readable view of one task: header, rows with their key faults, corrected BAS. */
export function renderTaskTable(task: Task): string {
  const { ledger, key, config } = task;
  const head = [
    `Task ${task.index} (seed ${config.seed}, ${config.num_transactions} rows, fault rate ${config.fault_rate})`,
    `${ledger.business.name}, ABN ${ledger.business.abn}; quarter ${ledger.period.start} to ${ledger.period.end}`,
  ];
  // Compact: one line per row, no separators, so a 60-row ledger fits a screen.
  const table = new Table({
    head: ['id', 'date', 'type', 'counterparty', 'category', 'amount', 'gst', 'invoice', 'abn', 'faults'],
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'left', 'left', 'left', 'left', 'right', 'right', 'left', 'left', 'left'],
  });
  for (const r of ledger.rows) {
    table.push([r.id, r.date, r.type, r.counterparty, r.category, formatCents(r.amount), formatCents(r.gst), r.invoice, r.abn, (key.faults[r.id] ?? []).join(' ')]);
  }
  const bas = BAS_LABELS.map((l) => `${l} ${formatCents(key.bas[l])}`).join('   ');
  const faultRows = Object.keys(key.faults).length;
  return `${head.join('\n')}\n${table.toString()}\nCorrected BAS: ${bas}\nFaulty rows: ${faultRows} of ${ledger.rows.length}\n`;
}

/** Quotes a CSV field when it needs it (RFC 4180). */
function csvField(value: string | number): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const CSV_HEADER = 'task,id,date,type,counterparty,description,category,amount,gst,invoice,abn,faults\n';

/** The rows of one task as CSV lines, the key's fault codes joined by spaces in the last column. */
export function taskCsvRows(task: Task): string {
  let out = '';
  for (const r of task.ledger.rows) {
    out += [task.index, r.id, r.date, r.type, r.counterparty, r.description, r.category, formatCents(r.amount), formatCents(r.gst), r.invoice, r.abn, (task.key.faults[r.id] ?? []).join(' ')]
      .map(csvField)
      .join(',');
    out += '\n';
  }
  return out;
}
