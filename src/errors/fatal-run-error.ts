/** A run that cannot go on (bad credentials, unknown model). Exit code 1. */
export class FatalRunError extends Error {
  override name = 'FatalRunError';
  readonly exitCode = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
