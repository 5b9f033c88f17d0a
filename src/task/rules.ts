/**
 * The answer key, re-derived from a finished ledger alone. Nothing here knows what the
 * generator meant to inject: a generator bug shows up as a key that disagrees with the
 * injection record instead of as a silently wrong key.
 */
import { gstInclusiveShare } from './money.js';
import {
  GST_FREE_CATEGORIES,
  INPUT_TAXED_CATEGORIES,
  type AnswerKey,
  type Category,
  type Cents,
  type FaultCode,
  type FaultMap,
  type Ledger,
  type Period,
  type Row,
} from './types.js';

/**
 * Regulations r 29-80.01: no tax invoice is needed for a purchase of $75 or less excluding
 * GST ($82.50 including it); above that, a document without the supplier's ABN denies the credit.
 */
export const ABN_THRESHOLD_CENTS: Cents = 8250;

const NOT_TAXABLE = new Set<Category>([...GST_FREE_CATEGORIES, ...INPUT_TAXED_CATEGORIES]);

/** Taxable categories carry GST; GST-free (Div 38) and input-taxed (Div 40) ones carry none. */
export function isTaxable(category: Category): boolean {
  return !NOT_TAXABLE.has(category);
}

/** The GST a row's document should show: 1/11 of the price if taxable, else nothing. */
export function correctGst(row: Row): Cents {
  return isTaxable(row.category) ? gstInclusiveShare(row.amount) : 0;
}

/** A purchase above the threshold ($82.50 itself is not above it): it needs a tax invoice. */
export function isPurchaseOverThreshold(row: Row): boolean {
  return row.type === 'purchase' && row.amount > ABN_THRESHOLD_CENTS;
}

/** The codes one row can earn by itself (all but `duplicate_invoice`), in alphabetical order. */
const ROW_CODES = ['gst_miscalculated', 'gst_on_gst_free', 'missing_abn_over_threshold', 'outside_period'] as const;

/** The rules of one row other than `duplicate_invoice`, which needs the rows before it. */
function checkRow(row: Row, period: Period): { correct: Cents } & Record<(typeof ROW_CODES)[number], boolean> {
  const taxable = isTaxable(row.category);
  const correct = correctGst(row);
  return {
    correct,
    gst_on_gst_free: !taxable && row.gst !== 0,
    gst_miscalculated: taxable && row.gst !== correct,
    outside_period: row.date < period.start || row.date > period.end,
    missing_abn_over_threshold: isPurchaseOverThreshold(row) && row.abn === '',
  };
}

/** Codes of one row other than `duplicate_invoice`, in alphabetical order. */
export function rowFaults(row: Row, period: Period): FaultCode[] {
  const c = checkRow(row, period);
  return ROW_CODES.filter((code) => c[code]);
}

/** Applies every rule to every row and rolls the included rows into the corrected BAS. */
export function deriveKey(ledger: Ledger): AnswerKey {
  const faults: FaultMap = Object.create(null) as FaultMap;
  const seenInvoices = new Set<string>();
  let g1 = 0;
  let gstOnSales = 0;
  let gstOnPurchases = 0;
  // One pass, building a code list only for faulty rows: this runs on every row of every task.
  for (const row of ledger.rows) {
    const c = checkRow(row, ledger.period);
    // A repeated document number: the first occurrence stands, later ones are the duplicates.
    const duplicate = seenInvoices.has(row.invoice);
    if (!duplicate) seenInvoices.add(row.invoice);
    if (duplicate || c.gst_miscalculated || c.gst_on_gst_free || c.missing_abn_over_threshold || c.outside_period) {
      // 'duplicate_invoice' sorts first, then the row's own codes in their (alphabetical) order.
      const codes: FaultCode[] = duplicate ? ['duplicate_invoice'] : [];
      for (const code of ROW_CODES) if (c[code]) codes.push(code);
      // An id from a task file could be "__proto__": define it as a plain own property.
      if (row.id === '__proto__')
        Object.defineProperty(faults, row.id, { value: codes, enumerable: true, writable: true, configurable: true });
      else faults[row.id] = codes;
    }
    if (duplicate || c.outside_period) continue;
    if (row.type === 'sale') {
      g1 += row.amount;
      gstOnSales += c.correct;
    } else if (!c.missing_abn_over_threshold) {
      gstOnPurchases += c.correct;
    }
  }
  return { bas: { G1: g1, '1A': gstOnSales, '1B': gstOnPurchases, net: gstOnSales - gstOnPurchases }, faults };
}
