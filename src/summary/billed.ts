/**
 * What a reply's usage bills, and whether a run's figures of tokens and cost are whole.
 *
 * Some endpoints bill reasoning outside `completion_tokens` (an OpenAI-compatible API whose
 * `total_tokens` counts it, where `completion_tokens` does not): the tokens of `total_tokens`
 * beyond prompt + completion were billed all the same, at the output price. bas counts them
 * as completion tokens wherever tokens are summed, a budget charged or a cost priced
 * (docs/cost.md, "What is counted").
 */
/** A reply's token count above this is not a count but a fault of the endpoint. */
const MAX_TOKENS = 100_000_000;

/** A token count a reply reported, or null (missing, or not a count: negative, fractional, absurd). */
export function tokenCount(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= MAX_TOKENS ? v : null;
}

/**
 * The tokens of `total_tokens` beyond prompt + completion (0 when the total says no more,
 * or when any of the three counts is missing or unusable).
 */
export function tokensBeyond(u: {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
}): number {
  const p = tokenCount(u.prompt_tokens);
  const c = tokenCount(u.completion_tokens);
  const t = tokenCount(u.total_tokens);
  return p === null || c === null || t === null ? 0 : Math.max(0, t - p - c);
}

/** The completion tokens a reply billed: `completion_tokens` and what `total_tokens` shows beyond it; null when unknown. */
export function billedCompletion(u: {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
}): number | null {
  const c = tokenCount(u.completion_tokens);
  return c === null ? null : c + tokensBeyond(u);
}

/** Requests billed whose usage is unknown, and the worst case each was charged at. */
export interface Unreported {
  /** Requests charged at their worst case: a 200 that reported no usage, or a reply lost on its way (a timeout, a cut body). */
  requests: number;
  prompt: number;
  completion: number;
}

/** The part of the summary's `tokens` that says whether its sums are whole. */
interface TokenBounds {
  in_flight?: { requests: number } | null;
  unreported?: Unreported | null;
  /** Token counts left out of the sums: negative, fractional or absurd. */
  ignored?: number;
}

/**
 * Why a run's token sums (and so its cost) are a lower bound, or null when they are whole:
 * requests were in flight at a stop, token counts were left out as unusable, or replies were
 * billed without saying what (as the run
 * recorded them: an in-process policy bills nothing, and a scored file's replies were billed
 * elsewhere, so a record without usage alone says nothing of what this run paid).
 */
export function incompleteBecause(t: TokenBounds): string | null {
  const reasons: string[] = [];
  const flight = t.in_flight?.requests ?? 0;
  if (flight > 0) reasons.push(`${plural(flight, 'request')} in flight at a stop`);
  const unknown = t.unreported?.requests ?? 0;
  if (unknown > 0) reasons.push(`${plural(unknown, 'reply', 'replies')} without usage`);
  // A count left out was a reply's word on what it used, not to be trusted: what it billed is unknown.
  const ignored = t.ignored ?? 0;
  if (ignored > 0) reasons.push(`${plural(ignored, 'token count')} left out (negative, fractional or absurd)`);
  return reasons.length === 0 ? null : reasons.join(', ');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
