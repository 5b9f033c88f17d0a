/**
 * src/runfile owns the run folder: the results file's name is built there and nowhere else
 * (issue 37). Any other module asks it for the path (`resultsPath`) or whether a folder is a
 * run (src/runfile/discover.ts); none spells `results.jsonl` as a string or reaches for `RESULTS_FILE`.
 * Comments and sentences that mention the file are words, not names built, and are allowed.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../support/source-files.js';

/** The one folder allowed the name. */
const ALLOWED = ['runfile/'];

/** The code of a file with its comments taken out (line comments and block comments). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** A string literal that is the file's name, alone or as the last part of a path, or the constant. */
const NAME_BUILT = /['"`](?:[^'"`\s]*\/)?results\.jsonl['"`]|\bRESULTS_FILE\b/;

describe('the results file is named only by src/runfile', () => {
  it('no module outside src/runfile spells results.jsonl as a name or uses RESULTS_FILE', () => {
    const offenders = sourceFiles(SRC)
      .map((f) => relative(SRC, f))
      .filter((f) => !ALLOWED.some((a) => f.startsWith(a)))
      .filter((f) => NAME_BUILT.test(code(readFileSync(`${SRC}/${f}`, 'utf8'))));
    expect(offenders).toEqual([]);
  });

  it('the rule sees a name built either way', () => {
    expect(NAME_BUILT.test(code("const p = join(dir, 'results.jsonl');"))).toBe(true);
    expect(NAME_BUILT.test(code('const p = `${dir}/results.jsonl`;'))).toBe(true);
    expect(NAME_BUILT.test(code('const p = join(dir, RESULTS_FILE);'))).toBe(true);
    expect(NAME_BUILT.test(code('// results.jsonl is read once\nconst a = 1;'))).toBe(false);
    expect(NAME_BUILT.test(code('help: "one line per reply, results.jsonl\'s line shape"'))).toBe(false);
  });
});
