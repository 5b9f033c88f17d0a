/**
 * Scoring one reply against its key: small pure functions. The BAS reward is all-or-nothing
 * over four labels; the audit reward is F1 over (row, code) pairs, so naming the right row
 * for the wrong reason earns nothing and flagging everything drowns precision.
 */
import { parseAnswer, type Answer } from './answer.js';
import { consistencyOf, impliedBas, type LedgerFigures } from './implied.js';
import {
  BAS_LABELS,
  FAULT_CODES,
  type AnswerKey,
  type BasLabel,
  type Cents,
  type FaultCode,
  type PairCounts,
  type Scores,
} from './types.js';

const REWARD_WEIGHTS = { bas_correct: 0.6, fault_audit: 0.4 } as const;

const KNOWN_CODES = new Set<string>(FAULT_CODES);

function emptyCodeCounts(): Record<FaultCode, PairCounts> {
  const out = {} as Record<FaultCode, PairCounts>;
  for (const code of FAULT_CODES) out[code] = { tp: 0, fp: 0, fn: 0 };
  return out;
}

/** F1 of the audit; a clean key is matched only by claiming nothing. */
export function auditF1(truePositives: number, claimed: number, actual: number): number {
  if (actual === 0) return claimed === 0 ? 1 : 0;
  if (truePositives === 0) return 0;
  const precision = truePositives / claimed;
  const recall = truePositives / actual;
  return (2 * precision * recall) / (precision + recall);
}

/** Whether the key lists `code` for row `id`. */
function inKey(faults: AnswerKey['faults'], id: string, code: string): boolean {
  return Object.hasOwn(faults, id) && faults[id]!.includes(code as FaultCode);
}

/** Scores an already parsed answer; with its ledger, also where a wrong BAS comes from. */
function scoreAnswer(answer: Answer, key: AnswerKey, ledger?: LedgerFigures): Scores {
  const labels = {} as Record<BasLabel, boolean>;
  let right = 0;
  for (const label of BAS_LABELS) {
    labels[label] = answer.figures[label].cents === key.bas[label];
    if (labels[label]) right++;
  }

  // (row, code) pairs are looked up where they are, in the key's lists and the answer's sets,
  // rather than copied into sets of joined strings: this runs on every rollout.
  const ids = Object.keys(key.faults);
  let actual = 0;
  for (const id of ids) {
    const list = key.faults[id]!;
    for (let i = 0; i < list.length; i++) if (list.indexOf(list[i]!) === i) actual++;
  }

  const codes = emptyCodeCounts();
  let unknown = 0;
  let claimed = 0;
  let hits = 0;
  for (const [id, set] of answer.faults) {
    for (const code of set) {
      claimed++;
      const hit = inKey(key.faults, id, code);
      if (hit) hits++;
      if (KNOWN_CODES.has(code)) codes[code as FaultCode][hit ? 'tp' : 'fp']++;
      else unknown++;
    }
  }
  for (const id of ids) {
    const claims = answer.faults.get(id);
    for (const code of key.faults[id]!) if (!claims?.has(code)) codes[code].fn++;
  }

  const basCorrect = right === BAS_LABELS.length ? 1 : 0;
  const audit = auditF1(hits, claimed, actual);
  return {
    reward: REWARD_WEIGHTS.bas_correct * basCorrect + REWARD_WEIGHTS.fault_audit * audit,
    rewards: { bas_correct: basCorrect, fault_audit: audit },
    metrics: {
      bas_label_accuracy: right / BAS_LABELS.length,
      fault_precision: claimed === 0 ? 0 : hits / claimed,
      fault_recall: actual === 0 ? 0 : hits / actual,
      num_flagged: claimed,
      parsed: 1,
    },
    detail: ledger
      ? { labels, codes, unknown_codes: unknown, consistency: consistencyOfAnswer(answer, key, ledger) }
      : { labels, codes, unknown_codes: unknown },
  };
}

/** The stated BAS of `answer` against the one its own faults imply on `ledger`, and the key's. */
function consistencyOfAnswer(answer: Answer, key: AnswerKey, ledger: LedgerFigures): Scores['detail']['consistency'] {
  const stated = {} as Record<BasLabel, Cents | null>;
  for (const label of BAS_LABELS) stated[label] = answer.figures[label].cents;
  return consistencyOf(stated, impliedBas(ledger, answer.faults), key.bas);
}

/** The scores of a reply that could not be parsed: zero everywhere, every true pair missed. */
function unparseableScores(key: AnswerKey, reason: string): Scores {
  const codes = emptyCodeCounts();
  for (const list of Object.values(key.faults)) for (const code of list) codes[code].fn++;
  return {
    reward: 0,
    rewards: { bas_correct: 0, fault_audit: 0 },
    metrics: { bas_label_accuracy: 0, fault_precision: 0, fault_recall: 0, num_flagged: 0, parsed: 0 },
    detail: {
      labels: { G1: false, '1A': false, '1B': false, net: false },
      codes,
      unknown_codes: 0,
      unparseable: reason,
    },
  };
}

/**
 * Parses and scores a reply's text against `key`. Given the task's `ledger` (the one `key`
 * was derived from), a parsed reply's detail also holds its consistency (implied.ts).
 */
export function scoreReply(reply: string, key: AnswerKey, ledger?: LedgerFigures): Scores {
  const parsed = parseAnswer(reply);
  return parsed.ok ? scoreAnswer(parsed.answer, key, ledger) : unparseableScores(key, parsed.reason);
}
