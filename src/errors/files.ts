/**
 * File operations that failed, in words: what was being done, the path, and why. Every
 * command reports file errors through these, so the user never sees a bare code.
 */
import { BasError, ConfigError, FatalRunError, type BasErrorCode } from './bas-error.js';

/** A file past the size its reader accepts; `limit` is that size in bytes. Exit code 2. */
export class FileTooLargeError extends BasError {
  readonly code: BasErrorCode = 'BAS_FILE_TOO_LARGE';
  readonly exitCode: number = 2;
  constructor(
    readonly path: string,
    readonly limit: number,
  ) {
    super(`${path} is larger than ${limit} bytes`);
  }
}

/** What a system error code means, in words a user can act on. */
const SYSTEM_ERROR_WORDS: Readonly<Record<string, string>> = Object.freeze({
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ELOOP: 'too many symbolic links (a link loop?)',
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files on this system',
  EEXIST: 'it already exists',
  ENOTEMPTY: 'the folder is not empty',
  ENAMETOOLONG: 'the name is too long',
  EXDEV: 'it is on another file system',
  EIO: 'input/output error (a failing disk?)',
  EBADF: 'the file is not open for this (bad descriptor)',
  EBUSY: 'the resource is busy',
  EPIPE: 'the reader closed the pipe',
  EAGAIN: 'resource temporarily unavailable',
  EINVAL: 'invalid argument',
});

/** The code of a Node system error, when `err` is one. */
export function systemErrorCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]{2,15}$/.test(code) ? code : null;
}

/**
 * The cause of a failed file operation in words ("no space left on device"), never a bare
 * code or a library's internal text. Unknown codes keep the code, after the words we have.
 */
export function causeInWords(err: unknown): string {
  const code = systemErrorCode(err);
  if (code !== null) return SYSTEM_ERROR_WORDS[code] ?? `system error ${code}`;
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n', 1)[0]!.slice(0, 200);
}

/**
 * One line for a failed file operation: what was being done, the path, and why, e.g.
 * `cannot write out.jsonl: no space left on device`. Every command reports file errors
 * through this, so the user always sees the path and the cause in words.
 */
export function fileErrorMessage(action: string, path: string, err: unknown): string {
  return `cannot ${action} ${path}: ${causeInWords(err)}`;
}

/** A ConfigError (exit 2) when the path was the user's mistake, else a FatalRunError (exit 1). */
export function fileError(action: string, path: string, err: unknown, flag?: string): Error {
  const text = `${flag ? `${flag}: ` : ''}${fileErrorMessage(action, path, err)}`;
  const code = systemErrorCode(err);
  const usersPath =
    code === 'ENOENT' ||
    code === 'ENOTDIR' ||
    code === 'EISDIR' ||
    code === 'ELOOP' ||
    code === 'ENAMETOOLONG' ||
    code === 'EEXIST';
  return usersPath ? new ConfigError(text, { cause: err }) : new FatalRunError(text, { cause: err });
}
