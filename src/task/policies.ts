/**
 * Reference policies: scripted "models" that answer from the prompt text alone. `oracle`
 * scoring 1.0 everywhere shows the prompt is enough; the others are the shortcuts the
 * rewards must not pay for.
 */
import { formatCents } from './money.js';
import { readLedgerFromPrompt } from './read-prompt.js';
import { deriveKey } from './rules.js';
import { FAULT_CODES, type Bas, type ChatMessage, type FaultMap, type Ledger } from './types.js';
import type { PolicyName } from './policy-names.js';
export { isPolicyName, POLICY_NAMES, type PolicyName } from './policy-names.js';

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

function answerFor(name: PolicyName, ledger: Ledger): string {
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
  }
}

/** The reply of policy `name` to `messages`; a prompt without a ledger gets a plain refusal. */
export function runPolicy(name: PolicyName, messages: readonly ChatMessage[]): string {
  const ledger = readLedgerFromPrompt(messages);
  if (!ledger) return 'I could not find a ledger in this prompt.';
  return answerFor(name, ledger);
}
