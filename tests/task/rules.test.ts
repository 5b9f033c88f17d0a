import { describe, expect, it } from 'vitest';
import { deriveKey, rowFaults } from '../../src/task/rules.js';
import type { Ledger, Row } from '../../src/task/types.js';

const period = { start: '2025-07-01', end: '2025-09-30' };
let seq = 0;
const row = (over: Partial<Row>): Row => ({
  id: `T${++seq}`,
  date: '2025-08-01',
  type: 'purchase',
  counterparty: 'Supplier',
  description: '',
  category: 'goods',
  amount: 11000,
  gst: 1000,
  invoice: `INV-${seq}`,
  abn: '51824753556',
  ...over,
});
const codes = (over: Partial<Row>) => rowFaults(row(over), period);

describe('row rules', () => {
  it.each<[string, Partial<Row>, string[]]>([
    ['a correct taxable purchase', {}, []],
    ['GST on a GST-free row', { category: 'basic_food', gst: 1000 }, ['gst_on_gst_free']],
    ['GST on an input-taxed row', { category: 'residential_rent', gst: 1 }, ['gst_on_gst_free']],
    ['no GST on a GST-free row', { category: 'medical', gst: 0 }, []],
    ['10% of the price instead of 1/11', { amount: 11000, gst: 1100 }, ['gst_miscalculated']],
    ['one cent off', { amount: 11000, gst: 999 }, ['gst_miscalculated']],
    ['rounding half up: 1/11 of 105.05 is 9.55', { amount: 10505, gst: 955 }, []],
    ['dated the day before the quarter', { date: '2025-06-30' }, ['outside_period']],
    ["dated the quarter's first day", { date: '2025-07-01' }, []],
    ["dated the quarter's last day", { date: '2025-09-30' }, []],
    ['dated the day after', { date: '2025-10-01' }, ['outside_period']],
    ['$82.50 exactly without ABN is under the threshold', { amount: 8250, gst: 750, abn: '' }, []],
    ['$82.51 without ABN is over it', { amount: 8251, gst: 750, abn: '' }, ['missing_abn_over_threshold']],
    [
      'a GST-free purchase over the threshold without ABN still counts',
      { category: 'education', amount: 50000, gst: 0, abn: '' },
      ['missing_abn_over_threshold'],
    ],
    ['a sale without ABN is fine', { type: 'sale', abn: '' }, []],
    [
      'several codes on one row',
      { category: 'export', gst: 500, date: '2025-10-05', abn: '', amount: 9000 },
      ['gst_on_gst_free', 'missing_abn_over_threshold', 'outside_period'],
    ],
  ])('%s', (_name, over, expected) => {
    expect(codes(over).sort()).toEqual(expected);
  });
});

describe('deriveKey', () => {
  const ledger = (rows: Row[]): Ledger => ({ business: { name: 'B', abn: '51824753556', trade: '' }, period, rows });

  it('flags later duplicates only, across sales and purchases, and excludes them', () => {
    const first = row({ type: 'sale', invoice: 'INV-1', amount: 22000, gst: 2000 });
    const again = row({ type: 'purchase', invoice: 'INV-1', amount: 11000, gst: 1000 });
    const third = row({ type: 'sale', invoice: 'INV-1', amount: 5500, gst: 500 });
    const key = deriveKey(ledger([first, again, third]));
    expect(key.faults).toEqual({ [again.id]: ['duplicate_invoice'], [third.id]: ['duplicate_invoice'] });
    expect(key.bas).toEqual({ G1: 22000, '1A': 2000, '1B': 0, net: 2000 });
  });

  it('uses correct GST, not the recorded one, and denies credits without an ABN', () => {
    const sale = row({ type: 'sale', amount: 11000, gst: 1100 });
    const exemptSale = row({ type: 'sale', category: 'export', amount: 50000, gst: 0 });
    const buy = row({ amount: 5500, gst: 550 });
    const noAbn = row({ amount: 22000, gst: 2000, abn: '' });
    const late = row({ type: 'sale', amount: 99900, gst: 9082, date: '2025-10-02' });
    const key = deriveKey(ledger([sale, exemptSale, buy, noAbn, late]));
    expect(key.bas).toEqual({ G1: 61000, '1A': 1000, '1B': 500, net: 500 });
    expect(Object.keys(key.faults).sort()).toEqual([buy.id, late.id, noAbn.id, sale.id].sort());
  });

  it('net can be negative', () => {
    const key = deriveKey(ledger([row({ amount: 110000, gst: 10000 })]));
    expect(key.bas).toEqual({ G1: 0, '1A': 0, '1B': 10000, net: -10000 });
  });

  it('a clean ledger has an empty fault map', () => {
    expect(deriveKey(ledger([row({}), row({ type: 'sale' })])).faults).toEqual({});
  });
});
