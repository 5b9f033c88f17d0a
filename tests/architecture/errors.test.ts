/**
 * Every error class of src/ lives in src/errors/, in a file grouped by what it is about (not
 * one file per class), extends BasError with a code of its own, and is exported from
 * src/errors/index.ts: a reader looking for what can be thrown finds it in one folder, and a
 * user of the API catches one base class and branches on a stable code (issue 24 §4).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

import * as api from '../../src/index.js';
import * as named from '../../src/errors/index.js';
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

type ErrorClass = abstract new (...args: never[]) => Error;
const classes = (Object.entries(named) as [string, unknown][]).filter(
  (e): e is [string, ErrorClass] => typeof e[1] === 'function' && (e[1] as ErrorClass).prototype instanceof Error,
);

describe('the error classes of src/', () => {
  const files = sourceFiles(SRC);

  it('are declared only in src/errors/', () => {
    const outside = files
      .filter((f) => !f.startsWith(ERRORS + '/'))
      .flatMap((f) => errorClasses(readFileSync(f, 'utf8')).map((c) => `${relative(SRC, f)}: ${c}`));
    expect(outside, 'error classes outside src/errors/: move each to the file of its subject there').toEqual([]);
  });

  it('are each exported from the index', () => {
    const declared = files
      .filter((f) => f.startsWith(ERRORS + '/'))
      .flatMap((f) => errorClasses(readFileSync(f, 'utf8')));
    expect(declared.length).toBeGreaterThan(10);
    expect(classes.map(([name]) => name).sort()).toEqual([...declared].sort());
  });

  it('are grouped: no file of src/errors/ holds a lone small class', () => {
    const lone = files
      .filter((f) => f.startsWith(ERRORS + '/'))
      .filter((f) => {
        const text = readFileSync(f, 'utf8');
        return errorClasses(text).length === 1 && text.split('\n').length < 30;
      })
      .map((f) => relative(ERRORS, f));
    expect(lone, 'a class this small belongs in the file of its subject').toEqual([]);
  });

  it('extend BasError, each with a code of its own and an exit code', () => {
    const codes = new Map<string, string>();
    for (const [name, cls] of classes) {
      if (cls === named.BasError) continue;
      expect(cls.prototype, name).toBeInstanceOf(named.BasError);
      // Made without its constructor (each takes other arguments): the fields are set by it.
      const sample = Reflect.construct(cls, ['x', 1]) as InstanceType<typeof named.BasError>;
      expect(sample.name, name).toBe(name);
      expect(sample.code, name).toMatch(/^BAS_[A-Z_]+$/);
      expect(Number.isInteger(sample.exitCode) && sample.exitCode > 0, name).toBe(true);
      expect(codes.get(sample.code), `${name} reuses the code of ${codes.get(sample.code)}`).toBeUndefined();
      codes.set(sample.code, name);
    }
  });

  it('the base class is part of the public API', () => {
    expect(api.BasError).toBe(named.BasError);
    expect(new api.ConfigError('bad')).toBeInstanceOf(api.BasError);
  });
});
