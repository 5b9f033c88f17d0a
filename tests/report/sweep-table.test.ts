/**
 * The sweep's text table: every number in a column has the same decimals, so a column reads
 * down without a ragged edge (a fault rate of 0.1 beside 0.25 is shown 0.10).
 */
import { describe, expect, it } from 'vitest';
import {
  renderSweep,
  renderSweepCsv,
  sweepSettingsLines,
  type SweepPoint,
  type SweepResult,
} from '../../src/report/sweep.js';
import type { Estimate } from '../../src/summary/stats.js';
import { textWidth } from '../../src/report/fit-table.js';
import { provenanceOf } from '../../src/report/provenance.js';

const est = (mean: number | null, ci: [number, number] | null): Estimate => ({
  n: 20,
  mean,
  stderr: null,
  ci95: ci,
  method: mean === null ? null : 'wilson',
});

function point(num_transactions: number, fault_rate: number | null, reward: Estimate): SweepPoint {
  return {
    model: 'm',
    num_transactions,
    fault_rate,
    reasoning_effort: null,
    max_tokens: null,
    dir: `rows-${num_transactions}`,
    status: 'complete',
    cut_off: false,
    tasks: 20,
    n: 20,
    completed: 20,
    errored: 0,
    measures: {
      reward,
      bas_correct: est(0.5, [0.25, 0.75]),
      fault_audit: est(1, [0.839, 1]),
      bas_consistent: est(0.25, [0.1, 0.5]),
    },
    tokens_total: 1000 * num_transactions,
    cost: {
      price_in_per_million: 1,
      price_out_per_million: 10,
      input_usd: 0.001,
      output_usd: 0.002,
      total_usd: 0.003,
      lower_bound: num_transactions > 16,
      incomplete: num_transactions > 16 ? '2 requests in flight at a stop' : null,
      unscored_usd: 0,
      in_flight_requests: num_transactions > 16 ? 2 : 0,
      in_flight_up_to_usd: null,
      unreported_requests: 0,
      unreported_up_to_usd: 0,
    },
    notes: [],
    provenance: provenanceOf(null, 'm', { num_transactions, fault_rate: fault_rate ?? 0.25, seed: 1 }),
  };
}

/** The cells of the table's body, row by row (each table row spans two text lines). */
function columns(text: string): string[][] {
  const lines = text.split('\n').filter((l) => l.startsWith('│'));
  const cells = lines.slice(2).map((l) =>
    l
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim()),
  );
  return cells[0]!.map((_, i) => cells.map((row) => row[i]!));
}

const decimals = (s: string): number => s.split('.')[1]?.length ?? 0;

describe('renderSweep', () => {
  const result: SweepResult = {
    dir: 'sweep',
    models: ['m'],
    model: 'm',
    axis: 'num_transactions',
    points: [
      point(12, 0.1, est(1, [0.839, 1])),
      point(12, 0.25, est(0.5, [0.2, 0.8])),
      point(24, 0.125, est(null, null)),
      point(24, 0, est(0.75, null)),
    ],
  };
  const text = renderSweep(result);

  it('writes every number of a column with the same decimals', () => {
    for (const column of columns(text)) {
      const numbers = column.flatMap((c) => c.split(/[–\s]+/)).filter((c) => /^\d+(\.\d+)?$/.test(c));
      expect(new Set(numbers.map(decimals)).size, `column ${column.join(' | ')}`).toBeLessThanOrEqual(1);
    }
  });

  it('gives fault rates the fewest decimals that show each exactly', () => {
    const rates = columns(text)[1]!.filter((c) => c !== '');
    expect(rates).toEqual(['0.100', '0.250', '0.125', '0.000']);
    const two = renderSweep({ ...result, points: result.points.slice(0, 2) });
    expect(columns(two)[1]!.filter((c) => c !== '')).toEqual(['0.10', '0.25']);
  });

  it('shows means and interval bounds to three decimals, each interval on two lines where one would not fit', () => {
    expect(text).toMatch(/│ +1\.000 │/);
    // Rows and fault rate beside four measures: 84 columns with each interval on one line.
    expect(text).toMatch(/│ +0\.839– │/);
    expect(text).toMatch(/│ +0\.750 │/);
    expect(textWidth(text)).toBeLessThanOrEqual(80);
    const narrow = renderSweep({ ...result, points: result.points.map((p) => ({ ...p, fault_rate: null })) });
    expect(narrow).toMatch(/│ 0\.839–1\.000 │/);
  });

  // Issue 36: a budget sweep's table was 82 columns wide ("max_tokens" unbroken).
  it('a budget sweep fits 80 columns, with fault rates too', () => {
    const budget = (fault_rate: number | null): SweepResult => ({
      ...result,
      axis: 'max_tokens',
      points: [700, 4000].map((max_tokens) => ({ ...point(24, fault_rate, est(0.5, [0.25, 0.75])), max_tokens })),
    });
    const plain = renderSweep(budget(null));
    expect(textWidth(plain)).toBeLessThanOrEqual(80);
    expect(plain).toMatch(/│ +max_ │/);
    expect(plain).toMatch(/│ 0\.250–0\.750 │/);
    expect(textWidth(renderSweep(budget(0.25)))).toBeLessThanOrEqual(80);
  });
});

describe("a budget sweep's settings lines", () => {
  it('say the axis once in the sampling line, and leave an extra body as it was sent', () => {
    // A request field whose text looks like the sampling line's own parts.
    const extra = { note: 'a · max tokens 9 · b' };
    const at = (max_tokens: number): SweepPoint => {
      const p = point(24, null, est(0.5, [0.4, 0.6]));
      return {
        ...p,
        max_tokens,
        dir: `max-tokens-${max_tokens}`,
        provenance: { ...p.provenance, sampling: { temperature: 0, max_tokens, reasoning_effort: null, extra } },
      };
    };
    const r: SweepResult = {
      dir: 'sweep',
      models: ['m'],
      model: 'm',
      axis: 'max_tokens',
      points: [at(1000), at(4000)],
    };
    const sampling = Object.fromEntries(sweepSettingsLines(r)).sampling!;
    expect(sampling).toBe(
      `temperature 0 · max tokens: the axis · reasoning effort not sent · extra body ${JSON.stringify(extra)}`,
    );
    expect(renderSweep(r)).toMatch(/^sweep in sweep: means over 95% intervals against max_tokens$/m);
    expect(renderSweep(r)).toContain('max_tokens');
  });
});

describe('what each point spent (issue 36: sweep text, JSON and CSV carried no tokens or cost)', () => {
  const r: SweepResult = {
    dir: 'sw',
    models: ['m'],
    model: 'm',
    axis: 'num_transactions',
    points: [point(8, null, est(0.5, [0.3, 0.7])), point(32, null, est(0.4, [0.2, 0.6]))],
  };

  it('text: a line per model, "at least" where a point may be incomplete', () => {
    expect(renderSweep(r).replace(/\s+/g, ' ')).toContain(
      'spent: 8 rows 8,000 tokens, $0.0030; 32 rows at least 32,000 tokens, at least $0.0030',
    );
  });

  it('CSV: tokens_total, cost_usd and cost_is_lower_bound', () => {
    const [head, ...rows] = renderSweepCsv(r).trim().split('\n');
    const cols = head!.split(',');
    const at = (row: string, name: string) => row.split(',')[cols.indexOf(name)];
    expect(rows.map((x) => [at(x, 'tokens_total'), at(x, 'cost_usd'), at(x, 'cost_is_lower_bound')])).toEqual([
      ['8000', '0.003', 'no'],
      ['32000', '0.003', 'yes'],
    ]);
  });
});
