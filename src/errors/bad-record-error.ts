import { ConfigError } from './config-error.js';

/** A line of a results file that is not a rollout record (and not a torn last line); `line` is 1-based. */
export class BadRecordError extends ConfigError {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}
