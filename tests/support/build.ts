/**
 * vitest globalSetup: compiles src/ into dist/ once, before any test file runs. Tests that spawn
 * the CLI run dist/, so building here every time means a stale dist/ can never be tested by
 * mistake. A failed build stops the whole run with the compiler's own messages.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export default function build(): void {
  // The project's own compiler, run by this Node: no shell, no npx lookup, same version as typecheck.
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) {
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
    throw new Error(
      `build failed: tsc -p tsconfig.build.json ${r.error ? r.error.message : `exited with ${r.status}`}\n${output}`,
    );
  }
}
