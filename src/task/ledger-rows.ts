/**
 * Clean ledger rows: realistic, correctly taxed documents with no fault in them. Edge cases
 * of the $82.50 rule are planted on purpose: small receipts without an ABN (no fault) and
 * purchases at exactly $82.50 and $82.51.
 */
import type { QuarterDays } from './calendar.js';
import { randomAbn } from './abn.js';
import type { Rng } from './random.js';
import { ABN_THRESHOLD_CENTS, correctGst } from './rules.js';
import type { Category, Row } from './types.js';
import { CATEGORY_SPECS, CUSTOMERS, PURCHASE_CATEGORIES, SALE_CATEGORIES } from './vocabulary.js';

const SALE_SHARE = 0.4;
/** Share of purchases that are small receipts with no ABN on them (allowed: under the threshold). */
const SMALL_RECEIPT_SHARE = 0.08;
/** Share of purchases priced right at the threshold: $82.50 (under) or $82.51 (over). */
const THRESHOLD_SHARE = 0.04;

/** Width of the random part of invoice numbers: wide enough that collisions stay rare for `n` rows. */
export function invoiceDigits(n: number): number {
  // About n²/2 pairs of rows; keep the expected number of chance collisions near 1 in 300 or less.
  return Math.max(6, Math.ceil(Math.log10(n * n * 150)));
}

function drawInvoice(rng: Rng, digits: number): string {
  if (digits <= 9) return `INV-${String(rng.int(0, 10 ** digits - 1)).padStart(digits, '0')}`;
  const high = String(rng.int(0, 10 ** (digits - 9) - 1)).padStart(digits - 9, '0');
  return `INV-${high}${String(rng.int(0, 999_999_999)).padStart(9, '0')}`;
}

/** A price in cents for a category: skewed towards the low end, as real invoices are. */
function drawAmount(rng: Rng, category: Category): number {
  const { min, max } = CATEGORY_SPECS[category];
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

/** `n` clean rows in posting order, dated inside the quarter. */
export function buildCleanRows(rng: Rng, n: number, days: QuarterDays): Row[] {
  // A business sells to a handful of regular customers.
  const customers = CUSTOMERS.slice(rng.int(0, CUSTOMERS.length - 6)).slice(0, 6);
  const supplierAbns = new Map<string, string>();
  const dayIndices: number[] = [];
  for (let i = 0; i < n; i++) dayIndices.push(rng.int(0, days.inside.length - 1));
  dayIndices.sort((a, b) => a - b);
  const width = String(n).length;
  const digits = invoiceDigits(n);

  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const type = rng.chance(SALE_SHARE) ? 'sale' : 'purchase';
    const category = rng.pick(type === 'sale' ? SALE_CATEGORIES : PURCHASE_CATEGORIES);
    const counterparty = type === 'sale' ? rng.pick(customers) : rng.pick(CATEGORY_SPECS[category].suppliers);
    let amount = drawAmount(rng, category);
    let abn = type === 'sale' ? '' : supplierAbn(rng, supplierAbns, counterparty);
    if (type === 'purchase') {
      const edge = rng.float();
      if (edge < SMALL_RECEIPT_SHARE) {
        // A small receipt: no tax invoice needed, so no ABN and no fault (sometimes exactly $82.50).
        amount = rng.chance(0.25) ? ABN_THRESHOLD_CENTS : rng.int(500, ABN_THRESHOLD_CENTS);
        abn = '';
      } else if (edge < SMALL_RECEIPT_SHARE + THRESHOLD_SHARE) {
        amount = rng.chance(0.5) ? ABN_THRESHOLD_CENTS : ABN_THRESHOLD_CENTS + 1;
      }
    }
    const row: Row = {
      id: `T${String(i + 1).padStart(width, '0')}`,
      date: days.inside[dayIndices[i]!]!,
      type,
      counterparty,
      description: rng.pick(CATEGORY_SPECS[category].descriptions),
      category,
      amount,
      gst: 0,
      invoice: drawInvoice(rng, digits),
      abn,
    };
    row.gst = correctGst(row);
    rows.push(row);
  }
  return rows;
}
