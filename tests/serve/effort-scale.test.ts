/**
 * `bas serve --reasoning-tokens R` thinks R times its effort's scale: 0 at `none` up to 4R at
 * `xhigh`, R at `medium`, when no effort is sent, and for an effort bas does not know (even
 * one named like a property every object has).
 */
import { describe, expect, it } from 'vitest';
import { answerFor, type FaultRates } from '../../src/serve/fault-plan.js';
import { DEFAULT_TASK_CONFIG } from '../../src/task/config.js';
import { generateTask } from '../../src/task/generate.js';

const rates: FaultRates = {
  policy: 'oracle',
  errorRate: 0,
  rateLimitRate: 0,
  hangRate: 0,
  malformedRate: 0,
  reasoningTokens: 1000,
};
const messages = generateTask(DEFAULT_TASK_CONFIG, 0).prompt;
const thought = (effort: string | null) =>
  answerFor(rates, messages, null, effort).usage.completion_tokens_details?.reasoning_tokens ?? 0;

describe('the reasoning a served model does at each effort', () => {
  it.each([
    ['none', 0],
    ['minimal', 250],
    ['low', 500],
    ['medium', 1000],
    ['high', 2000],
    ['xhigh', 4000],
    [null, 1000],
    ['turbo', 1000],
    ['constructor', 1000],
    ['toString', 1000],
    ['__proto__', 1000],
  ])('%s: %d tokens', (effort, tokens) => {
    const a = answerFor(rates, messages, null, effort);
    expect(thought(effort)).toBe(tokens);
    expect(a.usage.total_tokens).toBe(a.usage.prompt_tokens + a.usage.completion_tokens);
    expect(Number.isInteger(a.usage.total_tokens)).toBe(true);
  });
});
