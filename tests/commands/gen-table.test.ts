import { describe, expect, it } from 'vitest';
import { renderTaskTable, TABLE_WIDTH } from '../../src/report/ledger-view.js';
import { generateTask } from '../../src/task/generate.js';
import { bas } from '../support/cli.js';

describe('gen --format table', () => {
  it.each([
    [4, 0],
    [24, 0.25],
    [60, 0.35],
    [400, 1],
    [10_000, 0.5],
  ])('fits %i-row ledgers (fault rate %f) in 80 columns', (n, rate) => {
    for (let i = 0; i < (n > 1000 ? 1 : 20); i++) {
      const task = generateTask({ num_transactions: n, fault_rate: rate, seed: 99 }, i, { prompt: false });
      const text = renderTaskTable(task);
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(TABLE_WIDTH);
    }
  });

  it('shows every row with its key faults as letters, the row each duplicate repeats, and the BAS', () => {
    const task = generateTask({ num_transactions: 60, fault_rate: 0.5, seed: 1 }, 3, { prompt: false });
    const lines = renderTaskTable(task).split('\n');
    const letter: Record<string, string> = {
      duplicate_invoice: 'D',
      gst_on_gst_free: 'F',
      gst_miscalculated: 'M',
      missing_abn_over_threshold: 'A',
      outside_period: 'O',
    };
    for (const r of task.ledger.rows) {
      const line = lines.find((l) => l.startsWith(`${r.id} `))!;
      expect(line).toContain(r.date);
      const expected = (task.key.faults[r.id] ?? []).map((c) => letter[c]).join('');
      expect(line.endsWith(expected === '' ? (r.abn === '' ? line.slice(-1) : 'yes') : ` ${expected}`), line).toBe(
        true,
      );
    }
    const dup = Object.keys(task.key.faults).find((id) => task.key.faults[id]!.includes('duplicate_invoice'))!;
    const row = task.ledger.rows.find((r) => r.id === dup)!;
    const original = task.ledger.rows.find((r) => r.invoice === row.invoice)!;
    expect(lines.join('\n')).toContain(`${dup} repeats ${original.id}`);
    expect(lines.join('\n')).toMatch(/Corrected BAS: G1 -?\d+\.\d\d/);
    expect(lines.join('\n')).toContain(task.ledger.business.trade);
  });

  it('the command prints the same view', async () => {
    const r = await bas(['gen', '-n', '3', '--format', 'table', '--num-transactions', '60']);
    expect(r.code).toBe(0);
    for (const line of r.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(TABLE_WIDTH);
  });
});
