/** Token counts as the endpoint reported them (`Usage` of endpoint/completion.ts). */
export interface TokenUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  /** `completion_tokens_details.reasoning_tokens`: the part of the completion spent reasoning. */
  reasoning_tokens?: number | null;
  /**
   * `prompt_tokens_details.cached_tokens` (DeepSeek: `prompt_cache_hit_tokens`): the part of
   * the prompt served from the provider's cache.
   */
  cached_tokens?: number | null;
}

/**
 * Why a reply that came back whole cannot be scored, by kind. The same kind on every first
 * rollout of a run means the settings are at fault, not chance (engine/first-contact.ts).
 * - `cut_empty`: no content, and `finish_reason` is "length": the token limit ran out first
 *   (usually while the model was reasoning).
 * - `reasoning_only`: reasoning text but no content, the reply not cut.
 * - `empty`: no content and no reasoning, the reply not cut.
 * - `refused`: the model's `refusal` field instead of content.
 * - `shape`: not a chat completion at all (not JSON, no choices).
 */
export type ReplyFault = 'cut_empty' | 'reasoning_only' | 'empty' | 'refused' | 'shape';

/** The endpoint answered 200 with something that is not a usable completion. */
export class MalformedResponseError extends Error {
  override name = 'MalformedResponseError';
  /** What kind of unusable reply it was (null: not known). */
  readonly fault: ReplyFault | null;
  /** The tokens the reply reports: it was paid for even though it cannot be scored. */
  readonly usage: TokenUsage | null;
  /** The reply's `finish_reason`, when it had one ("length": cut by the token limit). */
  readonly finishReason: string | null;
  constructor(
    message: string,
    extra: { fault?: ReplyFault | null; usage?: TokenUsage | null; finishReason?: string | null } = {},
  ) {
    super(message);
    this.fault = extra.fault ?? null;
    this.usage = extra.usage ?? null;
    this.finishReason = extra.finishReason ?? null;
  }
}
