/**
 * One CSV guard for every CSV bas writes: text a spreadsheet would run as a formula gets a
 * leading `'` in the leaderboard's, the sweep's and gen's CSV alike, while plain numbers stay
 * numbers.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/report/csv.js';
import { bas } from '../support/cli.js';
import { writeRun } from './make-run.js';

const HOSTILE = "-1+cmd|' /C calc'!A0";

describe('the CSV guard', () => {
  it('bas leaderboard --csv writes a model named like a formula with a leading quote, never raw', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bas-csv-'));
    writeRun(join(root, 'a'), { n: 6, model: HOSTILE, choose: () => 'oracle' });
    writeRun(join(root, 'b'), { n: 6, model: '=HYPERLINK("x")', choose: () => 'raw-sums' });
    const r = await bas(['leaderboard', root, '--csv']);
    expect(r.code, r.stderr).toBe(0);
    const cells = r.stdout.split('\n').flatMap((line) => line.split(','));
    expect(cells.some((c) => c.startsWith('-1+cmd'))).toBe(false);
    expect(r.stdout).toContain(`'${HOSTILE}`);
    expect(r.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it('guards every formula start and leaves plain numbers as numbers', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvField(`${start}x`).replace(/^"/, '')).toMatch(/^'/);
    expect(csvField('-12.50')).toBe('-12.50');
    expect(csvField('+3')).toBe('+3');
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField(null)).toBe('');
  });
});
