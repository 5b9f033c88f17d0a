/**
 * A run's rollouts as list rows (display/list.ts): the few fields a list filters on and a diff
 * compares, read in one pass over results.jsonl (the last line of a pair wins, as everywhere).
 * About 150 bytes a rollout held; what a comparison's page reads (the viewer, which keeps each
 * run's rollout index, takes the same rows from it: tests/report/list-rows.test.ts).
 */
import type { ListRow } from '../display/list.js';
import type { RolloutRecord } from '../runfile/record.js';
import { foldWinningRecords, runBounds } from '../runfile/winners.js';
import { FAULT_CODES } from '../task/types.js';

/** The codes whose `field` count is above 0 in a record's `detail.codes`. */
function codesWith(r: RolloutRecord, field: 'fn' | 'fp'): string[] {
  const codes = r.detail?.codes;
  if (!codes) return [];
  return FAULT_CODES.filter((c) => {
    const n = codes[c]?.[field];
    return typeof n === 'number' && n > 0;
  });
}

/**
 * The list row of one record: the row display/list.ts `listRowOf` builds from a page's detail of
 * it, and the rollout index from its facts (tests/report/list-rows.test.ts holds them to agree).
 */
function listRowOfRecord(r: RolloutRecord): ListRow {
  const errored = !!r.error;
  const consistent = r.detail?.consistency?.bas_consistent;
  return {
    index: r.index,
    rollout: r.rollout ?? 0,
    reward: errored || typeof r.reward !== 'number' ? null : r.reward,
    errored,
    bas_correct: errored ? null : r.rewards?.bas_correct === 1,
    consistent: consistent === 1 ? true : consistent === 0 ? false : null,
    missed: errored ? [] : codesWith(r, 'fn'),
    wrong: errored ? [] : codesWith(r, 'fp'),
    unparseable: !errored && r.metrics?.parsed === 0,
  };
}

/** Keeps the winning line of each pair as a row. */
class RowFold {
  readonly rows = new Map<string, ListRow>();
  add(r: RolloutRecord): void {
    const row = listRowOfRecord(r);
    this.rows.set(`${row.index}:${row.rollout}`, row);
  }
  replace(r: RolloutRecord): boolean {
    this.add(r);
    return true;
  }
}

/** Every winning rollout of the results file at `path` as a list row, in file order of first sight. */
export async function readListRows(path: string, run: Record<string, unknown> | null): Promise<ListRow[]> {
  const { fold } = await foldWinningRecords(path, () => new RowFold(), { bounds: runBounds(run), warn: () => {} });
  return [...fold.rows.values()];
}
