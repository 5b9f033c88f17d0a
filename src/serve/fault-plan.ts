/**
 * The fault plan of `bas serve`: which fate a request draws (a fault at its chosen rate, or
 * an answer) and the answer itself, with the usage a provider would bill for it. One draw
 * from the seeded generator per request, so a test sees the same fates for the same order.
 */
import { policyReplier, type PolicyName } from '../task/policies.js';
import type { ChatMessage } from '../task/types.js';
import type { Answer } from './answers.js';
import { isReasoningEffort, type ReasoningEffort } from '../settings/setting-parse.js';

/** The shares of requests that get each fault, and how the server thinks before it answers. */
export interface FaultRates {
  policy: PolicyName;
  errorRate: number;
  rateLimitRate: number;
  hangRate: number;
  malformedRate: number;
  cutRate?: number;
  stallRate?: number;
  reasoningTokens?: number;
  /** The model's own cap on completion tokens (reasoning included), whatever the request asks; 0 or absent: none. */
  maxCompletionTokens?: number;
}

export type Fate = 'hang' | 'error' | 'rate_limit' | 'malformed' | 'cut' | 'stall' | 'ok';

/** Which fault (if any) a draw `u` in [0, 1) lands on: the rates are consecutive slices. */
export function drawFate(u: number, o: FaultRates): Fate {
  if ((u -= o.hangRate) < 0) return 'hang';
  if ((u -= o.errorRate) < 0) return 'error';
  if ((u -= o.rateLimitRate) < 0) return 'rate_limit';
  if ((u -= o.malformedRate) < 0) return 'malformed';
  if ((u -= o.cutRate ?? 0) < 0) return 'cut';
  if ((u -= o.stallRate ?? 0) < 0) return 'stall';
  return 'ok';
}

/** Whether a fate sends (some of) an answer, which is then worked out on arrival. */
export function answers(fate: Fate): boolean {
  return fate === 'ok' || fate === 'cut' || fate === 'stall';
}

/** Each server's policy, numbering its replies to each prompt (`slips` answers each differently). */
const repliers = new WeakMap<FaultRates, (messages: readonly ChatMessage[]) => string>();

/**
 * How many times `--reasoning-tokens` a reasoning model thinks at each `reasoning_effort`
 * (the setting's own count at `medium`, or when no effort is sent, or one bas does not know),
 * so a sweep over the effort sees the thinking, and its cost, change.
 */
const EFFORT_SCALE = {
  none: 0,
  minimal: 0.25,
  low: 0.5,
  medium: 1,
  high: 2,
  xhigh: 4,
} as const satisfies Record<ReasoningEffort, number>;

/**
 * The policy's reply to `messages` and its usage; a token is about four characters. As a
 * reasoning model it thinks as its `reasoning_effort` says (EFFORT_SCALE), and the request's token `limit` (or the model's own cap, the tighter of the two)
 * caps reasoning and reply together: a limit at or below the reasoning budget leaves empty
 * content, cut by the limit. Without reasoning, the cap cuts the reply.
 */
export function answerFor(
  o: FaultRates,
  messages: ChatMessage[],
  limit: number | null,
  effort: string | null = null,
): Answer {
  let replier = repliers.get(o);
  if (replier === undefined) repliers.set(o, (replier = policyReplier(o.policy)));
  const reply = replier(messages);
  let promptChars = 0;
  for (const m of messages) promptChars += m.content.length;
  const prompt_tokens = Math.ceil(promptChars / 4);
  const a: Answer = {
    reply,
    reasoning: null,
    finish: 'stop',
    usage: { prompt_tokens, completion_tokens: Math.ceil(reply.length / 4), total_tokens: 0 },
  };
  const scale = effort !== null && isReasoningEffort(effort) ? EFFORT_SCALE[effort] : EFFORT_SCALE.medium;
  const thinks = Math.round((o.reasoningTokens ?? 0) * scale);
  // The tighter of the request's limit and the model's own.
  const own = o.maxCompletionTokens ? o.maxCompletionTokens : null;
  const cap = Math.min(limit ?? Number.POSITIVE_INFINITY, own ?? Number.POSITIVE_INFINITY);
  if (thinks > 0) {
    const thought = Math.min(thinks, cap);
    a.reasoning = `Checking the ledger row by row (${thought} tokens of reasoning).`;
    if (thought + a.usage.completion_tokens > cap) {
      a.finish = 'length';
      a.reply = reply.slice(0, Math.max(0, cap - thought) * 4);
      a.usage.completion_tokens = cap;
    } else {
      a.usage.completion_tokens += thought;
    }
    a.usage.completion_tokens_details = { reasoning_tokens: thought };
  } else if (a.usage.completion_tokens > cap) {
    a.finish = 'length';
    a.reply = reply.slice(0, cap * 4);
    a.usage.completion_tokens = cap;
  }
  a.usage.total_tokens = prompt_tokens + a.usage.completion_tokens;
  return a;
}
