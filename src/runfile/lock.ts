/**
 * One process per run folder. Two processes appending to one results file (say, a resume
 * started while the run still goes on) would each re-run the other's rollouts.
 *
 * The lock is the file `.bas.lock`, holding its owner: pid, the process's start time (from
 * /proc where there is one), host and a random token. It comes into being whole: the owner
 * is written to a private file first, which is then hard-linked to `.bas.lock`; link() fails
 * if the name exists, so there is never an empty or half-written lock, and never two.
 *
 * A lock whose owner is gone (`kill -9`, a crash) is taken over. Its owner is gone when the
 * pid is not running, or is running with another start time (the pid was reused, say pid 1
 * in a new container). Taking over is serialised by a second lock, `.bas.lock.takeover`, made
 * the same way: its holder checks that `.bas.lock` still holds the same dead owner before
 * removing it, so a lock another process has just made is never removed by mistake.
 * `release()` removes the lock only while it still holds our own token.
 *
 * Development builds of 0.4.1 ran long evals in a worker thread and wrote its id in the lock
 * (`thread`); such a lock is read like any other, by its process.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { readSmallFile } from '../io/jsonl.js';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFully } from '../io/atomic-file.js';
import { ConfigError, fileError, FileTooLargeError, systemErrorCode } from '../errors/index.js';

import { LOCK_FILE } from './files.js';
const TAKEOVER_SUFFIX = '.takeover';

/** A lock bas writes is one short line; a file far larger is not a lock. */
const MAX_LOCK_BYTES = 4096;

/** Who holds a lock. `start` is null where the system does not tell a process's start time. */
export interface LockOwner {
  program: 'bas';
  pid: number;
  start: string | null;
  host: string;
  token: string;
  since: string;
}

/**
 * The start time of a process, in clock ticks since boot (field 22 of /proc/PID/stat), or
 * null where there is no /proc. The command name in field 2 may hold spaces and brackets,
 * so the fields are counted after the last ')'.
 */
export function processStartTime(pid: number): string | null {
  const fields = statFields(pid);
  // After the name come state (field 3) ... starttime (field 22): index 22 - 3 = 19.
  const start = fields?.[19];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

/** The fields of /proc/PID/stat after the command name (state first), or null where there are none. */
function statFields(pid: number): string[] | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = text.lastIndexOf(')');
  return close < 0 ? null : text.slice(close + 2).split(' ');
}

/**
 * True for a process that has ended but not yet been reaped by its parent (a zombie, state Z,
 * or X while it goes): it answers signals, yet it will never write to the run again.
 */
function ended(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === 'Z' || state === 'X';
}

function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else; ESRCH: gone.
    return systemErrorCode(err) === 'EPERM';
  }
}

/** Reads a lock file: its owner, null when there is no file, 'unreadable' when it holds no owner. */
export function readLockOwner(file: string): LockOwner | null | 'unreadable' {
  let text: string;
  try {
    // Never through a link: a lock that points elsewhere is not one bas made (it links a
    // private file of its own), and is refused rather than read, taken over or removed.
    text = readSmallFile(file, MAX_LOCK_BYTES, true);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (err instanceof FileTooLargeError) return 'unreadable';
    if (systemErrorCode(err) === 'ENOENT') return null;
    throw fileError('read', file, err);
  }
  // Locks of bas 0.2 and earlier hold a bare pid.
  if (/^\s*\d{1,10}\s*$/.test(text))
    return { program: 'bas', pid: Number(text), start: null, host: hostname(), token: text.trim(), since: '' };
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof o.pid === 'number' &&
      Number.isSafeInteger(o.pid) &&
      o.pid > 0 &&
      typeof o.token === 'string' &&
      typeof o.host === 'string'
    ) {
      return {
        program: 'bas',
        pid: o.pid,
        start: typeof o.start === 'string' ? o.start : null,
        host: o.host,
        token: o.token,
        since: String(o.since ?? ''),
      };
    }
  } catch {
    // Falls through: not a lock bas wrote.
  }
  return 'unreadable';
}

/**
 * Whether a lock's owner still runs: 'alive', 'dead', or 'elsewhere' (another host, whose
 * processes we cannot see; treated as alive, since guessing wrong would let two runs mix).
 */
function ownerState(owner: LockOwner): 'alive' | 'dead' | 'elsewhere' {
  if (owner.host !== hostname()) return 'elsewhere';
  if (!pidRunning(owner.pid) || ended(owner.pid)) return 'dead';
  if (owner.start !== null) {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.start) return 'dead';
  }
  return 'alive';
}

