/**
 * Every error class of src/ lives in src/errors/, one file per class, the file named after the
 * class (ConfigError in config-error.ts), and is exported from src/errors/index.ts: a reader
 * looking for what can be thrown finds it in one folder.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import { SRC, sourceFiles } from '../support/source-files.js';
const ERRORS = join(SRC, 'errors');

/** Classes a file declares that are errors: named `…Error`, or extending a class named so. */
function errorClasses(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bclass\s+(\w+)(?:\s*<[^>{]*>)?(?:\s+extends\s+([\w.]+))?/g)) {
    if (m[1]!.endsWith('Error') || (m[2] ?? '').endsWith('Error')) found.push(m[1]!);
  }
  return found;
}

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

describe('the error classes of src/', () => {
  const files = sourceFiles(SRC);

  it('are declared only in src/errors/', () => {
    const outside = files
      .filter((f) => !f.startsWith(ERRORS + '/'))
      .flatMap((f) => errorClasses(readFileSync(f, 'utf8')).map((c) => `${relative(SRC, f)}: ${c}`));
    expect(outside, 'error classes outside src/errors/: move each to its own file there').toEqual([]);
  });

  it('live one to a file named after the class, exported from the index', () => {
    const index = readFileSync(join(ERRORS, 'index.ts'), 'utf8');
    const wrong: string[] = [];
    for (const f of files.filter((f) => f.startsWith(ERRORS + '/'))) {
      const classes = errorClasses(readFileSync(f, 'utf8'));
      const file = relative(ERRORS, f);
      if (classes.length > 1) wrong.push(`${file} declares ${classes.join(', ')}`);
      for (const c of classes) {
        if (file !== `${kebab(c)}.ts`) wrong.push(`${c} is in ${file}, not ${kebab(c)}.ts`);
        if (!new RegExp(`\\b${c}\\b[^\\n]*from './${kebab(c)}\\.js'`).test(index))
          wrong.push(`${c} is not exported from index.ts`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
