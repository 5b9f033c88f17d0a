import { BasError } from './bas-error.js';
import { fileErrorMessage, systemErrorCode } from './files.js';

/** What the CLI prints for an error that ended a command, and the exit code. */
export interface ErrorReport {
  /** One line, without the `bas: ` prefix; outside text in it is made safe by the printer. */
  line: string;
  exitCode: number;
  /** True for a bug of bas: the stack is worth showing (under BAS_DEBUG=1). */
  internal: boolean;
}

/**
 * Sorts an error that reached the top into the user's or the endpoint's (a `BasError`, with
 * its own exit code, or a system error such as a full disk, said in words with its path) and a
 * bug of bas, which is said to be one, never passed off as bad input.
 */
export function describeError(err: unknown): ErrorReport {
  if (err instanceof BasError) return { line: err.message, exitCode: err.exitCode, internal: false };
  const e = err as { message?: unknown; path?: unknown; syscall?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (systemErrorCode(err) !== null) {
    // A system error that no command put into words still gets one line with path and cause.
    const line =
      typeof e?.path === 'string'
        ? fileErrorMessage(typeof e.syscall === 'string' ? e.syscall : 'use', e.path, err)
        : message;
    return { line, exitCode: 1, internal: false };
  }
  return {
    line: `internal error (a bug in bas, please report it; BAS_DEBUG=1 shows where): ${message.split('\n', 1)[0]}`,
    exitCode: 1,
    internal: true,
  };
}
