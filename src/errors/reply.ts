/**
 * Replies of an endpoint that cannot be used. The rollout's classifier (endpoint/classify.ts)
 * turns each into an error type of the record; should one end a command, it is the endpoint's
 * failure, exit code 1.
 */
import { BasError, type BasErrorCode } from './bas-error.js';

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
export class MalformedResponseError extends BasError {
  readonly code: BasErrorCode = 'BAS_MALFORMED_RESPONSE';
  readonly exitCode: number = 1;
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

/**
 * The model reasoned (a `reasoning_content` or `reasoning` field) but left the content empty:
 * usually the token limit ran out while it was still thinking.
 */
export class ReasoningOnlyError extends MalformedResponseError {
  override readonly code: BasErrorCode = 'BAS_REASONING_ONLY';
}

/** A response body passed the cap; the connection was closed without reading the rest. */
export class ResponseTooLargeError extends BasError {
  readonly code: BasErrorCode = 'BAS_RESPONSE_TOO_LARGE';
  readonly exitCode: number = 1;
  constructor(readonly limitBytes: number) {
    super(`the response body passed the ${describeBytes(limitBytes)} cap on responses; the connection was closed`);
  }
}

function describeBytes(n: number): string {
  if (n >= 1048576 && n % 1048576 === 0) return `${n / 1048576} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n}-byte`;
}

/** A streamed reply ended, or its connection closed, before it was complete (retried as `network`). */
export class StreamCutError extends BasError {
  readonly code: BasErrorCode = 'BAS_STREAM_CUT';
  readonly exitCode: number = 1;
  /** @param chunks the pieces of the reply that had come (0: the stream closed before its first). */
  constructor(
    message: string,
    readonly chunks: number,
  ) {
    super(message);
  }
}

/** Nothing arrived for the idle timeout in the middle of a streamed reply (a `timeout`). */
export class StreamIdleError extends BasError {
  readonly code: BasErrorCode = 'BAS_STREAM_IDLE';
  readonly exitCode: number = 1;
}

/** A streamed reply carried an error object instead of a chunk (a `provider` failure). */
export class StreamReportedError extends BasError {
  readonly code: BasErrorCode = 'BAS_STREAM_REPORTED';
  readonly exitCode: number = 1;
}
