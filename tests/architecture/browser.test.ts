/**
 * The browser app (src/web) runs in a page: every file it imports, at any depth, is pure
 * code of this project. No node module (`node:fs` …) and no package is reached from it, so
 * the bundle holds nothing that needs node or that the page would have to fetch.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../support/source-files.js';

/** Every module specifier a file names (static, dynamic, re-export, type-only included). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

/** The files reached from `roots` through relative imports, and every other specifier seen (with who named it). */
function reach(roots: string[]): { files: Set<string>; outside: string[] } {
  const files = new Set<string>();
  const outside: string[] = [];
  const todo = [...roots];
  while (todo.length) {
    const f = todo.pop()!;
    if (files.has(f)) continue;
    files.add(f);
    for (const s of specifiers(f)) {
      if (s.startsWith('.')) todo.push(resolve(dirname(f), s.replace(/\.js$/, '.ts')));
      else outside.push(`${relative(SRC, f)} -> ${s}`);
    }
  }
  return { files, outside };
}

describe('the browser app', () => {
  const web = sourceFiles(join(SRC, 'web'));

  it('reaches no node module and no package, at any depth', () => {
    expect(web.length).toBeGreaterThan(0);
    expect(reach(web).outside).toEqual([]);
  });

  it('reaches only src/web, src/display and the vocabulary of src/task', () => {
    const allowed = (f: string) => /^(web|display)\//.test(relative(SRC, f)) || relative(SRC, f) === 'task/types.ts';
    expect([...reach(web).files].filter((f) => !allowed(f)).map((f) => relative(SRC, f))).toEqual([]);
  });

  it('would be caught reaching for node', () => {
    // The check itself, on a file that names node:fs: the specifier is found.
    expect(specifiers(join(SRC, 'report', 'html', 'app-script.ts'))).toContain('node:fs');
  });
});
