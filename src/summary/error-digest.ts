/**
 * What went wrong in a run, in a few lines: per error type, the commonest messages with a
 * count and one example, so nobody has to open results.jsonl to learn why. Messages come from
 * outside (endpoints, files): they are grouped by a key built in one pass, stored bounded in
 * length and number, and never used as keys of plain objects.
 */
import { outsideText } from '../io/outside-text.js';

/** The errors of one type, with their commonest messages. */
export interface ErrorDigest {
  type: string;
  count: number;
  /** At most MESSAGES_SHOWN, most frequent first; messages differing only in numbers count as one. */
  messages: Array<{ count: number; example: string }>;
  /** Rollouts of this type whose message is not among those listed. */
  other: number;
}

/** Messages listed per error type. */
const MESSAGES_SHOWN = 3;
/** Distinct messages remembered in all; later new ones are counted as "other". */
const MESSAGES_KEPT = 10_000;
/** Characters kept of a message. */
const MESSAGE_CHARS = 300;

function isControl(c: number): boolean {
  return c < 32 || (c >= 127 && c < 160);
}

/**
 * The grouping key of an error message: control characters as spaces, runs of digits as one
 * "#" (so "after 3 attempts" and "after 4 attempts" group), at most 300 characters. One pass.
 */
function messageKey(message: string): string {
  let out = '';
  let digits = false;
  for (let i = 0; i < message.length && out.length < MESSAGE_CHARS; i++) {
    const c = message.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (!digits) out += '#';
      digits = true;
      continue;
    }
    digits = false;
    out += isControl(c) ? ' ' : message[i];
  }
  return out;
}

/**
 * A message fit to keep and show, at most 300 characters: outsideText, so that a message read
 * back from an older run folder is redacted and made visible before it is cut, never after.
 */
function example(message: string): string {
  return outsideText(message, MESSAGE_CHARS);
}

/**
 * The errored rollouts of a run, counted by type and message as they come. What it shows does
 * not depend on their order: a group's example is the first of its messages in code-unit order,
 * and ties of count are broken by that example. (Past MESSAGES_KEPT distinct messages, which
 * ones were kept does depend on order.)
 */
export class ErrorMessages {
  private readonly ids = new Map<string, number>();
  private readonly examples: string[] = [];
  private readonly perType = new Map<string, { count: number; byMessage: Map<number, number> }>();

  /** The id of this message among those of its type; NaN once MESSAGES_KEPT are known. */
  private id(type: string, message: string): number {
    const key = `${type}\u0000${messageKey(message)}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      if (this.examples.length >= MESSAGES_KEPT) return Number.NaN;
      id = this.examples.push(example(message)) - 1;
      this.ids.set(key, id);
    } else {
      const shown = example(message);
      if (shown < this.examples[id]!) this.examples[id] = shown;
    }
    return id;
  }

  /** Counts one errored rollout. */
  add(type: string, message: string): void {
    const id = this.id(type, message);
    let t = this.perType.get(type);
    if (t === undefined) this.perType.set(type, (t = { count: 0, byMessage: new Map() }));
    t.count++;
    if (!Number.isNaN(id)) t.byMessage.set(id, (t.byMessage.get(id) ?? 0) + 1);
  }

  /**
   * Errored rollouts per type, commonest first (ties by type): the same whatever order they
   * came in. An object without a prototype: a type is outside text.
   */
  countsByType(): Record<string, number> {
    const types = [...this.perType.entries()].sort(
      ([a, x], [b, y]) => y.count - x.count || (a < b ? -1 : a > b ? 1 : 0),
    );
    const out = Object.create(null) as Record<string, number>;
    for (const [type, t] of types) out[type] = t.count;
    return out;
  }

  /** The digest of the errored rollouts counted so far, commonest type first. */
  digest(): ErrorDigest[] {
    return [...this.perType.entries()]
      .map(([type, t]) => {
        const ex = this.examples;
        const top = [...t.byMessage.entries()]
          .sort((a, b) => b[1] - a[1] || (ex[a[0]]! < ex[b[0]]! ? -1 : ex[a[0]]! > ex[b[0]]! ? 1 : a[0] - b[0]))
          .slice(0, MESSAGES_SHOWN);
        const messages = top.map(([id, count]) => ({ count, example: this.examples[id]! }));
        return { type, count: t.count, messages, other: t.count - messages.reduce((a, m) => a + m.count, 0) };
      })
      .sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
}
