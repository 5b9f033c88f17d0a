/**
 * Reading a ledger back out of prompt text, as a model would have to. The reference policies
 * use only this, never the generator's data, so an `oracle` that scores 1.0 shows that the
 * prompt alone is enough to reach the key.
 */
import { parseMoneyString } from './money.js';
import { PROMPT_COLUMNS } from './prompt.js';
import { CATEGORIES, type Category, type ChatMessage, type Ledger, type Row } from './types.js';

const CATEGORY_SET = new Set<string>(CATEGORIES);
const PERIOD_LINE = /^BAS quarter: (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\b/m;
const BUSINESS_LINE = /^Business: (.*), ABN (\d{11})$/m;

/** The ledger stated in `messages`, or null when the text does not hold one. */
export function readLedgerFromPrompt(messages: readonly ChatMessage[]): Ledger | null {
  const text = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  const period = PERIOD_LINE.exec(text);
  if (!period) return null;
  const business = BUSINESS_LINE.exec(text);
  const header = `\n${PROMPT_COLUMNS.join(',')}\n`;
  const at = text.indexOf(header);
  if (at < 0) return null;
  const rows: Row[] = [];
  for (const line of text.slice(at + header.length).split('\n')) {
    if (line.trim() === '') break;
    const f = line.split(',');
    if (f.length !== PROMPT_COLUMNS.length) return null;
    const [id, date, type, counterparty, category, amount, gst, invoice, abn] = f as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const amountCents = parseMoneyString(amount);
    const gstCents = parseMoneyString(gst);
    if (
      (type !== 'sale' && type !== 'purchase') ||
      !CATEGORY_SET.has(category) ||
      amountCents === null ||
      gstCents === null
    )
      return null;
    rows.push({
      id,
      date,
      type,
      counterparty,
      description: '',
      category: category as Category,
      amount: amountCents,
      gst: gstCents,
      invoice,
      abn,
    });
  }
  return {
    business: { name: business?.[1] ?? '', abn: business?.[2] ?? '', trade: '' },
    period: { start: period[1]!, end: period[2]! },
    rows,
  };
}
