/**
 * The BAS a reply's own fault list implies, and where a wrong BAS comes from. The reply's
 * claims are applied to the ledger as recorded, the way the rules apply the true faults: a
 * reply that audits well but adds up badly is told apart from one that adds up exactly what
 * its (wrong) audit says. Claims on ids the ledger lacks, and codes outside the five, change
 * nothing.
 */
import { gstInclusiveShare } from './money.js';
import {
  BAS_LABELS,
  type Bas,
  type BasLabel,
  type Cents,
  type Consistency,
  type Row,
  type WrongBasCause,
} from './types.js';

/** What the implied BAS reads of a row; a Ledger's rows have it, and a runner may keep only this. */
type RowFigures = Pick<Row, 'id' | 'type' | 'amount' | 'gst'>;

/** The rows of a ledger as the implied BAS reads them (see `RowFigures`). */
export interface LedgerFigures {
  rows: readonly RowFigures[];
}

/** The figures of `ledger`'s rows, nothing else: what a holder of many tasks keeps for grading. */
export function ledgerFigures(ledger: LedgerFigures): LedgerFigures {
  return { rows: ledger.rows.map(({ id, type, amount, gst }) => ({ id, type, amount, gst })) };
}

/** Applies `claims` (row id -> claimed codes, as parsed) to `ledger` and rolls up the BAS they imply. */
export function impliedBas(ledger: LedgerFigures, claims: ReadonlyMap<string, ReadonlySet<string>>): Bas {
  let g1 = 0;
  let gstOnSales = 0;
  let gstOnPurchases = 0;
  for (const row of ledger.rows) {
    const codes = claims.get(row.id);
    if (codes?.has('outside_period') || codes?.has('duplicate_invoice')) continue;
    // A row the reply did not call wrong is taken as recorded, whatever its category.
    const gst = codes?.has('gst_on_gst_free')
      ? 0
      : codes?.has('gst_miscalculated')
        ? gstInclusiveShare(row.amount)
        : row.gst;
    if (row.type === 'sale') {
      g1 += row.amount;
      gstOnSales += gst;
    } else if (!codes?.has('missing_abn_over_threshold')) {
      gstOnPurchases += gst;
    }
  }
  return { G1: g1, '1A': gstOnSales, '1B': gstOnPurchases, net: gstOnSales - gstOnPurchases };
}

/** The cause of one wrong figure: stated (null when unreadable), implied and true. */
function causeOf(stated: Cents | null, implied: Cents, truth: Cents): WrongBasCause | null {
  if (stated === truth) return null;
  if (stated === implied) return 'audit';
  return implied === truth ? 'arithmetic' : 'both';
}

/** Compares the stated figures (null: missing or unreadable) with the implied ones and the key's. */
export function consistencyOf(stated: Record<BasLabel, Cents | null>, implied: Bas, key: Bas): Consistency {
  const labels = {} as Record<BasLabel, WrongBasCause | null>;
  let asImplied = true;
  let impliedRight = true;
  let right = true;
  for (const l of BAS_LABELS) {
    labels[l] = causeOf(stated[l], implied[l], key[l]);
    if (stated[l] !== implied[l]) asImplied = false;
    if (implied[l] !== key[l]) impliedRight = false;
    if (stated[l] !== key[l]) right = false;
  }
  return {
    bas_consistent: asImplied ? 1 : 0,
    bas_error: right ? null : asImplied ? 'audit' : impliedRight ? 'arithmetic' : 'both',
    labels,
  };
}