/** The state of a folder's lock, for reports: no lock, held by a live process, or left by a dead one. */
export function folderLockState(dir: string): 'none' | 'alive' | 'dead' {
  const owner = readLockOwner(join(dir, LOCK_FILE));
  if (owner === null) return 'none';
  if (owner === 'unreadable') return 'dead';
  return ownerState(owner) === 'dead' ? 'dead' : 'alive';
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Writes the owner to our private name, whole, before it is linked into place. No fsync: after
 * a machine crash every lock is stale anyway, and a flush would cost milliseconds per run.
 */
function writePrivate(file: string, text: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'wx');
    writeFully(fd, Buffer.from(text, 'utf8'));
  } catch (err) {
    if (fd !== null) closeSync(fd);
    fd = null;
    try {
      unlinkSync(file);
    } catch {
      // Never made, or already gone.
    }
    throw fileError('write', file, err);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Links `source` to `target`; false when `target` already exists. */
function linkNew(source: string, target: string): boolean {
  try {
    linkSync(source, target);
    return true;
  } catch (err) {
    if (systemErrorCode(err) === 'EEXIST') return false;
    throw fileError('lock', target, err);
  }
}

/** Removes `file` if it still holds the owner whose token is `token`. */
function removeIfHeldBy(file: string, token: string): void {
  const now = readLockOwner(file);
  if (now !== null && now !== 'unreadable' && now.token === token) unlinkSync(file);
}

/** A held lock on a run folder. */
export class FolderLock {
  private held = true;

  private constructor(
    readonly dir: string,
    readonly owner: LockOwner,
  ) {}

  /** Takes the lock on `dir`, or throws a ConfigError naming the process that holds it. */
  static acquire(dir: string): FolderLock {
    const me: LockOwner = {
      program: 'bas',
      pid: process.pid,
      start: processStartTime(process.pid),
      host: hostname(),
      token: randomBytes(12).toString('hex'),
      since: new Date().toISOString(),
    };
    const file = join(dir, LOCK_FILE);
    const mine = join(dir, `${LOCK_FILE}.${me.token}`);
    writePrivate(mine, `${JSON.stringify(me)}\n`);
    try {
      for (let attempt = 0; attempt < 50; attempt++) {
        if (linkNew(mine, file)) return new FolderLock(dir, me);
        const owner = readLockOwner(file);
        if (owner === null) continue; // released meanwhile: try again
        if (owner !== 'unreadable') {
          const state = ownerState(owner);
          if (state === 'alive')
            throw new ConfigError(
              `${dir} is in use by another bas process (pid ${owner.pid}); wait for it to end, or stop it first`,
            );
          if (state === 'elsewhere') {
            throw new ConfigError(
              `${dir} is in use by bas on host ${owner.host} (pid ${owner.pid}); if that process is gone, delete ${file}`,
            );
          }
        }
        takeOver(file, owner === 'unreadable' ? null : owner.token, mine);
      }
    } finally {
      try {
        unlinkSync(mine);
      } catch {
        // Our private name; nothing depends on it once the link is made.
      }
    }
    throw new ConfigError(`cannot lock ${dir}: other processes keep taking it`);
  }

  /** Gives the folder up, if the lock is still ours. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      removeIfHeldBy(join(this.dir, LOCK_FILE), this.owner.token);
    } catch {
      // A folder removed or made unreadable under us: there is no lock of ours left to remove.
    }
  }
}

/**
 * Removes a lock left by a dead owner (token `staleToken`, or null for an unreadable lock),
 * one process at a time: only the holder of the takeover lock may remove it, and only if it
 * still holds that same owner.
 */
function takeOver(file: string, staleToken: string | null, mine: string): void {
  const gate = `${file}${TAKEOVER_SUFFIX}`;
  if (!linkNew(mine, gate)) {
    const holder = readLockOwner(gate);
    // The gate is held for a moment only; one whose holder died mid-takeover is cleared.
    if (holder !== null && holder !== 'unreadable' && ownerState(holder) === 'dead') {
      try {
        removeIfHeldBy(gate, holder.token);
      } catch {
        // Someone else cleared it first.
      }
    } else sleepMs(2);
    return;
  }
  const token = readLockOwner(mine);
  try {
    const now = readLockOwner(file);
    const same = now === 'unreadable' ? staleToken === null : now !== null && now.token === staleToken;
    if (same) unlinkSync(file);
  } finally {
    if (token !== null && token !== 'unreadable') removeIfHeldBy(gate, token.token);
  }
}
