/**
 * A rollout's row of the list is built in three places, from what each has at hand: from its
 * record (report/list-rows.ts, a comparison's page), from the detail a page holds
 * (display/list.ts `listRowOf`: a report page, a bundle, one rollout the API answered), and from
 * the rollout index's few facts (runfile/rollout-index.ts, the viewer's list and diff). The same
 * rollout must give the same row whichever built it, field for field and rewards to the bit:
 * checked here over the outcomes a row tells apart (errored, unparseable, BAS right and wrong,
 * faults missed and wrongly flagged, consistency known either way).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRowOf, type ListRow } from '../../src/display/list.js';
import { rolloutDetail, type RolloutDetail } from '../../src/display/drill.js';
import { drillDataOf } from '../../src/report/html/drilldown.js';
import { readListRows } from '../../src/report/list-rows.js';
import { readRunInfo } from '../../src/runfile/read.js';
import { resultsPath } from '../../src/runfile/files.js';
import { RolloutIndex } from '../../src/runfile/rollout-index.js';
import { runBounds } from '../../src/runfile/winners.js';
import { SMALL_CONFIG, writeRun, type Chooser } from './make-run.js';
import { tempDir } from '../support/cli.js';

/** Every outcome a row tells apart, one task after another. */
const OUTCOMES: Array<ReturnType<Chooser>> = [
  'oracle',
  'raw-sums',
  'blanket',
  'silent',
  'slips',
  { error: 'timeout' },
  { reply: 'I cannot reconcile this ledger.' },
  { reply: 'G1: 100\n1A: 10\n1B: 0\nnet: 10\nFAULTS:\nT01: duplicate_invoice' },
];

const fields = ({ why: _, ...row }: ListRow): ListRow => row;

describe('the row of a rollout in the list', () => {
  it('is the same from its record, from the detail a page holds, and from the rollout index', async () => {
    const dir = join(tempDir('bas-list-rows-'), 'run');
    const records = writeRun(dir, {
      n: OUTCOMES.length * 3,
      rollouts: 2,
      model: 'm',
      choose: (i, r) => OUTCOMES[(i + r) % OUTCOMES.length]!,
    });
    const run = await readRunInfo(join(dir, 'run.json'));
    const fromRecords = await readListRows(resultsPath(dir), run);
    const fromDetails = records.map((record) => {
      const drill = drillDataOf({ run, task: SMALL_CONFIG, dir, summary: { counts: { rollouts: records.length } } }, [
        { record, reasons: [] },
      ]);
      // The viewer's detail of one rollout carries its consistency from the record (view/api.ts).
      const detail = {
        ...rolloutDetail(drill, drill.rollouts[0]!),
        consistency: (record.detail?.consistency ?? null) as RolloutDetail['consistency'],
      };
      return fields(listRowOf(detail));
    });
    const index = new RolloutIndex(dir, runBounds(run));
    await index.refresh();
    const fromIndex = [...index.select({})].map((s) => index.row(s));

    // Every kind of row is there, so the comparison below covers each.
    const kinds = (rows: ListRow[]) =>
      new Set(
        rows.map((r) => (r.errored ? 'error' : r.unparseable ? 'unparseable' : r.bas_correct ? 'right' : 'wrong')),
      );
    expect(kinds(fromRecords)).toEqual(new Set(['error', 'unparseable', 'right', 'wrong']));
    expect(fromRecords.some((r) => r.missed.length > 0) && fromRecords.some((r) => r.wrong.length > 0)).toBe(true);
    expect(new Set(fromRecords.map((r) => r.consistent))).toEqual(new Set([true, false, null]));
    // Some reward a 32-bit float, or six decimals, would not give back as it is.
    const exact = (x: number) => Math.fround(x) === x && Math.round(x * 1e6) / 1e6 === x;
    expect(fromRecords.some((r) => r.reward !== null && !exact(r.reward))).toBe(true);

    // Field for field, rewards to the bit, `unparseable` included (the viewer's API filters on it,
    // and its diff pairs the index's rows).
    expect(fromRecords).toStrictEqual(fromDetails);
    expect(fromIndex).toStrictEqual(fromRecords);
  });
});
