/**
 * What a run spent beside its records (run.json's sessions keep it): the usage of rollouts
 * never recorded, the requests abandoned in flight and the replies billed without usage, and
 * the summary with them added.
 */
import type { Unreported } from './billed.js';
import type { InFlight, Summary, TokenSums } from './summary.js';
import { plusTokens } from './token-sums.js';

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
  return {
    ...summary,
    tokens: {
      ...plusTokens(t, u),
      unscored: { ...plusTokens(t.unscored, u), lines: t.unscored.lines + u.lines },
      unrecorded: { ...u },
      in_flight: { ...spend.in_flight },
      unreported: { ...(spend.unreported ?? { requests: 0, prompt: 0, completion: 0 }) },
    },
  };
}
