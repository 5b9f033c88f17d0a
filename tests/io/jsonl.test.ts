/** Reading lines from outside files: every line whole, and a bound on how long one may be. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, FileTooLargeError } from '../../src/errors/index.js';
import { boundedLines, readJsonLines, readSmallFile } from '../../src/io/jsonl.js';
import { tempDir } from '../support/cli.js';

async function all(path: string, max?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const line of boundedLines(path, max)) out.push(line);
  return out;
}

function file(text: string): string {
  const path = join(tempDir(), 'f.jsonl');
  writeFileSync(path, text);
  return path;
}

describe('boundedLines', () => {
  it('splits on \\n and \\r\\n, keeps blank lines and a last line without a newline', async () => {
    expect(await all(file('a\r\nbb\n\nccc\ndé'))).toEqual(['a', 'bb', '', 'ccc', 'dé']);
    expect(await all(file(''))).toEqual([]);
    expect(await all(file('x\n'))).toEqual(['x']);
  });

  it('lines across read chunks come out whole', async () => {
    const long = 'y'.repeat(3 * (1 << 20) + 17);
    expect(await all(file(`a\n${long}\nb`))).toEqual(['a', long, 'b']);
  });

  it('characters of several bytes cut by a 64 KB piece or a megabyte read come out whole', async () => {
    // Lines of 'é' (two bytes) and '€' (three) shifted so that every piece boundary of the
    // first megabytes falls inside a character somewhere.
    const lines: string[] = [];
    for (let i = 0, chars = 0; chars < 3 * (1 << 20); i++) {
      lines.push('a'.repeat(i % 3) + (i % 2 ? 'é' : '€').repeat(4000 + (i % 7)) + 'z');
      chars += lines[i]!.length + 1;
    }
    expect(await all(file(lines.join('\n') + '\n'))).toEqual(lines);
    // A character cut off by the end of the file is one replacement character, as before.
    const cut = Buffer.concat([Buffer.from('ok\nab'), Buffer.from('€').subarray(0, 2)]);
    const path = join(tempDir(), 'cut.jsonl');
    writeFileSync(path, cut);
    expect(await all(path)).toEqual(['ok', 'ab\ufffd']);
  });

  it('a line past the bound is refused naming the file and line, with or without a newline after it', async () => {
    const path = file('ok\n0123456789ABC\nok\n');
    await expect(all(path, 10)).rejects.toThrow(
      new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: line 2 is longer than 10 characters`),
    );
    await expect(all(file('ok\n0123456789ABC'), 10)).rejects.toBeInstanceOf(ConfigError);
    expect(await all(file('0123456789\n'), 10)).toEqual(['0123456789']);
  });
});

describe('readJsonLines', () => {
  it('reads a file that starts with a UTF-8 byte-order mark, as Windows editors save one', async () => {
    const path = file('\ufeff{"index": 0}\n{"index": 1}\n');
    const seen: unknown[] = [];
    expect(await readJsonLines(path, '--tasks', (v) => seen.push(v))).toBe(2);
    expect(seen).toEqual([{ index: 0 }, { index: 1 }]);
  });

  it('still refuses a mark anywhere but at the start of the file', async () => {
    await expect(readJsonLines(file('{"index": 0}\n\ufeff{"index": 1}\n'), '--tasks', () => {})).rejects.toThrow(
      /:2: not valid JSON/,
    );
  });
});

describe('readSmallFile', () => {
  it('reads a file up to its bound, and refuses one past it or a device that never ends', () => {
    expect(readSmallFile(file('0123456789'), 10)).toBe('0123456789');
    expect(() => readSmallFile(file('0123456789A'), 10)).toThrow(FileTooLargeError);
    expect(() => readSmallFile('/dev/zero', 1000)).toThrow(/\/dev\/zero is larger than 1000 bytes/);
    expect(readSmallFile(file('dé'.repeat(40_000)), 1 << 20)).toBe('dé'.repeat(40_000));
  });
});
