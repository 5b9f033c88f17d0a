/**
 * The base of every error bas names, and the four that end a command. A user of the API
 * catches `BasError` and branches on `code`; the CLI prints the message of any `BasError`
 * alone and exits with its `exitCode`.
 */

/** The stable code of each error class: what a caller may branch on (messages may change). */
export type BasErrorCode =
  | 'BAS_CONFIG'
  | 'BAS_FATAL'
  | 'BAS_ERROR_RATE'
  | 'BAS_BUDGET'
  | 'BAS_INTERRUPTED'
  | 'BAS_INPUT_LINE'
  | 'BAS_TASK_SHAPE'
  | 'BAS_BAD_RECORD'
  | 'BAS_FILE_TOO_LARGE'
  | 'BAS_MALFORMED_RESPONSE'
  | 'BAS_REASONING_ONLY'
  | 'BAS_RESPONSE_TOO_LARGE'
  | 'BAS_STREAM_CUT'
  | 'BAS_STREAM_IDLE'
  | 'BAS_STREAM_REPORTED'
  | 'BAS_LABEL'
  | 'BAS_REQUEST';

/**
 * An error of the user, the endpoint or the run, never a bug of bas: `code` says which kind
 * (stable across versions), `exitCode` is what the CLI exits with when it ends a command.
 * Anything thrown that is not a `BasError` (nor a system error) is a bug.
 */
export abstract class BasError extends Error {
  abstract readonly code: BasErrorCode;
  abstract readonly exitCode: number;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input from the user: a flag, a config file, a task or reply file. Exit code 2. */
export class ConfigError extends BasError {
  readonly code: BasErrorCode = 'BAS_CONFIG';
  readonly exitCode: number = 2;
}

/** A run that cannot go on (bad credentials, unknown model, a failing disk). Exit code 1. */
export class FatalRunError extends BasError {
  readonly code: BasErrorCode = 'BAS_FATAL';
  readonly exitCode: number = 1;
}

/** A run that finished with more errored rollouts than `--max-error-rate` allows, or none completed. Exit code 3. */
export class ErrorRateError extends BasError {
  readonly code: BasErrorCode = 'BAS_ERROR_RATE';
  readonly exitCode: number = 3;
}

/** A run stopped because its next request would not have fitted in --max-cost / --max-total-tokens. Exit code 4. */
export class BudgetError extends BasError {
  readonly code: BasErrorCode = 'BAS_BUDGET';
  readonly exitCode: number = 4;
}

/** A run ended by a signal or a closed output pipe; the exit code is 128 + the signal's number, as a shell gives. */
export class InterruptedError extends BasError {
  readonly code: BasErrorCode = 'BAS_INTERRUPTED';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
