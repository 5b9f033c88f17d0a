/**
 * Reference policies: scripted "models" that answer from the prompt text alone. `oracle`
 * scoring 1.0 everywhere shows the prompt is enough; the others are the shortcuts the
 * rewards must not pay for.
 */
import { formatCents, parseMoneyString } from './money.js';
import { PROMPT_COLUMNS } from './prompt.js';
import { deriveKey } from './rules.js';
import {
  CATEGORIES,
  FAULT_CODES,
  type Bas,
  type Category,
  type ChatMessage,
  type FaultMap,
  type Ledger,
  type Row,
} from './types.js';
import { shareOf, type PolicyName } from './policy-names.js';
export { isPolicyName, POLICY_NAMES, type PolicyName } from './policy-names.js';

// Reading a ledger back out of prompt text, as a model would have to: the policies use only
// this, never the generator's data, so an `oracle` that scores 1.0 shows that the prompt alone
// is enough to reach the key.

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
    // A blank or white-space-only line ends the ledger.
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

/** Writes an answer block the way a well-behaved model would. */
export function formatAnswer(bas: Bas, faults: FaultMap): string {
  const body = {
    G1: formatCents(bas.G1),
    '1A': formatCents(bas['1A']),
    '1B': formatCents(bas['1B']),
    net: formatCents(bas.net),
    faults,
  };
  return `<answer>${JSON.stringify(body)}</answer>`;
}

/** Column totals as recorded, with no correction at all. */
function rawSums(ledger: Ledger): Bas {
  let g1 = 0;
  let a = 0;
  let b = 0;
  for (const row of ledger.rows) {
    if (row.type === 'sale') {
      g1 += row.amount;
      a += row.gst;
    } else {
      b += row.gst;
    }
  }
  return { G1: g1, '1A': a, '1B': b, net: a - b };
}

/** 32-bit FNV-1a of a text, then the murmur3 finaliser. */
function hashText(text: string, salt: number): number {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * `slips`: the rate at which it gets a task's sums right, the task's own: 1/4 on half the
 * tasks and 3/4 on the other half (which half, from the prompt's text).
 */
export const SLIPS_RATES = [0.25, 0.75] as const;

/** The task's rate for `slips` and, for its `draw`-th reply, whether the sums come out right. */
export function slipsDraw(promptText: string, draw: number): { rate: number; right: boolean } {
  const rate = SLIPS_RATES[hashText(promptText, 0) & 1]!;
  const u = mix32(hashText(promptText, 1) ^ mix32(draw + 0x9e3779b9)) / 2 ** 32;
  return { rate, right: u < rate };
}

/**
 * `share:P[:K]`: whether the task of this prompt is one it gets right. The hash of the
 * prompt's text salted by K, as a number in [0, 1), below P: one fixed set of tasks per P and
 * K, each with chance P; of one K nested (share:0.5's right tasks are among share:0.7's), of
 * different K independent (share:0.5 and share:0.7:1 each get wrong tasks the other gets right).
 */
function shareRight(promptText: string, p: { share: number; salt: number }): boolean {
  const salt = p.salt === 0 ? 4 : mix32(p.salt + 0x5bd1e995);
  return hashText(promptText, salt) / 2 ** 32 < p.share;
}

function answerFor(name: PolicyName, ledger: Ledger, promptText: string, draw: number): string {
  const share = shareOf(name);
  if (share !== null) {
    // Right: the answer key; wrong: no answer at all, which scores 0 on any ledger.
    if (!shareRight(promptText, share)) return 'I cannot reconcile this ledger.';
    const key = deriveKey(ledger);
    return formatAnswer(key.bas, key.faults);
  }
  switch (name) {
    case 'oracle': {
      const key = deriveKey(ledger);
      return `Reconciled ${ledger.rows.length} rows.\n${formatAnswer(key.bas, key.faults)}`;
    }
    case 'raw-sums':
      return formatAnswer(rawSums(ledger), {});
    case 'blanket': {
      // Every code on every row; taken at its word, that excludes every row from the BAS.
      const faults: FaultMap = {};
      for (const row of ledger.rows) faults[row.id] = [...FAULT_CODES];
      return formatAnswer({ G1: 0, '1A': 0, '1B': 0, net: 0 }, faults);
    }
    case 'silent':
      // The right figures, but no finding reported: what the audit half is worth.
      return formatAnswer(deriveKey(ledger).bas, {});
    case 'slips': {
      // Every fault found; the sums right at the task's own rate, else 1A (and so the net)
      // a dollar out. Its rewards vary within a task, by a known amount (docs/statistics.md).
      const key = deriveKey(ledger);
      if (slipsDraw(promptText, draw).right) return formatAnswer(key.bas, key.faults);
      const bas = { ...key.bas, '1A': key.bas['1A'] + 100, net: key.bas.net + 100 };
      return formatAnswer(bas, key.faults);
    }
    default:
      throw new RangeError(`unknown built-in policy ${name}`);
  }
}

function promptText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content).join('\n');
}

/**
 * The reply of policy `name` to `messages`; a prompt without a ledger gets a plain refusal.
 * `draw` numbers the replies to one prompt (0, 1, …): only `slips` answers differently to
 * each; the others always answer a prompt alike.
 */
export function runPolicy(name: PolicyName, messages: readonly ChatMessage[], draw = 0): string {
  const ledger = readLedgerFromPrompt(messages);
  if (!ledger) return 'I could not find a ledger in this prompt.';
  return answerFor(name, ledger, name === 'slips' || shareOf(name) !== null ? promptText(messages) : '', draw);
}

/**
 * A policy that numbers its replies to each prompt itself: the k-th time it is asked a prompt
 * it gives draw k. A run's rollouts of one task so get draws 0, 1, … whatever order they run
 * in, and a task's replies are the same set in every run started afresh (a resumed run
 * starts counting again). Memory: one number per distinct prompt.
 */
export function policyReplier(name: PolicyName): (messages: readonly ChatMessage[]) => string {
  if (name !== 'slips') return (messages) => runPolicy(name, messages);
  const asked = new Map<number, number>();
  return (messages) => {
    const text = promptText(messages);
    const key = hashText(text, 2) * 2 ** 21 + (hashText(text, 3) >>> 11);
    const draw = asked.get(key) ?? 0;
    asked.set(key, draw + 1);
    return runPolicy(name, messages, draw);
  };
}
