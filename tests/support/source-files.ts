/** The project's TypeScript sources, for the tests that read the code itself (tests/architecture). */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The `src/` folder. */
export const SRC = resolve(import.meta.dirname, '../../src');

/** Every `.ts` file under `dir`, at any depth. */
export function sourceFiles(dir: string = SRC): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}
