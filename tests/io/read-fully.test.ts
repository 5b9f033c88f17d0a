/**
 * The one "read until the buffer is full" loop (src/io/read-fully.ts): short reads are
 * continued where they stopped, the end of the file stops it early, and a file descriptor
 * reads the same as any other source.
 */
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFully, readFullyFd, type ReadAt } from '../../src/io/read-fully.js';
import { tempDir } from '../support/cli.js';

/** A source of `bytes` that hands out at most `step` bytes a call, counting its calls. */
function trickle(bytes: Buffer, step: number): { readAt: ReadAt; calls: number[] } {
  const calls: number[] = [];
  const readAt: ReadAt = (into, position) => {
    calls.push(position);
    const n = Math.max(0, Math.min(step, into.length, bytes.length - position));
    bytes.copy(into, 0, position, position + n);
    return n;
  };
  return { readAt, calls };
}

describe('readFully', () => {
  it('continues after short reads until the buffer is full, each read where the last stopped', () => {
    const src = Buffer.from('abcdefghijklmnopqrstuvwxyz');
    const { readAt, calls } = trickle(src, 3);
    const into = Buffer.alloc(10);
    expect(readFully(readAt, into, 5)).toBe(10);
    expect(into.toString()).toBe('fghijklmno');
    expect(calls).toEqual([5, 8, 11, 14]);
  });

  it('stops at the end of the file, saying how much it read, and never asks again after a read of nothing', () => {
    const { readAt, calls } = trickle(Buffer.from('0123456789'), 4);
    const into = Buffer.alloc(8);
    expect(readFully(readAt, into, 6)).toBe(4);
    expect(into.subarray(0, 4).toString()).toBe('6789');
    expect(calls).toEqual([6, 10]);
    expect(readFully(readAt, Buffer.alloc(0), 0)).toBe(0);
  });

  it('reads a range of an open file', () => {
    const path = join(tempDir('bas-read-fully-'), 'f');
    writeFileSync(path, 'hello, world');
    const fd = openSync(path, 'r');
    try {
      const into = Buffer.alloc(5);
      expect(readFullyFd(fd, into, 7)).toBe(5);
      expect(into.toString()).toBe('world');
      expect(readFullyFd(fd, Buffer.alloc(4), 10)).toBe(2);
    } finally {
      closeSync(fd);
    }
  });
});
