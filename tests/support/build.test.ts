/**
 * The globalSetup in build.ts must leave dist/ compiled from the source as it is now: every
 * module of src/ has its output, written no earlier than the source was last changed. Without
 * the setup, editing a source file and running the tests would spawn yesterday's CLI.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { DIST, ROOT } from './cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

it('dist/ holds a build of every source file, newer than the source', () => {
  const src = join(ROOT, 'src');
  const stale: string[] = [];
  for (const file of sources(src)) {
    const out = join(DIST, relative(src, file).replace(/\.ts$/, '.js'));
    let built: number;
    try {
      built = statSync(out).mtimeMs;
    } catch {
      stale.push(`${relative(ROOT, file)} (not built)`);
      continue;
    }
    if (built < statSync(file).mtimeMs) stale.push(`${relative(ROOT, file)} (changed since the build)`);
  }
  expect(stale).toEqual([]);
});
