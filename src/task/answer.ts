/**
 * Parsing a model's reply. The result is data, never an exception: an unparseable reply is a
 * score of zero with a reason, not a crash. decimal.js turns figure text into cents here, and
 * only here, so "1,234.50", 1234.5 and "$1234.50" are one value and 1234.501 is not a cent amount.
 */
import { Decimal } from 'decimal.js';
import { cents, parseMoneyAt } from './money.js';
import { BAS_LABELS, type BasLabel, type Cents } from './types.js';

interface GivenFigure {
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
/** Past this, cents stop being exact integers in a double. */
const MAX_DOLLARS = Math.floor(Number.MAX_SAFE_INTEGER / 100);
const MAX_CENTS = MAX_DOLLARS * 100;
/** More whole digits than this (leading zeros aside) is past MAX_DOLLARS for sure. */
const MAX_WHOLE_DIGITS = String(MAX_DOLLARS).length;
const FENCE = '```';

// Everything below reads model output, so it scans by index: a regular expression with
// nested or adjacent quantifiers (the old fence pattern) backtracks polynomially on long
// whitespace runs, and grading is synchronous, so no timeout could interrupt it.

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A fence's language word: what follows the opening backticks, as in ```json. */
function isLangChar(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
}

/**
 * The JSON inside a Markdown fence around `body` (already trimmed), or `body` itself when it
 * is not fenced. The opening line may name a language and end in spaces; whatever stands
 * between it and the closing backticks is the content, trimmed.
 */
function unfence(body: string): string {
  // Six characters at least, so the closing backticks are not the opening ones.
  if (body.length < 2 * FENCE.length || !body.startsWith(FENCE) || !body.endsWith(FENCE)) return body;
  const end = body.length - FENCE.length;
  let at = FENCE.length;
  while (at < end && isLangChar(body.charCodeAt(at))) at++;
  while (at < end && (body[at] === ' ' || body[at] === '\t')) at++;
  if (at < end && body[at] === '\r') at++;
  if (at < end && body[at] === '\n') at++;
  return body.slice(at, end).trim();
}

/**
 * `text` as a plain decimal (`-12.3`, `0012.50`) reduced to its significant digits, or null
 * when it is not one or cannot be an amount to the cent below MAX_DOLLARS. The reduction
 * keeps decimal.js's work bounded whatever the length of the text.
 */
function boundedDecimal(text: string): string | null {
  let at = text.startsWith('-') ? 1 : 0;
  const sign = at === 1 ? '-' : '';
  const wholeStart = at;
  while (at < text.length && isDigit(text.charCodeAt(at))) at++;
  const wholeEnd = at;
  if (wholeEnd === wholeStart) return null;
  let fraction = '';
  if (at < text.length) {
    if (text[at] !== '.') return null;
    const fracStart = ++at;
    while (at < text.length && isDigit(text.charCodeAt(at))) at++;
    if (at === fracStart || at !== text.length) return null;
    let fracEnd = at;
    while (fracEnd > fracStart && text[fracEnd - 1] === '0') fracEnd--;
    if (fracEnd - fracStart > 2) return null;
    fraction = text.slice(fracStart, fracEnd);
  }
  let first = wholeStart;
  while (first < wholeEnd - 1 && text[first] === '0') first++;
  if (wholeEnd - first > MAX_WHOLE_DIGITS) return null;
  return `${sign}${text.slice(first, wholeEnd)}${fraction ? `.${fraction}` : ''}`;
}

/**
 * Bounds on the JSON's shape, checked before it is parsed (`JSON.parse`): deep or tiny
 * containers, and objects with many keys, parse ten to twenty times slower per byte than
 * ordinary data, so a reply of a million brackets or keys would cost far more than its size
 * says, and the parser recurses once per level of nesting. An honest
 * answer nests three deep and holds one key and one list per claimed row (a ledger has at
 * most 10,000 rows), so these bounds sit above anything honest.
 */
export const MAX_ANSWER_DEPTH = 32;
/** Most lists and objects an answer may hold (an honest one: one list per claimed row, plus two). */
export const MAX_ANSWER_CONTAINERS = 12_000;
/** Most object keys an answer may hold (an honest one: one per claimed row, plus five). */
export const MAX_ANSWER_KEYS = 12_000;

/** Why `json` breaks the shape bounds, or null; strings are skipped, escapes included. */
function shapeProblem(json: string): string | null {
  let depth = 0;
  let containers = 0;
  let keys = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote; an escape hides the character after it.
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if (++depth > MAX_ANSWER_DEPTH) return `the answer nests deeper than ${MAX_ANSWER_DEPTH} levels`;
      if (++containers > MAX_ANSWER_CONTAINERS)
        return `the answer holds more than ${MAX_ANSWER_CONTAINERS} lists and objects`;
    } else if (c === 125 || c === 93) {
      depth--;
    } else if (c === 58) {
      // Outside strings a colon ends an object key.
      if (++keys > MAX_ANSWER_KEYS) return `the answer holds more than ${MAX_ANSWER_KEYS} object keys`;
    }
  }
  return null;
}

/** `text` without any `$` or `,`, in one pass. */
function dropSymbols(text: string): string {
  if (text.indexOf('$') < 0 && text.indexOf(',') < 0) return text;
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '$' || c === ',') {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}

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
    text = dropSymbols(raw).trim();
  } else {
    return null;
  }
  // A plain figure to the cent, as nearly every reply writes it, is read without decimal.js:
  // the same value, and none of its objects on every figure of every rollout.
  const quick = parseMoneyAt(text, 0, text.length);
  if (quick !== null && Math.abs(quick) <= MAX_CENTS) return cents(quick + 0); // + 0 turns -0 into 0
  const plain = boundedDecimal(text);
  if (plain === null) return null;
  const value = new Decimal(plain);
  // Exact to the cent, or not an amount at all; checked before any arithmetic can round.
  if (value.decimalPlaces() > 2 || value.abs().greaterThan(MAX_DOLLARS)) return null;
  return cents(value.times(100).toNumber() + 0); // + 0 turns -0 into 0
}

function readFaults(value: unknown): Map<string, Set<string>> | string {
  if (value === undefined) return 'the "faults" key is missing';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '"faults" is not an object';
  const faults = new Map<string, Set<string>>();
  // Keys, not entries: no pair array per id, which counts with thousands of claimed ids.
  for (const rawId of Object.keys(value)) {
    const codes = (value as Record<string, unknown>)[rawId];
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
  const body = unfence(block.trim());
  const shape = shapeProblem(body);
  if (shape !== null) return { ok: false, reason: shape };
  let data: unknown;
  try {
    // JSON.parse makes `__proto__` an own key like any other: no prototype is touched.
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
