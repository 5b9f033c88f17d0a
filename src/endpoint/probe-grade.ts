/**
 * Grading the check's reply as a rollout's would be graded, and judging from it whether a run
 * with these settings can succeed: a reply that is empty, cut by the token limit or without
 * an answer the scorer can read gets advice on what to change. A wrong answer is no reason:
 * that is what the run measures.
 */
import { scoreReply } from '../task/score.js';
import type { AnswerKey } from '../task/types.js';
import type { Sampling } from '../settings/setting-table.js';
import { grouped, type ReplyView } from './completion.js';

/** A reply to the check's task, as a rollout would see it. */
export interface GradedReply {
  finishReason: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Null when the endpoint does not report the split. */
  reasoningTokens: number | null;
  /** Completion tokens less reasoning tokens; null when the split is not reported. */
  contentTokens: number | null;
  contentChars: number;
  reasoningChars: number;
  /** True when the scorer found an answer it could read. */
  parsed: boolean;
  /** Why the answer could not be read (no reply, no answer block, bad JSON …). */
  unparsed: string | null;
  /** The rollout's reward; null when there was no reply to score (the rollout would error). */
  reward: number | null;
}

/** Grades a 200's body against the task's key, as the runner would score it. */
export function grade(view: ReplyView, key: AnswerKey): GradedReply {
  const u = view.usage;
  const completion = u?.completion_tokens ?? null;
  const reasoning = u?.reasoning_tokens ?? null;
  const scores = view.text === null ? null : scoreReply(view.text, key);
  return {
    finishReason: view.finish_reason,
    promptTokens: u?.prompt_tokens ?? null,
    completionTokens: completion,
    reasoningTokens: reasoning,
    contentTokens: completion !== null && reasoning !== null ? Math.max(0, completion - reasoning) : null,
    contentChars: view.text?.length ?? 0,
    reasoningChars: view.reasoning_chars,
    parsed: scores?.metrics.parsed === 1,
    unparsed: scores === null ? (view.problem ?? 'no reply') : (scores.detail.unparseable ?? null),
    reward: scores?.reward ?? null,
  };
}

/**
 * Why a run with these settings cannot succeed, judged from the check's reply, with what to
 * change; null when it can. A wrong answer is not a reason: that is what the run measures.
 */
export function adviceFor(view: ReplyView, g: GradedReply, sampling: Sampling): string | null {
  const limit =
    sampling.max_tokens === null
      ? "set --max-tokens higher than the endpoint's default"
      : `raise --max-tokens (now ${grouped(sampling.max_tokens)})`;
  const effort =
    sampling.reasoning_effort !== null ? ` or lower --reasoning-effort (now ${sampling.reasoning_effort})` : '';
  const cut = g.finishReason === 'length';
  if (view.text === null) {
    switch (view.fault) {
      case 'cut_empty': {
        const done = g.completionTokens;
        if (done !== null && g.reasoningTokens !== null && g.reasoningTokens >= done)
          return `the model spent all ${grouped(done)} tokens reasoning and wrote no reply: ${limit}${effort}`;
        if (view.reasoning_chars > 0)
          return `the token limit ran out while the model was reasoning, before any reply: ${limit}${effort}`;
        return `the token limit ran out before any reply${done !== null ? ` (${grouped(done)} tokens)` : ''}: ${limit}${effort}`;
      }
      case 'reasoning_only':
        return "the reply is all reasoning and no content: check the server's reasoning parser or chat template";
      case 'empty':
        return g.reasoningTokens
          ? `the model reasoned for ${grouped(g.reasoningTokens)} tokens but wrote no reply: check the model and its chat template`
          : 'the model sent an empty reply: check the model and its chat template';
      case 'refused':
        return `the model refused the task (${view.problem ?? 'no reason given'})`;
      default:
        return `the reply is not a chat completion (${view.problem ?? 'unreadable'}): is the base URL the API's, ending in /v1?`;
    }
  }
  if (cut)
    return `the reply was cut by the token limit${g.completionTokens !== null ? ` at ${grouped(g.completionTokens)} tokens` : ''}${g.parsed ? '' : ', before its answer'}: ${limit}${effort}`;
  if (!g.parsed)
    return `the reply has no answer the scorer can read (${g.unparsed ?? 'unparsed'}): every rollout like it scores 0; check that the model follows the prompt's answer format`;
  return null;
}
