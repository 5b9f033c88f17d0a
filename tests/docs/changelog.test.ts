/**
 * The CHANGELOG keeps one or two lines per change: every bullet is at most two lines (the first
 * starting `- `, the second indented two spaces) and no line of the file passes 100 columns.
 * Figures, reasons and details belong in docs/, which the bullet names.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const MAX_COLUMNS = 100;
const MAX_BULLET_LINES = 2;

/** What is wrong with the CHANGELOG's text, one `line N: why` each (empty when nothing is). */
function changelogFaults(text: string): string[] {
  const faults: string[] = [];
  let bullet: { line: number; lines: number } | null = null;
  const close = (): void => {
    if (bullet !== null && bullet.lines > MAX_BULLET_LINES)
      faults.push(`line ${bullet.line}: a bullet of ${bullet.lines} lines (at most ${MAX_BULLET_LINES})`);
    bullet = null;
  };
  text.split('\n').forEach((line, i) => {
    const n = i + 1;
    const columns = [...line].length;
    if (columns > MAX_COLUMNS) faults.push(`line ${n}: ${columns} columns (at most ${MAX_COLUMNS})`);
    if (line.startsWith('- ')) {
      close();
      bullet = { line: n, lines: 1 };
    } else if (bullet !== null && /^\s+\S/.test(line)) {
      bullet.lines += 1;
      if (!/^ {2}\S/.test(line)) faults.push(`line ${n}: a bullet's next line is indented two spaces`);
    } else {
      close();
    }
  });
  close();
  return faults;
}

describe('the CHANGELOG', () => {
  it(`keeps every change to at most ${MAX_BULLET_LINES} lines of at most ${MAX_COLUMNS} columns`, () => {
    expect(changelogFaults(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'))).toEqual([]);
  });

  it('the checker finds a long line, a long bullet and a bad indent, and passes a good entry', () => {
    const good = '# Changelog\n\n## 1.0\n\n- One line.\n- Two lines,\n  the second indented.\n';
    expect(changelogFaults(good)).toEqual([]);
    expect(changelogFaults(`- ${'x'.repeat(99)}\n`)).toEqual(['line 1: 101 columns (at most 100)']);
    expect(changelogFaults(`- ${'é'.repeat(98)}\n`)).toEqual([]);
    expect(changelogFaults('## 1.0\n- a\n  b\n  c\n\n- d\n')).toEqual(['line 2: a bullet of 3 lines (at most 2)']);
    expect(changelogFaults('- a\n    b\n')).toEqual(["line 2: a bullet's next line is indented two spaces"]);
    expect(changelogFaults('- a\n  b\n- c\n  d\n  e')).toEqual(['line 3: a bullet of 3 lines (at most 2)']);
  });
});
