/**
 * The globalSetup in build.ts must leave dist/ compiled from the source as it is now: every
 * module of src/ has its output, written no earlier than the source was last changed. Without
 * the setup, editing a source file and running the tests would spawn yesterday's CLI. The type
 * check it runs beside the tests fails here, with the compiler's own messages.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { DIST, ROOT } from './cli.js';
import { typesChecked } from './types-checked.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

it('dist/ holds a build of every source file, newer than the source', () => {
  const src = join(ROOT, 'src');
  const stale: string[] = [];
  // The browser app is one bundle, dist/web/app.js, newer than each of its sources.
  const web = join(src, 'web');
  const app = join(DIST, 'web', 'app.js');
  const built = statSync(app, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  for (const file of sources(web))
    if (built < statSync(file).mtimeMs) stale.push(`${relative(ROOT, file)} (not in dist/web/app.js)`);
  for (const file of sources(src).filter((f) => !f.startsWith(web + '/'))) {
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

// The check runs beside the tests; on a loaded machine it may take minutes to finish.
it('the project type-checks (src, tests and bench, as tsconfig.json sees them; src/web as its own tsconfig does)', async () => {
  expect(await typesChecked()).toBe('');
}, 600_000);
