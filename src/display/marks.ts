/**
 * The ledger marks, computed once for every front end (the report pages, `bas view`, a
 * bundle and `bas report --rollout` in a terminal): for each row, each of the key's faults
 * found or missed by the reply, and each code the reply flagged that the key does not hold.
 * A row is marked by the worst of its marks: wrongly flagged, then missed, then found.
 */
import type { RolloutDetail } from './drill.js';

type RowMark = 'found' | 'missed' | 'wrong' | 'clean';

/** One mark of a row: a key's fault found or missed, a wrong flag, or (reply not judged) a key fault. */
export interface Chip {
  kind: 'found' | 'missed' | 'wrong' | 'key';
  code: string;
}

interface MarkedRow {
  id: string;
  chips: Chip[];
  mark: RowMark;
}

export interface MarkedLedger {
  rows: MarkedRow[];
  /** Ids the reply flagged that are not in the ledger. */
  extra: string[];
  /** Codes with a fault missed, and codes wrongly flagged, on any row (each once, in FAULT_CODES order of first sight). */
  missed: string[];
  wrong: string[];
}

const own = (o: Record<string, string[]> | null, id: string): string[] =>
  o !== null && Object.hasOwn(o, id) ? o[id]! : [];

function markOf(chips: Chip[]): RowMark {
  if (chips.some((c) => c.kind === 'wrong')) return 'wrong';
  if (chips.some((c) => c.kind === 'missed')) return 'missed';
  return chips.some((c) => c.kind === 'found') ? 'found' : 'clean';
}

/**
 * Marks the rows `ids` against the key's faults `expected` and the reply's `claims`. A reply
 * that was not judged (an error: no reply to read) shows the key's faults alone; an
 * unparseable reply is judged as claiming nothing, so every fault of the key is missed.
 */
export function markLedger(
  ids: readonly string[],
  expected: Record<string, string[]>,
  claims: Record<string, string[]> | null,
  judged: boolean,
): MarkedLedger {
  const missed = new Set<string>();
  const wrong = new Set<string>();
  const rows = ids.map((id): MarkedRow => {
    const exp = own(expected, id);
    const got = own(claims, id);
    const chips: Chip[] = [];
    for (const code of exp) {
      if (!judged) chips.push({ kind: 'key', code });
      else if (got.includes(code)) chips.push({ kind: 'found', code });
      else {
        chips.push({ kind: 'missed', code });
        missed.add(code);
      }
    }
    for (const code of got)
      if (!exp.includes(code)) {
        chips.push({ kind: 'wrong', code });
        wrong.add(code);
      }
    return { id, chips, mark: markOf(chips) };
  });
  const seen = new Set(ids);
  const extra = claims === null ? [] : Object.keys(claims).filter((id) => !seen.has(id));
  return { rows, extra, missed: [...missed], wrong: [...wrong] };
}

/** The marked ledger of one rollout; null when its task is not shown. */
export function markRollout(d: RolloutDetail): MarkedLedger | null {
  if (d.task === null) return null;
  const judged = d.faults !== null || d.unparseable !== null;
  return markLedger(
    d.task.rows.map((r) => r.id),
    d.task.expected_faults,
    d.faults,
    judged,
  );
}

/** What became of a rollout, in words: errored, unparseable, BAS right or wrong. */
export function outcomeText(d: Pick<RolloutDetail, 'error_type' | 'unparseable' | 'bas_correct'>): string {
  if (d.error_type !== null) return `errored (${d.error_type})`;
  if (d.unparseable !== null) return 'unparseable reply';
  return d.bas_correct === 1 ? 'BAS right' : 'BAS wrong';
}
