/**
 * The one "read until the buffer is full" loop: a positioned read may return fewer bytes than
 * asked (a pipe, a network file system, a signal), so every caller that needs a whole range
 * goes on reading until it has it, and stops early only where the file ends.
 */
import { readSync } from 'node:fs';

/** Reads into `into` from byte `position` of a file; returns how many bytes were read (0 at its end). */
export type ReadAt = (into: Buffer, position: number) => number;

/**
 * Fills `into` with the bytes from `position` on, continuing after each short read. Returns
 * how many were read: `into.length`, or fewer only when the file ended first.
 */
export function readFully(readAt: ReadAt, into: Buffer, position: number): number {
  let got = 0;
  while (got < into.length) {
    const n = readAt(into.subarray(got), position + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

/** Positioned reads of an open file descriptor. */
function readAtFd(fd: number): ReadAt {
  return (into, position) => readSync(fd, into, 0, into.length, position);
}

/** `readFully` from an open file descriptor. */
export function readFullyFd(fd: number, into: Buffer, position: number): number {
  return readFully(readAtFd(fd), into, position);
}
