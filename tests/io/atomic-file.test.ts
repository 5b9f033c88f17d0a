import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/io/atomic-file.js';
import { bas, basProcess } from '../support/cli.js';

const dir = () => mkdtempSync(join(tmpdir(), 'bas-atomic-'));

describe('AtomicFile: what stands at the path is never destroyed', () => {
  it('a symbolic link stays a link; the file it points to gets the new text', () => {
    const d = dir();
    writeFileSync(join(d, 'real'), 'old');
    symlinkSync('real', join(d, 'link'));
    const f = new AtomicFile(join(d, 'link'), '--out');
    f.write('new');
    f.commit();
    expect(lstatSync(join(d, 'link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(d, 'link'))).toBe('real');
    expect(readFileSync(join(d, 'real'), 'utf8')).toBe('new');
    expect(readdirSync(d).sort()).toEqual(['link', 'real']);
  });

  it('a link to nothing is refused by name', () => {
    const d = dir();
    symlinkSync('missing', join(d, 'dangling'));
    expect(() => new AtomicFile(join(d, 'dangling'), '--out')).toThrow(/--out .*dangling is a link to nothing/);
  });

  it.skipIf(process.platform === 'win32')('a FIFO is written into, not replaced by a regular file', async () => {
    const d = dir();
    const fifo = join(d, 'pipe');
    execFileSync('mkfifo', [fifo]);
    // A reader on the other end, as `bas gen -o pipe` would have in a shell. The writer is a
    // process of its own: opening a FIFO waits for its reader, and this reader blocks this process.
    const reading = basProcess(['gen', '-n', '2', '-o', fifo]);
    const got = execFileSync('cat', [fifo], { encoding: 'utf8' });
    const r = await reading;
    expect(r.code).toBe(0);
    expect(got.trim().split('\n')).toHaveLength(2);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d)).toEqual(['pipe']);
  });

  it('gen -o through a link writes the linked file', async () => {
    const d = dir();
    writeFileSync(join(d, 'tasks.jsonl'), 'old\n');
    symlinkSync(join(d, 'tasks.jsonl'), join(d, 'latest.jsonl'));
    const r = await bas(['gen', '-n', '3', '-o', join(d, 'latest.jsonl')]);
    expect(r.code).toBe(0);
    expect(lstatSync(join(d, 'latest.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(d, 'tasks.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    expect(existsSync(join(d, 'latest.jsonl'))).toBe(true);
  });
});
