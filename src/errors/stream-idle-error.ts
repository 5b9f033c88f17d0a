/** Nothing arrived for the idle timeout in the middle of a streamed reply (a `timeout`). */
export class StreamIdleError extends Error {
  override name = 'StreamIdleError';
}
