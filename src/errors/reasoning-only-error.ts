import { MalformedResponseError } from './malformed-response-error.js';

/**
 * The model reasoned (a `reasoning_content` or `reasoning` field) but left the content empty:
 * usually the token limit ran out while it was still thinking.
 */
export class ReasoningOnlyError extends MalformedResponseError {
  override name = 'ReasoningOnlyError';
}
