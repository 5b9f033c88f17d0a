/**
 * Task labels: the short text a training dataset carries instead of an answer key, for
 * example `bas:g3:p2:n24:f0.25:s20260826:i12`. It names everything the key depends on
 * (generator version, configuration, index) and the prompt version the model was shown, so
 * a reward service can regenerate the task and grade a reply without the dataset.
 *
 * Reading is strict: one spelling per task (no leading zeros, no spaces, the fault rate as
 * JavaScript prints it), every field in its range, so two different strings never name the
 * same task and a label that reads is one `formatLabel` wrote.
 */
import { MAX_TASKS, MAX_TRANSACTIONS, MIN_TRANSACTIONS } from './config.js';
import type { TaskConfig } from './types.js';

/** What a label names. */
export interface TaskLabel {
  generator: number;
  prompt_version: number;
  config: TaskConfig;
  index: number;
}

export type LabelResult = { ok: true; label: TaskLabel } | { ok: false; reason: string };

/** Longer than any label `formatLabel` writes (the longest is about 70 characters). */
export const MAX_LABEL_LENGTH = 100;

/** The label of a task. */
export function formatLabel(t: TaskLabel): string {
  const c = t.config;
  return `bas:g${t.generator}:p${t.prompt_version}:n${c.num_transactions}:f${String(c.fault_rate)}:s${c.seed}:i${t.index}`;
}

/** A whole number without sign or leading zeros (`0` itself is allowed). */
const WHOLE = /^(0|[1-9]\d*)$/;
/** The characters of a number as String() prints one in [0, 1]: `0.25`, `1`, `1e-7`. */
const RATE = /^[0-9.e-]+$/;
const FIELDS = ['g', 'p', 'n', 'f', 's', 'i'] as const;
const NAMES: Record<(typeof FIELDS)[number], string> = {
  g: 'generator version',
  p: 'prompt version',
  n: 'rows per ledger',
  f: 'fault rate',
  s: 'seed',
  i: 'task index',
};

function whole(text: string, min: number, max: number): number | null {
  if (!WHOLE.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : null;
}

/** Reads a label; the reason of a refusal names the first part that is wrong. */
export function parseLabel(value: unknown): LabelResult {
  if (typeof value !== 'string') return { ok: false, reason: 'a label must be a string' };
  if (value === '') return { ok: false, reason: 'the label is empty' };
  if (value.length > MAX_LABEL_LENGTH)
    return { ok: false, reason: `a label is at most ${MAX_LABEL_LENGTH} characters, got ${value.length}` };
  const parts = value.split(':');
  if (parts[0] !== 'bas' || parts.length !== FIELDS.length + 1)
    return { ok: false, reason: 'a label has the form bas:g<G>:p<P>:n<N>:f<F>:s<S>:i<I>' };
  const text = {} as Record<(typeof FIELDS)[number], string>;
  for (let k = 0; k < FIELDS.length; k++) {
    const part = parts[k + 1]!;
    const field = FIELDS[k]!;
    if (part[0] !== field)
      return { ok: false, reason: `part ${k + 2} of a label is the ${NAMES[field]}, written ${field}<value>` };
    text[field] = part.slice(1);
  }
  const bad = (field: (typeof FIELDS)[number], range: string): LabelResult => ({
    ok: false,
    reason: `the ${NAMES[field]} must be ${range}, got ${JSON.stringify(text[field])}`,
  });
  const generator = whole(text.g, 1, 1_000_000);
  if (generator === null) return bad('g', 'a positive whole number');
  const promptVersion = whole(text.p, 1, 1_000_000);
  if (promptVersion === null) return bad('p', 'a positive whole number');
  const rows = whole(text.n, MIN_TRANSACTIONS, MAX_TRANSACTIONS);
  if (rows === null) return bad('n', `a whole number from ${MIN_TRANSACTIONS} to ${MAX_TRANSACTIONS}`);
  const rate = RATE.test(text.f) ? Number(text.f) : NaN;
  // Only the one spelling String() gives: `0.250` or `.25` would name task 0.25's ledger twice.
  if (!(rate >= 0 && rate <= 1) || String(rate) !== text.f)
    return bad('f', 'a number from 0 to 1 written as in the dataset (0.25, not .25 or 0.250)');
  const seed = whole(text.s, 0, Number.MAX_SAFE_INTEGER);
  if (seed === null) return bad('s', 'a whole number from 0 to 2^53-1');
  const index = whole(text.i, 0, MAX_TASKS - 1);
  if (index === null) return bad('i', `a whole number from 0 to ${MAX_TASKS - 1}`);
  return {
    ok: true,
    label: {
      generator,
      prompt_version: promptVersion,
      config: { num_transactions: rows, fault_rate: rate, seed },
      index,
    },
  };
}
