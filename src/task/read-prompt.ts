/**
 * Reading a ledger back out of prompt text, as a model would have to. The reference policies
 * use only this, never the generator's data, so an `oracle` that scores 1.0 shows that the
 * prompt alone is enough to reach the key.
 *
 * It runs on every rollout of a built-in model, so it walks the text by position instead of
 * splitting it into lines and fields: only the fields a row keeps as text become strings
 * (docs/performance.md, allocation per rollout).
 */
import { parseMoneyAt } from './money.js';
import { PROMPT_COLUMNS } from './prompt.js';
import { CATEGORIES, type Category, type ChatMessage, type Ledger, type Row } from './types.js';

const PERIOD_LINE = /^BAS quarter: (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})\b/m;
const BUSINESS_LINE = /^Business: (.*), ABN (\d{11})$/m;
const HEADER = `\n${PROMPT_COLUMNS.join(',')}\n`;
/** A line of nothing but white space (what `trim()` removes), up to the line's end. */
const BLANK_LINE = /[^\S\n]*(?=\n|$)/y;

/** The user messages' text, joined by newlines. */
function userText(messages: readonly ChatMessage[]): string {
  let text: string | null = null;
  for (const m of messages) {
    if (m.role === 'user') text = text === null ? m.content : `${text}\n${m.content}`;
  }
  return text ?? '';
}

/** Whether `text` holds exactly `word` from `start` to `end`. */
function isAt(text: string, start: number, end: number, word: string): boolean {
  return end - start === word.length && text.startsWith(word, start);
}

/** The category spelt from `start` to `end`, or null when it names none. */
function categoryAt(text: string, start: number, end: number): Category | null {
  for (const c of CATEGORIES) if (isAt(text, start, end, c)) return c;
  return null;
}

/** The ledger stated in `messages`, or null when the text does not hold one. */
export function readLedgerFromPrompt(messages: readonly ChatMessage[]): Ledger | null {
  const text = userText(messages);
  const period = PERIOD_LINE.exec(text);
  if (!period) return null;
  const business = BUSINESS_LINE.exec(text);
  const at = text.indexOf(HEADER);
  if (at < 0) return null;
  const rows: Row[] = [];
  // Field boundaries of the line being read: comma k ends field k.
  const commas: number[] = new Array<number>(PROMPT_COLUMNS.length - 1).fill(0);
  for (let pos = at + HEADER.length; pos <= text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    BLANK_LINE.lastIndex = pos;
    if (BLANK_LINE.test(text)) break;
    // Exactly one comma between each pair of fields, and none after the last.
    let from = pos;
    for (let k = 0; k < commas.length; k++) {
      const c = text.indexOf(',', from);
      if (c < 0 || c >= end) return null;
      commas[k] = c;
      from = c + 1;
    }
    const last = text.indexOf(',', from);
    if (last >= 0 && last < end) return null;
    const [c0, c1, c2, c3, c4, c5, c6, c7] = commas as [number, number, number, number, number, number, number, number];
    const type = isAt(text, c1 + 1, c2, 'sale') ? 'sale' : isAt(text, c1 + 1, c2, 'purchase') ? 'purchase' : null;
    const category = categoryAt(text, c3 + 1, c4);
    const amount = parseMoneyAt(text, c4 + 1, c5);
    const gst = parseMoneyAt(text, c5 + 1, c6);
    if (type === null || category === null || amount === null || gst === null) return null;
    rows.push({
      id: text.slice(pos, c0),
      date: text.slice(c0 + 1, c1),
      type,
      counterparty: text.slice(c2 + 1, c3),
      description: '',
      category,
      amount,
      gst,
      invoice: text.slice(c6 + 1, c7),
      abn: text.slice(c7 + 1, end),
    });
    pos = end + 1;
  }
  return {
    business: { name: business?.[1] ?? '', abn: business?.[2] ?? '', trade: '' },
    period: { start: period[1]!, end: period[2]! },
    rows,
  };
}
