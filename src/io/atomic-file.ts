/**
 * The one way bas writes a file: into a temporary file beside the target, every byte
 * checked (a short write is continued, a failed one is an error), flushed, then renamed over
 * the target. A reader sees the old file or the new one, never half of one; on any failure
 * the old file stays as it was and the temporary file is removed.
 *
 * Temporary files and folders still open are listed here, so that Ctrl-C or a kill removes
 * them before the process ends (`trackTemp`).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError, fileError } from '../errors/index.js';
import { beforeSignalDeath } from './std.js';
import { linkRefusal } from './open-file.js';
import { redact } from './secrets.js';

/** Temporary paths this process made and has not yet committed or removed: path -> is a folder. */
const liveTemps = new Map<string, boolean>();

function removeLiveTemps(): void {
  for (const [path, folder] of liveTemps) {
    try {
      // Our own temporary name, made by us with O_EXCL/mkdir: never a path a user named.
      if (folder) rmSync(path, { recursive: true, force: true });
      else unlinkSync(path);
    } catch {
      // Best effort while the process is being stopped.
    }
  }
  liveTemps.clear();
  // Each stop handler runs once: a temporary file made after this (a process that lives on) registers anew.
  stopCleaning?.();
  stopCleaning = null;
}

/** Undoes `beforeSignalDeath`, while some temporary path lives. */
let stopCleaning: (() => void) | null = null;

/**
 * Records a temporary path, so that Ctrl-C or SIGTERM removes it before the process dies of
 * the signal (src/io/std.ts, the one owner of stop signals, decides when that is: never for a
 * program hosting the CLI); `forgetTemp` when it is committed or removed. The cleanup is
 * registered exactly while some temporary path lives, so a finished command leaves nothing.
 */
export function trackTemp(path: string, folder: boolean): void {
  liveTemps.set(path, folder);
  stopCleaning ??= beforeSignalDeath(removeLiveTemps);
}
export function forgetTemp(path: string): void {
  if (liveTemps.delete(path) && liveTemps.size === 0) {
    stopCleaning?.();
    stopCleaning = null;
  }
}

/** A name beside `target` (a file or a folder) that no one else uses: dot-prefixed, with pid and random part. */
export function tempNameFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Writes all of `bytes` to `fd`: continues after a short write, fails when nothing moves. */
export function writeFully(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) {
    const n = writeSync(fd, bytes, done, bytes.length - done);
    if (n <= 0) throw Object.assign(new Error('the write made no progress'), { code: 'EIO' });
    done += n;
  }
}

/** How a file is made, past its name. */
export interface AtomicOptions {
  /** The new file's permissions before the umask (0o600 for a file only its user may read). */
  mode?: number;
}

/**
 * A file being written: `write` as often as needed, then `commit` or `abort`.
 *
 * A regular file (or a new name) is written beside itself and renamed over at `commit`. A
 * symbolic link is followed, so the file it points to is the one replaced and the link stays
 * a link. Anything else that is not a folder (a FIFO, `/dev/stdout`, a terminal) cannot be
 * replaced without destroying it, so it is written directly, as a shell's `>` would.
 *
 * With `noFollow` (the files bas names itself in a run folder) a link is refused instead, and
 * the rename replaces the name itself: a link put there after the check is replaced, never
 * written through, since rename() does not follow its target.
 */
export class AtomicFile {
  private fd: number | null;
  /** Null when writing straight into a FIFO or a device. */
  private readonly temp: string | null;

  /** `label` names the file in errors (a flag such as `--out`, or nothing). */
  constructor(
    readonly path: string,
    private readonly label?: string,
    noFollow = false,
    { mode = 0o666 }: AtomicOptions = {},
  ) {
    const named = label ? `${label} ` : '';
    let target = path;
    let st = statOrNull(path, lstatSync);
    if (st?.isSymbolicLink() && noFollow) throw linkRefusal(path);
    if (st?.isSymbolicLink()) {
      try {
        target = realpathSync(path);
      } catch {
        throw new ConfigError(`${named}${path} is a link to nothing that exists; give a file name`);
      }
      st = statOrNull(target, statSync);
    }
    if (st?.isDirectory()) throw new ConfigError(`${named}${path} is a folder; give a file name`);
    // A FIFO or a device where a run folder's file belongs is not written into either.
    if (noFollow && st !== null && !st.isFile() && !st.isDirectory())
      throw new ConfigError(`${named}${path} is not a regular file; bas keeps only regular files in a run folder`);
    const direct = st !== null && !st.isFile();
    this.temp = direct ? null : tempNameFor(target);
    this.target = target;
    // Tracked before it is made (and forgotten at once if that fails): a stop signal just
    // after the open finds the cleanup in place, not the default action that leaves the file.
    if (this.temp) trackTemp(this.temp, false);
    try {
      this.fd = openSync(this.temp ?? target, this.temp ? 'wx' : 'w', mode);
    } catch (err) {
      if (this.temp) forgetTemp(this.temp);
      throw fileError('write', path, err, label);
    }
  }

  /** Where the bytes end up: the path itself, or the file a link points to. */
  private readonly target: string;

  /** Appends text or bytes; on failure the temporary file is removed and the error names the target. */
  write(data: string | Uint8Array): void {
    if (this.fd === null) throw new Error(`${this.path} is already closed`);
    try {
      // Text passes the one redaction here, whatever wrote it: no file bas writes shows a
      // registered key (a page, a table, a kept report), however the run it shows was written.
      writeFully(this.fd, typeof data === 'string' ? Buffer.from(redact(data), 'utf8') : data);
    } catch (err) {
      this.abort();
      throw fileError('write', this.path, err, this.label);
    }
  }

  /** Flushes to disk and renames over the target. */
  commit(): void {
    if (this.fd === null) throw new Error(`${this.path} is already closed`);
    const fd = this.fd;
    try {
      if (this.temp === null) {
        // A FIFO or a device: nothing to flush to a disk, nothing to rename.
        this.fd = null;
        closeSync(fd);
        return;
      }
      fsyncSync(fd);
      closeSync(fd);
      this.fd = null;
      renameSync(this.temp, this.target);
      forgetTemp(this.temp);
    } catch (err) {
      this.abort();
      throw fileError('write', this.path, err, this.label);
    }
  }

  /** Discards what was written; the target is left as it was. Safe to call twice. */
  abort(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // Already unusable; removing the file is what matters.
      }
      this.fd = null;
    }
    if (this.temp === null) return;
    rmSync(this.temp, { force: true });
    forgetTemp(this.temp);
  }
}

function statOrNull(path: string, how: typeof statSync): Stats | null {
  try {
    return how(path);
  } catch {
    return null;
  }
}

/**
 * Replaces `path` with `data` (text, or parts written one after another) in one go,
 * atomically: run.json, the reply cache's entries, `bas view`'s kept indexes. `noFollow`
 * refuses a link at `path` rather than writing the file it points to; `options` as AtomicFile's.
 * On any failure, a part that cannot be made included, nothing is left but the old file.
 */
export function writeFileAtomic(
  path: string,
  data: string | Iterable<Uint8Array>,
  label?: string,
  noFollow = false,
  options?: AtomicOptions,
): void {
  const file = new AtomicFile(path, label, noFollow, options);
  try {
    for (const part of typeof data === 'string' ? [data] : data) file.write(part);
    file.commit();
  } catch (err) {
    file.abort();
    throw err;
  }
}
