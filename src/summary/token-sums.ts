/**
 * The summary's `tokens`: what the lines of a run reported using, each count checked
 * (billed.ts: only whole numbers from 0 to MAX_TOKENS count), summed apart by what the tokens
 * bought: a winning line paid for, an errored rollout's, a line a later one replaced, a reply
 * from the response cache (this run paid nothing for it), a rollout after a stopping rule's
 * last task.
 */
import { tokenCount, tokensBeyond } from './billed.js';
import type { Summary, SummaryRecord, TokenSums } from './summary.js';

/** prompt, completion, total, reasoning, cached, and the completion tokens billed beyond them (billed.ts). */
const N_TOK = 6;

/** The five token counts of a sum (TokenSums without its lines). */
type TokenCounts = Pick<TokenSums, 'prompt' | 'completion' | 'total' | 'reasoning' | 'cached'>;

/** `a` with `b`'s five token counts added to its own; every other field of `a` as it was. */
export function plusTokens<T extends TokenCounts>(a: T, b: TokenCounts): T {
  return {
    ...a,
    prompt: a.prompt + b.prompt,
    completion: a.completion + b.completion,
    total: a.total + b.total,
    reasoning: a.reasoning + b.reasoning,
    cached: a.cached + b.cached,
  };
}

/** The five counts of a TokenTotals' sums. */
function countsOf(s: Float64Array): TokenCounts {
  return { prompt: s[0]!, completion: s[1]!, total: s[2]!, reasoning: s[3]!, cached: s[4]! };
}

/** Token sums over some lines (prompt … cached), with how many lines gave each count. */
class TokenTotals {
  readonly sums = new Float64Array(N_TOK);
  readonly seen = new Float64Array(N_TOK);

  /**
   * Adds a line's counts; returns how many of them were unusable. A line whose total is
   * missing or unusable adds what its usable prompt and completion counts add up to: a
   * reply's absurd completion count (and so its total) once left the total at 0 beneath
   * 13,513 prompt tokens. What was left out is said beside the sums (`ignored`: billed.ts).
   */
  add(u: SummaryRecord['usage']): number {
    if (!u) return 0;
    this.beyond(u);
    const bad =
      this.count(0, u.prompt_tokens) +
      this.count(1, u.completion_tokens) +
      this.count(2, u.total_tokens) +
      this.count(3, u.reasoning_tokens) +
      this.count(4, u.cached_tokens);
    if (tokenCount(u.total_tokens) === null) {
      this.sums[2]! += (tokenCount(u.prompt_tokens) ?? 0) + (tokenCount(u.completion_tokens) ?? 0);
    }
    return bad;
  }

  /** total_tokens beyond prompt + completion: billed (reasoning outside completion_tokens), counted as completion. */
  private beyond(u: NonNullable<SummaryRecord['usage']>): void {
    const extra = tokensBeyond(u);
    this.sums[1]! += extra;
    this.sums[5]! += extra;
  }

  /** Adds count `i` of a line; 1 when it was there but unusable, else 0. */
  private count(i: number, v: unknown): number {
    const n = tokenCount(v);
    if (n !== null) {
      this.sums[i]! += n;
      this.seen[i]!++;
      return 0;
    }
    return v != null ? 1 : 0;
  }

  /** Lines that reported usage: the most lines any one count came from. */
  lines(): number {
    return Math.max(this.seen[0]!, this.seen[1]!, this.seen[2]!);
  }
}

/** A reply served from the response cache: its usage was paid for by an earlier run, not this one. */
function servedFromCache(r: SummaryRecord): boolean {
  return r.cached === true && !r.error;
}

/** The token sums of a run's lines, kept apart by what they bought; `figures()` is the summary's `tokens`. */
export class TokenAccount {
  /** Winning lines paid for by this run. */
  private readonly paid = new TokenTotals();
  /** Of those, the errored rollouts'. */
  private readonly errored = new TokenTotals();
  private readonly replaced = new TokenTotals();
  /** Rollouts answered from the response cache, and their original usage. */
  private readonly cached = new TokenTotals();
  private cachedRollouts = 0;
  /** Rollouts past the stopping rule's last task (paid for, not summarised). */
  private readonly afterStop = new TokenTotals();
  /** Token counts left out because they were negative, fractional or absurd. */
  private ignored = 0;

  /** The winning line of a rollout. */
  addRollout(r: SummaryRecord): void {
    // A cached reply cost this run nothing: its tokens are kept apart, never in what was paid.
    const cached = servedFromCache(r);
    if (cached) this.cachedRollouts++;
    this.ignored += (cached ? this.cached : this.paid).add(r.usage);
    if (r.error) this.errored.add(r.usage);
  }

  /** A line a later line of its pair replaced: its tokens were paid for, so they join the sums. */
  addReplaced(r: SummaryRecord): void {
    // A replaced line answered from the cache was not paid for by this run either.
    if (servedFromCache(r)) return;
    this.ignored += this.replaced.add(r.usage);
  }

  /** A rollout of a task past the stopping rule's last: its tokens were paid, its scores are not summarised. */
  addAfterStop(r: SummaryRecord): void {
    if (servedFromCache(r)) return;
    this.ignored += this.afterStop.add(r.usage);
  }

  /** Token sums over winning lines (all, or the errored ones) and the replaced lines. */
  private sums(winners: TokenTotals): TokenSums {
    const counts = plusTokens(countsOf(winners.sums), countsOf(this.replaced.sums));
    return { ...counts, lines: winners.lines() + this.replaced.lines() };
  }

  /** The rollouts answered from the cache, with their replies' original token sums. */
  private fromCache(): TokenSums & { rollouts: number } {
    return { rollouts: this.cachedRollouts, ...countsOf(this.cached.sums), lines: this.cached.lines() };
  }

  /** The summary's `tokens`, with nothing yet of what the run spent beside its records (spend.ts). */
  figures(): Summary['tokens'] {
    // Rollouts that landed after the rule's stop were paid for: in the sums, not in `unscored`.
    const late = this.afterStop.sums;
    const all = plusTokens(this.sums(this.paid), countsOf(late));
    return {
      prompt: all.prompt,
      completion: all.completion,
      total: all.total,
      reasoning: all.reasoning,
      cached: all.cached,
      rollouts_with_usage: this.paid.lines(),
      ignored: this.ignored,
      unscored: this.sums(this.errored),
      unrecorded: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
      in_flight: { requests: 0, prompt: 0, completion: 0 },
      ...(this.cachedRollouts > 0 ? { from_cache: this.fromCache() } : {}),
      beyond_completion: this.paid.sums[5]! + this.replaced.sums[5]! + late[5]!,
      unreported: { requests: 0, prompt: 0, completion: 0 },
    };
  }
}
