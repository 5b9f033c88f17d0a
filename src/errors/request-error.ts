/** A request the reward server refuses: `status` is the HTTP status, the message says what to fix. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
