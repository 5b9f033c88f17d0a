/**
 * Reading a chat completion body: what `bas eval` gets from the SDK, what `bas check` grades
 * and what a batch engine writes into its output file. No SDK here, so reading batch output
 * loads none.
 */
import { MalformedResponseError, ReasoningOnlyError, type ReplyFault, type TokenUsage } from '../errors/index.js';
import { outsideText } from '../io/outside-text.js';
import { tokenCount } from '../summary/billed.js';
import type { RateLimits } from './retry-after.js';

/** Token counts as the endpoint reported them (declared with the error that carries them). */
export type Usage = TokenUsage;
export type { ReplyFault };

/** A reply worth scoring. */
export interface Completion {
  text: string;
  finish_reason: string | null;
  usage: Usage | null;
  /**
   * The reply's `x-ratelimit-*` headers, read once, when it sent any: the budgets the pace learns
   * a rate from, and whether one is used up (`spent`: the run slows down).
   */
  rate_limits?: RateLimits | null;
  /** Gives the reply's memory back to the budget for replies (reply-budget.ts) once it is recorded. */
  release?: () => void;
  /** Streamed replies: ms from the start of the attempt to the first content or reasoning token. */
  ttft_ms?: number | null;
  /** Set when the reply came from the response cache (`--cache`): how long it took when first received. */
  cached?: { latency_ms: number | null; ttft_ms: number | null };
}

function field(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
}

