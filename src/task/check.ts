/**
 * Checking answer keys without a model. For a generated task the re-derived key must match
 * what the generator injected, except for chance invoice collisions, which are real duplicates
 * that nobody injected. For a task read from a file it must match the key the file ships.
 */
import { formatCents } from './money.js';
import { deriveKey } from './rules.js';
import { BAS_LABELS, type AnswerKey, type BasLabel, type FaultCode, type FaultMap, type Ledger } from './types.js';

export interface Pair {
  id: string;
  code: FaultCode;
}

export interface KeyCheck {
  valid: boolean;
  key: AnswerKey;
  /** Pairs in the re-derived key that the reference (injected record or shipped key) lacks. */
  extra: Pair[];
  /** Pairs in the reference that the re-derived key lacks. */
  missing: Pair[];
  /** Chance invoice collisions: duplicates found but never injected (generated tasks only). */
  accidental: Pair[];
  /** Labels whose shipped figure differs from the re-derived one (shipped keys only). */
  bas: { label: BasLabel; expected: string; derived: string }[];
}

function pairs(map: FaultMap): Pair[] {
  const out: Pair[] = [];
  for (const id of Object.keys(map)) for (const code of map[id]!) out.push({ id, code });
  return out;
}

function difference(a: FaultMap, b: FaultMap): Pair[] {
  return pairs(a).filter(({ id, code }) => !(Object.hasOwn(b, id) && b[id]!.includes(code)));
}

/** Compares the key re-derived from a generated ledger with what the generator injected. */
export function checkAgainstInjected(ledger: Ledger, injected: FaultMap): KeyCheck {
  const key = deriveKey(ledger);
  const extra = difference(key.faults, injected);
  const accidental = extra.filter((p) => p.code === 'duplicate_invoice');
  const unexplained = extra.filter((p) => p.code !== 'duplicate_invoice');
  const missing = difference(injected, key.faults);
  return {
    valid: unexplained.length === 0 && missing.length === 0,
    key,
    extra: unexplained,
    missing,
    accidental,
    bas: [],
  };
}

/** Compares the key re-derived from a ledger with the key shipped beside it. */
export function checkAgainstShipped(ledger: Ledger, shipped: AnswerKey): KeyCheck {
  const key = deriveKey(ledger);
  const extra = difference(key.faults, shipped.faults);
  const missing = difference(shipped.faults, key.faults);
  const bas = BAS_LABELS.filter((l) => key.bas[l] !== shipped.bas[l]).map((label) => ({
    label,
    expected: formatCents(shipped.bas[label]),
    derived: formatCents(key.bas[label]),
  }));
  return {
    valid: extra.length === 0 && missing.length === 0 && bas.length === 0,
    key,
    extra,
    missing,
    accidental: [],
    bas,
  };
}
