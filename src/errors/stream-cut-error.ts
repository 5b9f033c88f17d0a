/** A streamed reply ended, or its connection closed, before it was complete (retried as `network`). */
export class StreamCutError extends Error {
  override name = 'StreamCutError';
}
