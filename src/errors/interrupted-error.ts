/** A run ended by a signal or a closed output pipe; the exit code is 128 + the signal's number, as a shell gives. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
