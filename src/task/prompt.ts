/**
 * The prompt: every rule a solver needs to reach the key, stated once and compactly (a
 * 60-row ledger is paid for on every rollout), followed by the ledger as CSV. Each sentence
 * closes a reading that would change the answer; see docs/benchmark.md for the list.
 */
import { formatCents } from './money.js';
import { ABN_THRESHOLD_CENTS } from './rules.js';
import {
  GST_FREE_CATEGORIES,
  INPUT_TAXED_CATEGORIES,
  TAXABLE_CATEGORIES,
  type ChatMessage,
  type Ledger,
} from './types.js';

/**
 * The prompt's version: raised whenever the wording changes, since a model may answer the
 * same ledger differently. 1: up to generator 2; 2: since generator 3 (posting order, the
 * original of a duplicate, negative figures, id form, categories as given, simplifications).
 */
export const PROMPT_VERSION = 2;

/** The CSV columns of the ledger in the prompt, in order. */
export const PROMPT_COLUMNS = [
  'id',
  'date',
  'type',
  'counterparty',
  'category',
  'amount',
  'gst',
  'invoice',
  'abn',
] as const;

const SYSTEM =
  'You are a meticulous Australian bookkeeper. You audit a quarterly ledger and prepare the corrected Business Activity Statement (BAS).';

const threshold = formatCents(ABN_THRESHOLD_CENTS);
const COLUMN_LINE = PROMPT_COLUMNS.join(',');

/**
 * The rules part of the user message. It is the same for every task but for the row id in
 * the answer template, which takes the ledger's own form (T1, T01 or T001) because ids are
 * compared exactly.
 */
function rulesText(exampleId: string): string {
  return `Amounts are Australian dollars including GST; "gst" is the GST shown on the document. Rows are in posting order; "earlier" means higher in the list. Each category is correct as given and is never a fault.
Apply these rules exactly as written, even where ATO practice differs: GST per row, not from totals; an invoice number is unique across the whole ledger, whoever issued it; the ${threshold} test is on the GST-inclusive amount, for every category; rows outside the quarter are dropped, not carried forward; figures in cents, not whole dollars.

Categories:
- taxable: ${TAXABLE_CATEGORIES.join(', ')}
- GST-free: ${GST_FREE_CATEGORIES.join(', ')}
- input-taxed: ${INPUT_TAXED_CATEGORIES.join(', ')}
Correct GST of a taxable row = amount / 11, rounded to the nearest cent (half a cent rounds up). GST-free and input-taxed rows have no GST.

Fault codes. Test every rule on every row; one row may have several codes.
- gst_on_gst_free: GST-free or input-taxed row whose gst is not 0.00.
- gst_miscalculated: taxable row whose gst differs from its correct GST.
- duplicate_invoice: the invoice number already appears on an earlier row (sale or purchase). Flag each later row, never the first: it is the original even if dated outside the quarter.
- outside_period: dated before the first day or after the last day of the quarter.
- missing_abn_over_threshold: purchase with amount over ${threshold} (${threshold} itself is not over) and a blank abn.
The ledger may have any number of faults, or none.

Corrected BAS. Leave out every row flagged outside_period or duplicate_invoice. Always use correct GST, never the gst column.
- G1: sum of amount over the remaining sales, all categories.
- 1A: sum of correct GST over the remaining taxable sales.
- 1B: sum of correct GST over the remaining taxable purchases, except those flagged missing_abn_over_threshold.
- net: 1A minus 1B; write a negative figure as "-176.89".

End your reply with one answer block, figures in dollars with two decimals, "faults" mapping each faulty row id, exactly as in the ledger, to its codes ({} if none):
<answer>{"G1": "0.00", "1A": "0.00", "1B": "0.00", "net": "0.00", "faults": {"${exampleId}": ["code_a", "code_b"]}}</answer>`;
}

/**
 * The rules text by example id. Ids take one of a few forms (T1, T01, T001, ...), so this
 * stays a handful of entries, and a prompt no longer rebuilds three kilobytes of rules piece by
 * piece on every rollout.
 */
const rulesByExample = new Map<string, string>();

function rulesFor(exampleId: string): string {
  let text = rulesByExample.get(exampleId);
  if (text === undefined) {
    if (rulesByExample.size >= 16) rulesByExample.clear();
    text = rulesText(exampleId);
    rulesByExample.set(exampleId, text);
  }
  return text;
}

/** The user message for `ledger`. */
function userText(ledger: Ledger): string {
  const lines: string[] = [
    `Business: ${ledger.business.name}, ABN ${ledger.business.abn}`,
    `BAS quarter: ${ledger.period.start} to ${ledger.period.end}, both days included.`,
    '',
    rulesFor(ledger.rows[0]?.id ?? 'T1'),
    '',
    'Ledger (CSV):',
    COLUMN_LINE,
  ];
  for (const r of ledger.rows) {
    lines.push(
      `${r.id},${r.date},${r.type},${r.counterparty},${r.category},${formatCents(r.amount)},${formatCents(r.gst)},${r.invoice},${r.abn}`,
    );
  }
  return lines.join('\n');
}

/** The messages a model receives for `ledger`. */
export function buildPrompt(ledger: Ledger): ChatMessage[] {
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: userText(ledger) },
  ];
}
