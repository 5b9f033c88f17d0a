/**
 * The one opener of the files bas keeps (src/io/open-file.ts): a link is refused, and so is a
 * FIFO, at once, to read and to write, without waiting for the other end.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNoFollow, openNoFollowHandle } from '../../src/io/open-file.js';
import { tempDir } from '../support/cli.js';

describe('openNoFollow', () => {
  it('opens a regular file, refuses a link to one', async () => {
    const dir = tempDir();
    const file = join(dir, 'f');
    writeFileSync(file, 'data');
    closeSync(openNoFollow(file, 'r'));
    await (await openNoFollowHandle(file)).close();
    symlinkSync(file, join(dir, 'link'));
    expect(() => openNoFollow(join(dir, 'link'), 'r')).toThrow(/link is a symbolic link/);
    await expect(openNoFollowHandle(join(dir, 'link'))).rejects.toThrow(/is a symbolic link/);
  });

  it('refuses a FIFO at once, to read, to append and to read and write', async () => {
    const fifo = join(tempDir(), 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const how of ['r', 'a', 'r+'] as const)
      expect(() => openNoFollow(fifo, how)).toThrow(/fifo is a FIFO or a device|fifo is a FIFO \(named pipe\)/);
    await expect(openNoFollowHandle(fifo)).rejects.toThrow(/is a FIFO \(named pipe\), not a regular file/);
  });

  it('refuses a folder and a device by what they are', () => {
    const dir = join(tempDir(), 'sub');
    mkdirSync(dir);
    expect(() => openNoFollow(dir, 'r')).toThrow(/sub is a folder, not a regular file/);
    expect(() => openNoFollow('/dev/zero', 'r')).toThrow(/is a device, not a regular file/);
    expect(readFileSync('/dev/null', 'utf8')).toBe('');
  });
});
