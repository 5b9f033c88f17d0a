/**
 * The docs name only code that is there: every path under src/ that README.md, CONTRIBUTING.md
 * or docs/*.md cites (`src/runfile/winners.ts`, `src/settings/`), and every file a code span
 * names by its folder in src/ or tests/ (`engine/run-eval.ts`, `runfile/lock.test.ts`), exists.
 * A module that is removed or moved leaves such a sentence pointing nowhere, and no link check
 * sees it because it is no link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** The Markdown files checked, relative to the project root. */
function checkedFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs.sort()].filter((f) => existsSync(join(ROOT, f)));
}

/** The folders directly under src/ (the layers), which a code span may name a file by. */
function layers(): string[] {
  return readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());
}

/**
 * The source paths `text` cites, with their line numbers: `src/…` anywhere (a trailing dot or
 * comma is the sentence's), and `LAYER/….ts` inside a code span, for the given layer names.
 */
function citedPaths(text: string, layerNames: string[]): { line: number; path: string; under: string[] }[] {
  const out: { line: number; path: string; under: string[] }[] = [];
  const bare = new RegExp(`^(?:${layerNames.join('|')})/[\\w./-]*\\.ts$`);
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/(?<![\w./-])src\/[\w./-]*/g)) {
      out.push({ line: i + 1, path: m[0].replace(/[.,]+$/, ''), under: [''] });
    }
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      if (bare.test(m[1]!)) out.push({ line: i + 1, path: m[1]!, under: ['src/', 'tests/'] });
    }
  });
  return out;
}

/** The cited paths of `file` that exist nowhere, as `file:line → path`. */
function missingPaths(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return citedPaths(text, layers())
    .filter(({ path, under }) => !under.some((prefix) => existsSync(join(ROOT, prefix + path))))
    .map(({ line, path }) => `${file}:${line} → ${path}`);
}

describe('source paths in the docs', () => {
  it.each(checkedFiles())('every path under src/ that %s names exists', (file) => {
    expect(missingPaths(file)).toEqual([]);
  });

  it('the checker reads src/ paths in prose and layer paths in code spans', () => {
    const text = 'See src/errors.ts, `src/run/` and src/io/std.ts.\nThe `engine/eval-thread.ts` and `a/b.ts` files';
    expect(citedPaths(text, ['engine', 'io'])).toEqual([
      { line: 1, path: 'src/errors.ts', under: [''] },
      { line: 1, path: 'src/run/', under: [''] },
      { line: 1, path: 'src/io/std.ts', under: [''] },
      { line: 2, path: 'engine/eval-thread.ts', under: ['src/', 'tests/'] },
    ]);
    expect(citedPaths('tests/src/x.ts and docs/src/y', ['engine'])).toEqual([]);
  });
});
