/** A run that finished with more errored rollouts than `--max-error-rate` allows, or none completed. Exit code 3. */
export class ErrorRateError extends Error {
  override name = 'ErrorRateError';
  readonly exitCode = 3;
}