/** The reasoning text a reply carries, under either name servers use for it. */
function reasoningOf(message: Record<string, unknown> | undefined): string {
  for (const key of ['reasoning_content', 'reasoning']) {
    const v = message?.[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return '';
}

/** The `usage` object of a completion body, or null when it has none. */
function readUsage(u: unknown): Usage | null {
  if (u === null || typeof u !== 'object' || Array.isArray(u)) return null;
  const prompt = tokenCount(field(u, 'prompt_tokens'));
  const completion = tokenCount(field(u, 'completion_tokens'));
  const total = tokenCount(field(u, 'total_tokens'));
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    // Some servers leave the total out (or send one out of range); it is the sum of the other two by definition.
    total_tokens: total ?? (prompt !== null && completion !== null ? prompt + completion : null),
  };
  // Kept only where reported, so records of endpoints that do not report them stay as they were.
  const reasoning = tokenCount(field(field(u, 'completion_tokens_details'), 'reasoning_tokens'));
  if (reasoning !== null) usage.reasoning_tokens = reasoning;
  const cached =
    tokenCount(field(field(u, 'prompt_tokens_details'), 'cached_tokens')) ??
    tokenCount(field(u, 'prompt_cache_hit_tokens'));
  if (cached !== null) usage.cached_tokens = cached;
  return usage;
}

/**
 * The sum of two attempts' usage: a count is summed where either reported it, and an
 * optional one (reasoning, cached) is kept only when one of them had it. Null + null is null.
 */
export function addUsage(a: Usage | null, b: Usage | null): Usage | null {
  if (a === null) return b;
  if (b === null) return a;
  const sum = (x: number | null | undefined, y: number | null | undefined): number | null =>
    x == null && y == null ? null : (x ?? 0) + (y ?? 0);
  const out: Usage = {
    prompt_tokens: sum(a.prompt_tokens, b.prompt_tokens),
    completion_tokens: sum(a.completion_tokens, b.completion_tokens),
    total_tokens: sum(a.total_tokens, b.total_tokens),
  };
  const reasoning = sum(a.reasoning_tokens, b.reasoning_tokens);
  if (reasoning !== null) out.reasoning_tokens = reasoning;
  const cached = sum(a.cached_tokens, b.cached_tokens);
  if (cached !== null) out.cached_tokens = cached;
  return out;
}

/** Everything a completion body says about its reply, read without throwing. */
export interface ReplyView {
  /** The reply text; null when there is none worth scoring. */
  text: string | null;
  finish_reason: string | null;
  usage: Usage | null;
  /** Characters of reasoning text the reply carried (0 when none or hidden by the provider). */
  reasoning_chars: number;
  /** Why the reply cannot be scored; null when it can. */
  fault: ReplyFault | null;
  /** The fault in words, with what to change; null when there is none. */
  problem: string | null;
}

/** A count with thousands grouped: `4,096`. */
export function grouped(n: number): string {
  return n.toLocaleString('en-US');
}

/** What the token limit was spent on, for a reply cut before any content. */
function spentOn(usage: Usage | null, reasoned: boolean): string {
  const done = usage?.completion_tokens ?? null;
  const reasoning = usage?.reasoning_tokens ?? null;
  if (done === null)
    return reasoned ? 'the token limit ran out while it was reasoning' : 'the token limit ran out before any reply';
  if (reasoning !== null && reasoning >= done)
    return `the model spent all ${grouped(done)} completion tokens reasoning`;
  if (reasoning !== null && reasoning > 0)
    return `the token limit ran out after ${grouped(done)} tokens (${grouped(reasoning)} of them reasoning) before any reply`;
  return `the token limit ran out after ${grouped(done)} tokens${reasoned ? ' while it was reasoning' : ''}, before any reply`;
}

/**
 * Reads a chat completion by hand: compatible servers return all sorts, and the SDK passes
 * the parsed body through unchecked (or a string when it was not JSON). Never throws.
 */
export function inspectReply(response: unknown, request?: Record<string, unknown>): ReplyView {
  const view: ReplyView = {
    text: null,
    finish_reason: null,
    usage: null,
    reasoning_chars: 0,
    fault: null,
    problem: null,
  };
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    // Redacted before it is cut (outsideText): a cut first could keep most of an echoed key.
    const seen = typeof response === 'string' ? `: "${outsideText(response, 80)}"` : '';
    return { ...view, fault: 'shape', problem: `the body is not a JSON object${seen}` };
  }
  const r = response as { choices?: unknown; usage?: unknown };
  view.usage = readUsage(r.usage);
  if (!Array.isArray(r.choices) || r.choices.length === 0)
    return { ...view, fault: 'shape', problem: 'no choices in the response' };
  const choice = r.choices[0] as {
    message?: { content?: unknown; refusal?: unknown; [k: string]: unknown };
    finish_reason?: unknown;
  } | null;
  const finish = typeof choice?.finish_reason === 'string' ? choice.finish_reason : null;
  view.finish_reason = finish;
  const reasoning = reasoningOf(choice?.message);
  view.reasoning_chars = reasoning.length;
  const content = choice?.message?.content;
  if (typeof content === 'string' && content.trim() !== '') return { ...view, text: content };
  const cut = finish === 'length';
  const advice = `${tokenAdvice(request)} or lower --reasoning-effort`;
  if (reasoning) {
    // The reasoning's length is left out of the message: the same cause reads the same on every rollout.
    const why = cut
      ? ` (finish_reason "length": ${spentOn(view.usage, true)}; ${advice})`
      : ' (the server may be putting the whole reply in its reasoning field: check its reasoning parser)';
    return {
      ...view,
      fault: cut ? 'cut_empty' : 'reasoning_only',
      problem: `the reply has reasoning but no content${why}`,
    };
  }
  if (typeof choice?.message?.refusal === 'string' && choice.message.refusal)
    return { ...view, fault: 'refused', problem: `the model refused: ${outsideText(choice.message.refusal, 200)}` };
  if (cut)
    return {
      ...view,
      fault: 'cut_empty',
      problem: `empty content (finish_reason "length": ${spentOn(view.usage, false)}; ${advice})`,
    };
  // Some providers hide the reasoning text but count its tokens.
  const hidden = view.usage?.reasoning_tokens ?? 0;
  const after = hidden > 0 ? ` after ${grouped(hidden)} reasoning tokens` : '';
  return { ...view, fault: 'empty', problem: `empty content${after}` };
}

/**
 * What to do about a token limit that ran out, by what the request sent: a limit to raise, or
 * none (the endpoint's own default ran out), or, for a request not at hand, either.
 */
function tokenAdvice(request: Record<string, unknown> | undefined): string {
  if (request === undefined) return 'raise --max-tokens';
  const sent = tokenCount(request.max_tokens) ?? tokenCount(request.max_completion_tokens);
  return sent === null
    ? "set --max-tokens higher than the endpoint's default"
    : `raise --max-tokens (now ${grouped(sent)})`;
}

/**
 * The reply to score, or a typed error (carrying the reply's usage) when there is none.
 * `request` (the body sent) words the advice for a reply the token limit cut.
 */
export function readCompletion(response: unknown, request?: Record<string, unknown>): Completion {
  const v = inspectReply(response, request);
  if (v.text === null) {
    const extra = { fault: v.fault, usage: v.usage, finishReason: v.finish_reason };
    const message = v.problem ?? 'empty content';
    throw v.fault === 'reasoning_only' || (v.fault === 'cut_empty' && v.reasoning_chars > 0)
      ? new ReasoningOnlyError(message, extra)
      : new MalformedResponseError(message, extra);
  }
  return { text: v.text, finish_reason: v.finish_reason, usage: v.usage };
}
