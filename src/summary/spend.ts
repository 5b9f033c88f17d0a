/**
 * What a run spent beside its records (run.json's sessions keep it): the usage of rollouts
 * never recorded, the requests abandoned in flight and the replies billed without usage, and
 * the summary with them added.
 */
import type { Unreported } from './billed.js';
import type { InFlight, Summary, TokenSums } from './summary.js';

/** What a run spent beside its records, as run.json's sessions keep it. */
export interface SpendBeside {
  unrecorded: TokenSums;
  in_flight: InFlight;
  /** Requests billed without usage, charged at their worst case (since 0.4.1; absent before). */
  unreported?: Unreported;
}

/**
 * `summary` with what the run spent beside its records added: the usage of unrecorded
 * rollouts joins the token sums (and the part that bought no score), the requests abandoned
 * in flight are said apart. The summary of the records alone cannot know them.
 */
export function withSpend(summary: Summary, spend: SpendBeside): Summary {
  const t = summary.tokens;
  const u = spend.unrecorded;
  const add = (a: TokenSums): TokenSums => ({
    prompt: a.prompt + u.prompt,
    completion: a.completion + u.completion,
    total: a.total + u.total,
    reasoning: a.reasoning + u.reasoning,
    cached: a.cached + u.cached,
    lines: a.lines + u.lines,
  });
  return {
    ...summary,
    tokens: {
      ...t,
      prompt: t.prompt + u.prompt,
      completion: t.completion + u.completion,
      total: t.total + u.total,
      reasoning: t.reasoning + u.reasoning,
      cached: t.cached + u.cached,
      unscored: add(t.unscored),
      unrecorded: { ...u },
      in_flight: { ...spend.in_flight },
      unreported: { ...(spend.unreported ?? { requests: 0, prompt: 0, completion: 0 }) },
    },
  };
}
