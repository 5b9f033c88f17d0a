/** Bad input from the user: a flag, a config file, a task or reply file. Exit code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly exitCode = 2;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
