/**
 * The few named errors of the program. Each message says what was wrong and, where it helps,
 * what to do; the CLI prints the message alone (never a stack) and exits with `exitCode`.
 */

/** Bad input from the user: a flag, a config file, a task or reply file. Exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly exitCode = 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A run that cannot go on (bad credentials, unknown model). Exit code 1. */
export class FatalRunError extends Error {
  override name = 'FatalRunError';
  readonly exitCode = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
