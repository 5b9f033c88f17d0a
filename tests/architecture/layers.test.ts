/**
 * The source's import rules, checked on the files as they are: every import of `src/` points
 * to the same folder or to a lower layer, and no chain of imports comes back to where it
 * started. CONTRIBUTING.md describes the layers; this table is where they are enforced.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { SRC, sourceFiles } from '../support/source-files.js';

/**
 * Layers from the top down. A file may import its own folder and any folder of a lower layer;
 * two folders that share a layer may not import each other (the engine does not render, the
 * reports do not run evals).
 */
const LAYERS: readonly (readonly string[])[] = [
  // The browser app: bundled into a page's script, imported by nothing (browser.test.ts keeps it pure).
  ['web'],
  ['cli.ts', 'index.ts'],
  ['commands'],
  // Planning and running for both front ends: the commands (the CLI's) and index.ts (the library's).
  ['api'],
  // The web app over run folders: reads runs with the report code, serves with serve's HTTP service.
  ['view'],
  ['engine', 'serve', 'report'],
  ['endpoint'],
  ['runfile'],
  ['summary'],
  // Settings resolve flags, config files, the registry and a saved run.json (handed in as
  // data) into a plan that the layers above take as it is: they configure endpoint and
  // runfile, and so sit below them, reading only io and task.
  ['settings'],
  ['io'],
  // What a page shows, computed once for the server, the browser and the tests (pure, no node).
  ['display'],
  ['task'],
  // The error classes: plain data with a message, shared by every layer (the task layer's
  // ConfigError included), importing nothing.
  ['errors', 'errors.ts'],
];

/**
 * Arrows that break the rules today and are being removed; the test fails when one of them
 * is gone but still listed, so this list only shrinks.
 */
const KNOWN_UPWARD: readonly string[] = [];

/** The top-level part of `src/` that a file belongs to: its first folder, or its own name. */
function unit(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

function layerOf(u: string): number {
  const at = LAYERS.findIndex((names) => names.includes(u));
  if (at < 0) throw new Error(`src/${u} is in no layer: add it to LAYERS and to CONTRIBUTING.md`);
  return at;
}

/** Relative imports of a file (static, dynamic and re-exports, types included), resolved to .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = new Set<string>();
  for (const m of text.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) specs.add(m[1]!);
  return [...specs].map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)] as const));
const name = (f: string) => relative(SRC, f);

describe('the layers of src/', () => {
  it('every import points to its own folder or to a lower layer', () => {
    const broken: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        const a = unit(from);
        const b = unit(to);
        if (a === b) continue;
        if (layerOf(b) > layerOf(a)) continue;
        broken.push(`${name(from)} -> ${name(to)}`);
      }
    }
    const unexpected = broken.filter((b) => !KNOWN_UPWARD.includes(b));
    const fixed = KNOWN_UPWARD.filter((k) => !broken.includes(k));
    expect(unexpected, 'imports that climb a layer or cross to a sibling').toEqual([]);
    expect(fixed, 'listed in KNOWN_UPWARD but gone: remove them from the list').toEqual([]);
  });

  it('only cli.ts imports commands/: the library (index.ts) reaches the same code through api/', () => {
    const commands = join(SRC, 'commands');
    const importers = [...graph]
      .filter(([from, targets]) => unit(from) !== 'commands' && targets.some((t) => t.startsWith(commands + '/')))
      .map(([from]) => name(from));
    expect(importers).toEqual(['cli.ts']);
  });

  it('index.ts only re-exports: every function of the library is defined below it', () => {
    const text = readFileSync(join(SRC, 'index.ts'), 'utf8');
    expect(text).not.toMatch(/^(export )?(async )?function /m);
    expect(text).not.toMatch(/^import /m);
  });

  it('every import names a file that exists', () => {
    const missing = [...graph].flatMap(([from, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${name(from)} -> ${name(t)}`),
    );
    expect(missing).toEqual([]);
  });

  it('no chain of imports comes back to its start', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]): void => {
      state.set(f, 'open');
      for (const t of graph.get(f) ?? []) {
        if (state.get(t) === 'open') cycles.push([...path.slice(path.indexOf(t)), t].map(name).join(' -> '));
        else if (!state.has(t) && graph.has(t)) visit(t, [...path, t]);
      }
      state.set(f, 'done');
    };
    for (const f of files) if (!state.has(f)) visit(f, [f]);
    expect(cycles).toEqual([]);
  });

  it('each folder of src/ opens with a comment saying what it owns and what it may import', () => {
    const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
    const without = folders.filter((f) => {
      const readme = join(SRC, f, 'README.md');
      try {
        return !/may import/i.test(readFileSync(readme, 'utf8'));
      } catch {
        return true;
      }
    });
    expect(without, 'folders without a README.md that says what they own and what they may import').toEqual([]);
  });
});
