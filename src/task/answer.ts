/**
 * Parsing a model's reply. The result is data, never an exception: an unparseable reply is a
 * score of zero with a reason, not a crash. decimal.js turns figure text into cents here, and
 * only here, so "1,234.50", 1234.5 and "$1234.50" are one value and 1234.501 is not a cent amount.
 */
import { Decimal } from 'decimal.js';
import { cents } from './money.js';
import { BAS_LABELS, type BasLabel, type Cents } from './types.js';

export interface GivenFigure {
  /** The value as it appeared in the JSON. */
  raw: unknown;
  /** The value in cents, or null when missing or not a plain amount to the cent. */
  cents: Cents | null;
}

export interface Answer {
  figures: Record<BasLabel, GivenFigure>;
  /** Row id -> claimed codes, ids and codes trimmed, repeats merged. */
  faults: Map<string, Set<string>>;
}

export type ParseResult = { ok: true; answer: Answer } | { ok: false; reason: string };

const OPEN = '<answer>';
const CLOSE = '</answer>';
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;
/** Past this, cents stop being exact integers in a double. */
const MAX_DOLLARS = Math.floor(Number.MAX_SAFE_INTEGER / 100);
const FENCE = /^```[A-Za-z0-9_-]*[ \t]*\r?\n?([\s\S]*?)\r?\n?[ \t]*```$/;

/** The text inside the last complete answer block, or null. */
export function extractAnswerBlock(reply: string): string | null {
  const close = reply.lastIndexOf(CLOSE);
  if (close < 0) return null;
  const open = reply.lastIndexOf(OPEN, close - OPEN.length);
  if (open < 0) return null;
  return reply.slice(open + OPEN.length, close);
}

/** Reads a figure: a JSON number or a string, `$`, `,` and outer spaces ignored. */
export function readFigure(raw: unknown): Cents | null {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return null;
    text = String(raw);
  } else if (typeof raw === 'string') {
    text = raw.replace(/[$,]/g, '').trim();
  } else {
    return null;
  }
  if (!PLAIN_DECIMAL.test(text)) return null;
  const value = new Decimal(text);
  // Exact to the cent, or not an amount at all; checked before any arithmetic can round.
  if (value.decimalPlaces() > 2 || value.abs().greaterThan(MAX_DOLLARS)) return null;
  return cents(value.times(100).toNumber() + 0); // + 0 turns -0 into 0
}

function readFaults(value: unknown): Map<string, Set<string>> | string {
  if (value === undefined) return 'the "faults" key is missing';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '"faults" is not an object';
  const faults = new Map<string, Set<string>>();
  for (const [rawId, codes] of Object.entries(value)) {
    const list = typeof codes === 'string' ? [codes] : codes;
    if (!Array.isArray(list)) return `"faults" entry ${JSON.stringify(rawId)} is not a list of codes`;
    const id = rawId.trim();
    const set = faults.get(id) ?? new Set<string>();
    for (const code of list) {
      if (typeof code !== 'string') return `"faults" entry ${JSON.stringify(rawId)} holds a non-string code`;
      set.add(code.trim());
    }
    faults.set(id, set);
  }
  return faults;
}

/** Parses `reply` into figures and claimed faults, or says why it cannot. */
export function parseAnswer(reply: string): ParseResult {
  const block = extractAnswerBlock(reply);
  if (block === null) return { ok: false, reason: 'no complete <answer>...</answer> block' };
  let body = block.trim();
  const fenced = FENCE.exec(body);
  if (fenced) body = fenced[1]!.trim();
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'the answer block is not valid JSON' };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, reason: 'the answer is not a JSON object' };
  }
  const record = data as Record<string, unknown>;
  const faults = readFaults(Object.hasOwn(record, 'faults') ? record.faults : undefined);
  if (typeof faults === 'string') return { ok: false, reason: faults };
  const figures = {} as Record<BasLabel, GivenFigure>;
  for (const label of BAS_LABELS) {
    const raw = Object.hasOwn(record, label) ? record[label] : undefined;
    figures[label] = { raw, cents: readFigure(raw) };
  }
  return { ok: true, answer: { figures, faults } };
}
