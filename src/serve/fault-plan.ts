/**
 * The fault plan of `bas serve`: which fate a request draws (a fault at its chosen rate, or
 * an answer) and the answer itself, with the usage a provider would bill for it. One draw
 * from the seeded generator per request, so a test sees the same fates for the same order.
 */
import { policyReplier, type PolicyName } from '../task/policies.js';
import type { ChatMessage } from '../task/types.js';
import type { Answer } from './answers.js';

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
 * The policy's reply to `messages` and its usage; a token is about four characters. As a
 * reasoning model, the request's token `limit` caps reasoning and reply together: a limit
 * at or below the reasoning budget leaves empty content, cut by the limit.
 */
export function answerFor(o: FaultRates, messages: ChatMessage[], limit: number | null): Answer {
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
  const thinks = o.reasoningTokens ?? 0;
  if (thinks > 0) {
    const cap = limit ?? Number.POSITIVE_INFINITY;
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
  }
  a.usage.total_tokens = prompt_tokens + a.usage.completion_tokens;
  return a;
}
