/**
 * The type check the test setup runs beside the tests (build.ts): typesChecked() resolves with
 * the compiler's messages (empty: no error) once it is done, and from then on the declarations
 * of src/ are in dist/. It waits for the result file to appear, not for a length of time.
 */
import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { inject } from 'vitest';

export function typesChecked(): Promise<string> {
  const result = inject('typesResult');
  return new Promise((resolve, reject) => {
    // Watch first, then look: a file that appears in between is seen either way.
    const watcher = watch(dirname(result), (_event, name) => {
      if (name === basename(result) && existsSync(result)) done();
    });
    watcher.on('error', (e) => {
      watcher.close();
      reject(e);
    });
    const done = (): void => {
      watcher.close();
      resolve(readFileSync(result, 'utf8'));
    };
    if (existsSync(result)) done();
  });
}
