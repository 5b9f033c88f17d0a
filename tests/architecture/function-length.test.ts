/**
 * No function of src/ needs a scroll (issue 24 §4): every function, method, arrow function
 * and function expression spans at most 60 lines, measured from its first line to its last
 * by the TypeScript parser. A longer one is split into named steps, as CONTRIBUTING.md says.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../support/source-files.js';

/** Most lines a function may span (a screen). */
const MAX_LINES = 60;

/** Every function-like node of `file` longer than MAX_LINES, as "path:line name (N lines)". */
function longFunctions(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) {
        const name =
          node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : '<anonymous>');
        found.push(`${relative(SRC, file)}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the functions of src/', () => {
  it(`each span at most ${MAX_LINES} lines`, () => {
    const long = sourceFiles(SRC).flatMap(longFunctions);
    expect(long, 'split these into named steps').toEqual([]);
  });

  it('are measured: a long function in a file would be found', () => {
    // The measure itself, on a function of 61 lines written out here.
    const body = Array.from({ length: 59 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const source = ts.createSourceFile('x.ts', `function long() {\n${body}\n}\n`, ts.ScriptTarget.Latest, true);
    const fn = source.statements[0]!;
    const lines =
      source.getLineAndCharacterOfPosition(fn.getEnd()).line -
      source.getLineAndCharacterOfPosition(fn.getStart()).line +
      1;
    expect(lines).toBe(61);
  });
});
