/**
 * Clean ledger rows: correctly taxed documents with no fault in them, drawn from what the
 * business's trade sells and buys. Edge cases of the $82.50 rule are planted on purpose, on
 * the trade's cheap purchases: small receipts without an ABN (no fault) and prices of
 * exactly $82.50 and $82.51.
 */
import type { QuarterDays } from './calendar.js';
import { randomAbn } from './abn.js';
import { wholeDigits } from './money.js';
import type { Rng } from './random.js';
import { ABN_THRESHOLD_CENTS, correctGst } from './rules.js';
import type { Row } from './types.js';
import type { LedgerLine, Trade } from './vocabulary.js';

/** Share of purchases that are small receipts with no ABN on them (allowed: under the threshold). */
const SMALL_RECEIPT_SHARE = 0.08;
/** Share of purchases priced right at the threshold: $82.50 (under) or $82.51 (over). */
const THRESHOLD_SHARE = 0.04;

/** Width of the random part of invoice numbers: wide enough that collisions stay rare for `n` rows. */
function invoiceDigits(n: number): number {
  // About n²/2 pairs of rows; keep the expected number of chance collisions near 1 in 300 or less.
  return Math.max(6, Math.ceil(Math.log10(n * n * 150)));
}

function drawInvoice(rng: Rng, digits: number): string {
  if (digits <= 9) return `INV-${wholeDigits(rng.int(0, 10 ** digits - 1)).padStart(digits, '0')}`;
  const high = wholeDigits(rng.int(0, 10 ** (digits - 9) - 1)).padStart(digits - 9, '0');
  return `INV-${high}${wholeDigits(rng.int(0, 999_999_999)).padStart(9, '0')}`;
}

/** A price in cents within the line's range: skewed towards the low end, as real invoices are. */
function drawAmount(rng: Rng, { min, max }: LedgerLine): number {
  const u = rng.int(0, 1_000_000) / 1_000_000;
  const cents = Math.round(min * 100 + (max - min) * 100 * u * u);
  // Many business invoices are for whole dollars.
  return rng.chance(0.2) ? Math.max(100, Math.round(cents / 100) * 100) : cents;
}

/** A supplier's ABN, drawn the first time the ledger meets the supplier and kept after. */
function supplierAbn(rng: Rng, known: Map<string, string>, name: string): string {
  let abn = known.get(name);
  if (abn === undefined) {
    abn = randomAbn(rng);
    known.set(name, abn);
  }
  return abn;
}

/** `n` clean rows in posting order, dated inside the quarter, for a business of `trade`. */
export function buildCleanRows(rng: Rng, n: number, days: QuarterDays, trade: Trade): Row[] {
  const supplierAbns = new Map<string, string>();
  const dayIndices: number[] = [];
  for (let i = 0; i < n; i++) dayIndices.push(rng.int(0, days.inside.length - 1));
  dayIndices.sort((a, b) => a - b);
  const width = String(n).length;
  const digits = invoiceDigits(n);

  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const type = rng.chance(trade.saleShare) ? 'sale' : 'purchase';
    let spec: LedgerLine;
    let amount: number;
    let edge: 'receipt' | 'threshold' | null = null;
    if (type === 'sale') {
      spec = rng.pick(trade.sales);
    } else {
      const e = rng.float();
      edge = e < SMALL_RECEIPT_SHARE ? 'receipt' : e < SMALL_RECEIPT_SHARE + THRESHOLD_SHARE ? 'threshold' : null;
      spec = rng.pick(edge ? trade.receipts : trade.purchases);
    }
    if (edge === 'receipt') {
      // A small receipt: no tax invoice needed, so no ABN and no fault (sometimes exactly $82.50).
      amount = rng.chance(0.25) ? ABN_THRESHOLD_CENTS : rng.int(spec.min * 100, ABN_THRESHOLD_CENTS);
    } else if (edge === 'threshold') {
      amount = rng.chance(0.5) ? ABN_THRESHOLD_CENTS : ABN_THRESHOLD_CENTS + 1;
    } else {
      amount = drawAmount(rng, spec);
    }
    const counterparty = rng.pick(spec.parties);
    const row: Row = {
      id: `T${String(i + 1).padStart(width, '0')}`,
      date: days.inside[dayIndices[i]!]!,
      type,
      counterparty,
      description: rng.pick(spec.descriptions),
      category: spec.category,
      amount,
      gst: 0,
      invoice: drawInvoice(rng, digits),
      abn: type === 'sale' || edge === 'receipt' ? '' : supplierAbn(rng, supplierAbns, counterparty),
    };
    row.gst = correctGst(row);
    rows.push(row);
  }
  return rows;
}
